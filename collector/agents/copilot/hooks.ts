// GitHub Copilot CLI's hooks (github/docs content/copilot/reference/hooks-reference.md): files of
// `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "…", "timeoutSec": 30}]}}` loaded, all
// of them, from the policy folder (/etc/github-copilot/policy.d, which the user cannot turn off), the
// repository's .github/hooks, and the user's ~/.copilot/hooks (or $COPILOT_HOME/hooks). The installer writes
// its own file, agentmeter.json, beside the user's (theirs are never edited). Each entry is the command itself,
// with no matcher groups; timeouts in seconds; no async hooks (a failing or slow hook never blocks Copilot).
//
// The events are registered by their PascalCase names, the "VS Code compatible" form: Copilot then sends
// Claude Code's field names (hook_event_name, session_id, tool_name, tool_input, tool_result), so each
// payload names its event; the camelCase form (sessionStart, preToolUse…) does not always (events.ts reads both).
// VS Code's Copilot agent also loads ~/.copilot/hooks, and reads the same names.
import { join } from 'node:path';
import { type AgentHooks, noBlockers } from '../../install/locations.ts';
import { flatHooksFormat } from './format.ts';
import { COPILOT_HOOK_FILE, COPILOT_POLICY_DIR, copilotHome, jsonFilesIn, vscodeCopilotInstalled } from './paths.ts';
import { COPILOT_OTEL_HINT, COPILOT_TELEMETRY } from './telemetry.ts';

/** Copilot CLI's flat entries: the command under `bash`, the timeout under `timeoutSec`, format version 1. */
export const COPILOT_HOOKS_FORMAT = flatHooksFormat({ command: 'bash', timeout: 'timeoutSec', version: 1 });

export const COPILOT_HOOKS: AgentHooks = {
  homeDir: '.copilot',
  homeVariable: 'COPILOT_HOME',
  binary: 'copilot',
  // Left out: Notification (fire-and-forget status, nothing we count) and PermissionRequest (a prompt the
  // person answers: its answer is not in the payload).
  events: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  supportsAsync: false,
  timeoutUnit: 'seconds',
  matcher: 'whole',
  format: COPILOT_HOOKS_FORMAT,
  // VS Code's Copilot agent runs ~/.copilot/hooks too, where the CLI may never have been started.
  usedHere: (home) => vscodeCopilotInstalled(home),
  settingsDir: (home, env) => copilotHome(home, env),
  userSettings: (home) => ({ file: join(copilotHome(home), 'hooks', COPILOT_HOOK_FILE), topLevel: false, format: COPILOT_HOOKS_FORMAT }),
  managed: {
    linux: join(COPILOT_POLICY_DIR, COPILOT_HOOK_FILE),
    darwin: join(COPILOT_POLICY_DIR, COPILOT_HOOK_FILE),
    // Copilot documents its policy folder for Unix only; the hook is a POSIX shell script anyway.
    win32: join(COPILOT_POLICY_DIR, COPILOT_HOOK_FILE),
  },
  hookFiles(home, cwd) {
    // Every file of each folder Copilot loads, and where the installer puts ours (user, or a project's with
    // --settings) whether or not it is there yet.
    const user = join(copilotHome(home), 'hooks');
    const project = cwd ? [join(cwd, '.github', 'hooks')] : [];
    const files = new Set([join(user, COPILOT_HOOK_FILE), ...project.map((dir) => join(dir, COPILOT_HOOK_FILE))]);
    for (const dir of [user, ...project, COPILOT_POLICY_DIR]) for (const file of jsonFilesIn(dir)) files.add(file);
    return [...files].map((file) => ({ file, topLevel: false, format: COPILOT_HOOKS_FORMAT }));
  },
  blockers: noBlockers,
  trustHint: COPILOT_OTEL_HINT,
  telemetryFile: COPILOT_TELEMETRY,
};

export default COPILOT_HOOKS;
