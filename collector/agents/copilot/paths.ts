// Where GitHub Copilot keeps its files (github/docs content/copilot/reference/copilot-cli-reference/
// cli-config-dir-reference.md; hooks-reference.md): the CLI's configuration folder is ~/.copilot, or
// $COPILOT_HOME; user hook files are its hooks/*.json; an administrator's policy hook files are
// /etc/github-copilot/policy.d/*.json, root-owned and not group- or world-writable; a repository's are
// .github/hooks/*.json. Copilot keeps no token usage on the machine: tokens come from its OpenTelemetry.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function copilotHome(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const own = env['COPILOT_HOME'];
  return own?.startsWith('/') ? own : join(home, '.copilot');
}

/** The hook file the installer writes: our own file among the user's, so none of theirs is ever edited. */
export const COPILOT_HOOK_FILE = 'agentmeter.json';
export const COPILOT_POLICY_DIR = '/etc/github-copilot/policy.d';

/** VS Code's Copilot Chat extension is installed (~/.vscode/extensions/github.copilot-chat-<version>). */
export function vscodeCopilotInstalled(home: string): boolean {
  try {
    return readdirSync(join(home, '.vscode', 'extensions')).some((name) => name.startsWith('github.copilot-chat-'));
  } catch {
    return false;
  }
}

/** The `*.json` files of a hooks folder, sorted (Copilot loads every one); none when it is absent. */
export function jsonFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}
