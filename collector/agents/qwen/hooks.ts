// Qwen Code's hooks (docs/users/features/hooks.md, packages/core/src/hooks/types.ts HookEventName):
// ~/.qwen/settings.json and the workspace's .qwen/settings.json (no settings.local.json), `hooks` key; the
// system settings file (docs/users/configuration/settings.md): /etc/qwen-code/settings.json on Linux,
// /Library/Application Support/QwenCode/settings.json on macOS, C:\ProgramData\qwen-code\settings.json on
// Windows. Timeouts in milliseconds; async hooks supported.
import { join } from 'node:path';
import { type AgentHooks, isJsonObject } from '../../install/locations.ts';
import { QWEN_TELEMETRY } from './telemetry.ts';

/** Pure: Qwen Code's own switches in `hooks`: `enabled: false` turns every hook off; `disabled` lists the hooks (by name or command) it skips. */
function qwenBlockers(root: Record<string, unknown>, isOurs: (command: string) => boolean): string[] {
  const hooks = root['hooks'];
  if (!isJsonObject(hooks)) return [];
  if (hooks['enabled'] === false) return ['"hooks.enabled": false turns every hook off'];
  const off = hooks['disabled'];
  if (Array.isArray(off) && off.some((entry) => typeof entry === 'string' && isOurs(entry)))
    return ['"hooks.disabled" lists the agentmeter hook'];
  return [];
}

export const QWEN_HOOKS: AgentHooks = {
  homeDir: '.qwen',
  binary: 'qwen',
  // Left out: MessageDisplay (fires every ~200 ms while a reply streams: a process each time), PostToolBatch
  // (repeats the tool calls PostToolUse already counts), TodoCreated/TodoCompleted (fire twice per change and
  // fail closed when the hook system errs), and the events only the newest versions know (SessionDelete,
  // PermissionDenied, StopFailure, PostCompact, UserPromptExpansion, InstructionsLoaded).
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PermissionRequest',
    'Notification',
    'Stop',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  supportsAsync: true,
  timeoutUnit: 'milliseconds',
  matcher: 'whole',
  settingsDir: (home) => join(home, '.qwen'),
  userSettings: (home) => ({ file: join(home, '.qwen', 'settings.json'), topLevel: false }),
  managed: {
    linux: '/etc/qwen-code/settings.json',
    darwin: '/Library/Application Support/QwenCode/settings.json',
    win32: 'C:\\ProgramData\\qwen-code\\settings.json',
  },
  hookFiles(home, cwd) {
    const files = [{ file: join(home, '.qwen', 'settings.json'), topLevel: false }];
    if (cwd) files.push({ file: join(cwd, '.qwen', 'settings.json'), topLevel: false });
    return files;
  },
  blockers: qwenBlockers,
  settingsTelemetry: QWEN_TELEMETRY,
};

export default QWEN_HOOKS;
