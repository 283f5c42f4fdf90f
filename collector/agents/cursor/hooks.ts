// Cursor's hooks (cursor.com/docs/hooks): ~/.cursor/hooks.json, `{"version": 1, "hooks": {<event>: [entry]}}`
// with one handler per entry (format.ts), a project's .cursor/hooks.json, and the enterprise file
// (paths.ts). Timeouts in seconds; no async hooks: Cursor waits for each and reads its stdout as JSON.
//
// Which events: those that observe, never those that decide. Cursor's permission events (preToolUse,
// beforeShellExecution, beforeMCPExecution, beforeReadFile, subagentStart) take the hook's answer as a
// decision: an empty or unparsable answer is a failure that cursor-agent and newer builds treat as a
// denial, and `{"permission": "allow"}` would approve what the person's own settings would have asked about.
// agentmeter needs neither: every call is seen after it ran (postToolUse, postToolUseFailure, afterFileEdit).
// afterShellExecution and afterMCPExecution repeat postToolUse's Shell and MCP calls, afterAgentResponse and
// afterAgentThought carry text only, the Tab hooks are inline completions (not the agent), workspaceOpen
// belongs to no session: none is registered.
//
// The answer: Cursor parses every command hook's stdout as JSON. The hook script stays the bare writer and
// prints nothing; the installed command prints, after it, the answer that changes nothing: `{}` ("no
// fields": no follow-up message, no context, no output replaced), and `{"continue": true}` on
// beforeSubmitPrompt, whose one field decides whether the prompt is sent. Over a credit limit the hook exits
// 2 there and the command prints nothing: Cursor blocks the prompt (exit code 2 is its "deny").
import { type AgentHooks, noBlockers } from '../../install/locations.ts';
import { CURSOR_HOOKS_FORMAT } from './format.ts';
import { CURSOR_ENTERPRISE_HOOKS, cursorDir, cursorHooksFile, cursorProjectHooksFile } from './paths.ts';

/** The prompt event: the one whose answer decides (the prompt is sent or not). */
export const CURSOR_PROMPT_EVENT = 'beforeSubmitPrompt';

/** Pure: the answer Cursor reads from our hook's stdout for an event: one that lets everything through unchanged. */
export const cursorReply = (event: string): string => (event === CURSOR_PROMPT_EVENT ? '{"continue":true}' : '{}');

export const CURSOR_HOOKS: AgentHooks = {
  homeDir: '.cursor',
  binary: 'cursor-agent',
  events: [
    'sessionStart',
    'beforeSubmitPrompt',
    'postToolUse',
    'postToolUseFailure',
    'afterFileEdit',
    'subagentStop',
    'preCompact',
    'stop',
    'sessionEnd',
  ],
  supportsAsync: false,
  timeoutUnit: 'seconds',
  matcher: 'whole',
  settingsDir: (home) => cursorDir(home),
  userSettings: (home) => ({ file: cursorHooksFile(home), topLevel: false }),
  managed: CURSOR_ENTERPRISE_HOOKS,
  hookFiles(home, cwd) {
    const files = [{ file: cursorHooksFile(home), topLevel: false }];
    if (cwd) files.push({ file: cursorProjectHooksFile(cwd), topLevel: false });
    return files;
  },
  blockers: noBlockers,
  format: CURSOR_HOOKS_FORMAT,
  promptEvent: CURSOR_PROMPT_EVENT,
  reply: cursorReply,
};
