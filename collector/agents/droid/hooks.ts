// Droid's hooks: ~/.factory/settings.json when it already has a `hooks` key, else ~/.factory/hooks.json
// (which may hold the map at top level); project .factory/settings(.local).json; the managed policy file
// (https://docs.factory.ai/enterprise/hierarchical-settings-and-org-control, "System-managed settings.json
// file", and the hooks reference's "Enterprise managed policy settings"): settings.json in /etc/factory on
// Linux and WSL, /Library/Application Support/Factory on macOS, C:\Program Files\Factory on Windows, with
// hooks under the `hooks` key. Timeouts in seconds; no async hooks.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentHooks, locationFor, noBlockers } from '../../install/locations.ts';

export const DROID_HOOKS: AgentHooks = {
  homeDir: '.factory',
  binary: 'droid',
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'Notification',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  supportsAsync: false,
  timeoutUnit: 'seconds',
  matcher: 'whole',
  settingsDir: (home) => join(home, '.factory'),
  userSettings(home) {
    const settings = join(home, '.factory', 'settings.json');
    if (existsSync(settings)) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(settings, 'utf8'));
        if (parsed && typeof parsed === 'object' && 'hooks' in parsed) return { file: settings, topLevel: false };
      } catch {
        // A malformed settings.json is not ours to judge here; hooks.json is used instead.
      }
    }
    return locationFor(join(home, '.factory', 'hooks.json'));
  },
  managed: {
    linux: '/etc/factory/settings.json',
    darwin: '/Library/Application Support/Factory/settings.json',
    win32: 'C:\\Program Files\\Factory\\settings.json',
  },
  hookFiles(home, cwd) {
    const files = [{ file: join(home, '.factory', 'settings.json'), topLevel: false }, locationFor(join(home, '.factory', 'hooks.json'))];
    if (cwd)
      files.push(
        { file: join(cwd, '.factory', 'settings.json'), topLevel: false },
        { file: join(cwd, '.factory', 'settings.local.json'), topLevel: false },
      );
    return files;
  },
  blockers: noBlockers,
};

export default DROID_HOOKS;
