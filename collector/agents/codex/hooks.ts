// Codex CLI's hooks (developers.openai.com/codex/hooks; openai/codex codex-rs/config/src/hook_config.rs):
// the installer writes $CODEX_HOME/hooks.json (hooks under the `hooks` key, Codex's HooksFile); Codex also
// runs `[hooks]` in config.toml, which we read but never rewrite (a TOML rewrite would not keep the user's
// file), and a trusted project's .codex/hooks.json and .codex/config.toml. Its managed hooks are `[hooks]` in
// requirements.toml, not a JSON file. Timeouts in seconds; async hooks supported.

import { join } from 'node:path';
import type { AgentHooks } from '../../install/locations.ts';
import { noBlockers } from '../../install/locations.ts';
import { codexHome } from './paths.ts';
import { CODEX_TELEMETRY } from './telemetry.ts';
import { CODEX_TRUST_HINT, codexHookTrust } from './trust.ts';

export const CODEX_HOOKS: AgentHooks = {
  homeDir: '.codex',
  homeVariable: 'CODEX_HOME',
  binary: 'codex',
  // It has no Notification or PostToolUseFailure; a Codex that does not know an event ignores its key (the
  // hooks file is read without deny_unknown_fields), so newer events cost older versions nothing.
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PermissionRequest',
    'PostToolUse',
    'PreCompact',
    'PostCompact',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  supportsAsync: true,
  timeoutUnit: 'seconds',
  matcher: 'whole',
  settingsDir: (home, env) => codexHome(home, env),
  userSettings: (home) => ({ file: join(codexHome(home), 'hooks.json'), topLevel: false }),
  managed: {
    refused: 'Codex CLI keeps managed hooks in requirements.toml ([hooks] with managed_dir); agentmeter installs Codex hooks per user only',
  },
  hookFiles(home, cwd) {
    // A project's .codex/hooks.json runs only in a trusted project; it is listed like Claude Code's project
    // files are, since its hooks ran if the session saw them. Codex runs the hooks of hooks.json and of
    // config.toml's [hooks] tables alike, in each layer.
    const files = [
      { file: join(codexHome(home), 'hooks.json'), topLevel: false },
      { file: join(codexHome(home), 'config.toml'), topLevel: false, toml: true },
    ];
    if (cwd)
      files.push(
        { file: join(cwd, '.codex', 'hooks.json'), topLevel: false },
        { file: join(cwd, '.codex', 'config.toml'), topLevel: false, toml: true },
      );
    return files;
  },
  blockers: noBlockers,
  telemetryFile: CODEX_TELEMETRY,
  trustHint: CODEX_TRUST_HINT,
  trust: codexHookTrust,
};

export default CODEX_HOOKS;
