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

/**
 * What a matcher is tested against, by event (cursor.com/docs/hooks, "Matcher Configuration"): the tool
 * type on the tool events, fixed names on the prompt, stop and response events. The shell events match the
 * command and subagent events the subagent's type, neither of which reaches the collector (the command
 * never does): a hook with a matcher there is not counted as run. Events not listed run every hook.
 */
const MATCHED: Record<string, 'tool' | 'unknown' | string> = {
  preToolUse: 'tool',
  postToolUse: 'tool',
  postToolUseFailure: 'tool',
  beforeReadFile: 'tool',
  afterFileEdit: 'tool',
  beforeMCPExecution: 'tool',
  afterMCPExecution: 'tool',
  beforeShellExecution: 'unknown',
  afterShellExecution: 'unknown',
  subagentStart: 'unknown',
  subagentStop: 'unknown',
  beforeSubmitPrompt: 'UserPromptSubmit',
  stop: 'Stop',
  afterAgentResponse: 'AgentResponse',
  afterAgentThought: 'AgentThought',
};

/** Pure: whether a hook with this matcher ran for the event; a matcher is a pattern found in what it tests. */
export function cursorMatches(event: string, matcher: string, toolName: string | undefined): boolean {
  const m = matcher.trim();
  if (m === '' || m === '*' || !Object.hasOwn(MATCHED, event)) return true;
  const against = MATCHED[event] === 'tool' ? toolName : MATCHED[event] === 'unknown' ? undefined : MATCHED[event];
  if (against === undefined) return false;
  try {
    return new RegExp(m).test(against);
  } catch {
    return m === against;
  }
}

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
  matcher: 'anywhere',
  matches: cursorMatches,
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

export default CURSOR_HOOKS;
