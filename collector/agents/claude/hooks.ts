// Claude Code's hooks: ~/.claude/settings.json (`hooks` key), project .claude/settings(.local).json, and
// the managed policy file (https://code.claude.com/docs/en/settings, "Settings files"): managed-settings.json
// in /etc/claude-code on Linux and WSL, /Library/Application Support/ClaudeCode on macOS,
// C:\ProgramData\ClaudeCode on Windows. Timeouts in seconds; `async: true` is supported.
import { join } from 'node:path';
import { type AgentHooks, noBlockers } from '../../install/locations.ts';
import { CLAUDE_TELEMETRY } from './telemetry.ts';

export const CLAUDE_HOOKS: AgentHooks = {
  homeDir: '.claude',
  binary: 'claude',
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Notification',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  supportsAsync: true,
  timeoutUnit: 'seconds',
  matcher: 'whole',
  settingsDir: (home) => join(home, '.claude'),
  userSettings: (home) => ({ file: join(home, '.claude', 'settings.json'), topLevel: false }),
  managed: {
    linux: '/etc/claude-code/managed-settings.json',
    darwin: '/Library/Application Support/ClaudeCode/managed-settings.json',
    win32: 'C:\\ProgramData\\ClaudeCode\\managed-settings.json',
  },
  hookFiles(home, cwd) {
    const files = [{ file: join(home, '.claude', 'settings.json'), topLevel: false }];
    if (cwd)
      files.push(
        { file: join(cwd, '.claude', 'settings.json'), topLevel: false },
        { file: join(cwd, '.claude', 'settings.local.json'), topLevel: false },
      );
    return files;
  },
  blockers: noBlockers,
  settingsTelemetry: CLAUDE_TELEMETRY,
  statusLine: true,
};

export default CLAUDE_HOOKS;
