// Gemini CLI's hooks (packages/core/src/hooks/types.ts, HookEventName): ~/.gemini/settings.json, then the
// project's .gemini/settings.json (run only in a trusted folder), `hooks` key; the system settings file
// (docs/get-started/configuration.md): /etc/gemini-cli/settings.json on Linux, /Library/Application
// Support/GeminiCli/settings.json on macOS, C:\ProgramData\gemini-cli\settings.json on Windows. Timeouts
// in milliseconds; no async hooks; a tool matcher is a regular expression found anywhere in the name
// (hookPlanner.ts: `new RegExp(matcher).test(toolName)`).
import { join } from 'node:path';
import type { AgentHooks } from '../../install/locations.ts';
import { GEMINI_TELEMETRY } from './telemetry.ts';

/**
 * Gemini CLI's own switches: `hooksConfig.enabled: false` (and the older `hooks.enabled: false`) turn every
 * hook off; a command listed in `hooksConfig.disabled` (or `hooks.disabled`) is skipped.
 */
function geminiBlockers(root: Record<string, unknown>, isOurs: (command: string) => boolean): string[] {
  const blockers: string[] = [];
  for (const key of ['hooksConfig', 'hooks'] as const) {
    const section = root[key];
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue;
    const { enabled, disabled } = section as { enabled?: unknown; disabled?: unknown };
    if (enabled === false) blockers.push(`${key}.enabled is false: Gemini CLI runs no hooks`);
    if (Array.isArray(disabled) && disabled.some((d) => typeof d === 'string' && isOurs(d)))
      blockers.push(`${key}.disabled lists the agentmeter hook`);
  }
  return blockers;
}

export const GEMINI_HOOKS: AgentHooks = {
  homeDir: '.gemini',
  binary: 'gemini',
  // BeforeModel, AfterModel and BeforeToolSelection are left out: they fire on every model request
  // (AfterModel on every streamed chunk), each a synchronous process Gemini waits for, and nothing we count
  // comes from them (token usage is read from the chat file).
  events: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'Notification', 'PreCompress', 'SessionEnd'],
  supportsAsync: false,
  timeoutUnit: 'milliseconds',
  matcher: 'anywhere',
  settingsDir: (home) => join(home, '.gemini'),
  userSettings: (home) => ({ file: join(home, '.gemini', 'settings.json'), topLevel: false }),
  managed: {
    linux: '/etc/gemini-cli/settings.json',
    darwin: '/Library/Application Support/GeminiCli/settings.json',
    win32: 'C:\\ProgramData\\gemini-cli\\settings.json',
  },
  hookFiles(home, cwd) {
    const files = [{ file: join(home, '.gemini', 'settings.json'), topLevel: false }];
    if (cwd) files.push({ file: join(cwd, '.gemini', 'settings.json'), topLevel: false });
    return files;
  },
  blockers: geminiBlockers,
  settingsTelemetry: GEMINI_TELEMETRY,
};

export default GEMINI_HOOKS;
