// Where Cursor keeps its hooks (cursor.com/docs/hooks, "Configuration"): the user's ~/.cursor/hooks.json
// (commands run from ~/.cursor/), a project's .cursor/hooks.json (run from the project root, in a trusted
// workspace), and the enterprise file an administrator (MDM) puts on each machine. Team hooks come from
// Cursor's dashboard and have no file agentmeter could write. Cursor keeps no token usage on the machine.
import { join } from 'node:path';

export const cursorDir = (home: string) => join(home, '.cursor');
export const cursorHooksFile = (home: string) => join(home, '.cursor', 'hooks.json');
export const cursorProjectHooksFile = (cwd: string) => join(cwd, '.cursor', 'hooks.json');

/** The enterprise (system-wide) hooks file by system. */
export const CURSOR_ENTERPRISE_HOOKS = {
  linux: '/etc/cursor/hooks.json',
  darwin: '/Library/Application Support/Cursor/hooks.json',
  win32: 'C:\\ProgramData\\Cursor\\hooks.json',
} as const;
