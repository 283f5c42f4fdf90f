// One spool file → one wire event (common/wire.ts), or a quarantine reason. Only the facts the metrics
// need leave the machine: prompts, file contents, commands and tool output stay in the spool.

import { jsonReadProblem } from '../common/json-read-problem.ts';
import { drop, ok, quarantine, type StepResult } from '../common/result.ts';
import { parseEventTime } from '../common/time.ts';
import { API_ID, describeZodError, MAX_FILES_PER_EVENT, MAX_HOOK_RUNS, type WireHookEvent } from '../common/wire.ts';
import { HookPayload } from './agents/hook-payload.ts';
import { adapterFor } from './agents/index.ts';
import type { FileEdit } from './code/edit-lines.ts';
import type { EditRepos } from './code/edit-repo.ts';
import { callEdits } from './code/event-edits.ts';
import { clientType, runsGitCommit, runsPrCreate, slashCommand, toolSucceeded } from './derive.ts';
import { fileFacts } from './file-facts.ts';
import type { HookConfigCache } from './hooks-ran.ts';
import type { SpoolEntry } from './spool.ts';

const TOOL_CALL_EVENTS = new Set(['PostToolUse', 'PostToolUseFailure']);
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

/** What the usage readers need from an event, besides the wire record itself. */
export interface EventContext {
  sessionId: string;
  ts: number;
  transcriptPaths: string[];
  /** The session's working directory, when the payload says it (watched repositories, docs/metrics.md §5). */
  cwd?: string;
  /** What a successful file-writing call wrote, for the private ledger (never shipped). */
  edits?: FileEdit[];
  /** The model the event itself names, for an agent whose files on the machine give none (Cursor). */
  model?: string;
}

export interface DerivedEvent {
  record: WireHookEvent;
  context: EventContext;
}

const PR_TOOLS = new Set(['create_pull_request']);

export function toWireEvent(
  entry: SpoolEntry,
  machineId: string,
  hooks: HookConfigCache | undefined,
  editRepos?: EditRepos,
): StepResult<DerivedEvent> {
  const hookAdapter = adapterFor(entry.header['agent']);
  // Reasons name the problem, never the file's text (it could hold anything, a secret included).
  if (!hookAdapter) return quarantine('unknown agent in the spool header (agent=)');
  if (entry.body.length === 0) return quarantine('empty event: the hook received nothing on stdin');
  let json: unknown;
  /** Cut at the hook's cap: only the leading fields could be read. */
  let truncated = false;
  try {
    json = JSON.parse(entry.body.toString('utf8'));
  } catch (error) {
    if (entry.truncated) {
      // The file reached the hook's cap and its body is not JSON: it was cut there. (One that ended right
      // at the cap is whole, and parsed above.)
      json = salvageTruncated(entry.body);
      truncated = true;
      if (!json) return quarantine(`event larger than the hook's 1 MiB cap and its leading fields are unreadable`);
    } else {
      return quarantine(`event is ${jsonReadProblem(error)}`);
    }
  }
  // Another program that ran this agent's hook (VS Code's Copilot agent, Cursor) is not this agent: its
  // event is recorded as the agent the host names (VS Code's Copilot agent: copilot), or dropped with why,
  // counted by the collector; never counted as this agent's.
  const other = hookAdapter.otherHost(entry.header, json);
  const adapter = other?.agent ? adapterFor(other.agent) : hookAdapter;
  if (other && (!other.agent || !adapter)) return drop(other.reason);
  if (!adapter) return quarantine('unknown agent in the spool header (agent=)');
  // An agent with its own payload dialect (Copilot's camelCase, Cursor's) gives the hook payload's field names.
  const raw = json;
  if (adapter.normalize) json = adapter.normalize(json);
  const parsed = HookPayload.safeParse(json);
  if (!parsed.success) return quarantine(`event does not look like a hook payload: ${describeZodError(parsed.error)}`);
  const p = parsed.data;

  const override = entry.header['time'];
  const ts = override ? parseEventTime(override) : Math.trunc(entry.mtimeMs);
  if (ts === null) return quarantine('unusable event time in the spool header (time=, from AGENTMETER_EVENT_TIME)');

  // The pipeline counts by Claude Code's event names; the hooks-ran lookup needs the agent's own.
  const agentEvent = p.hook_event_name;
  const event = adapter.canonicalEvent(agentEvent, p);
  const tools = adapter.tools;
  // An event the payload itself names (its session, event, time, tool call) has that id, so the same event
  // spooled by two hook files (VS Code runs ~/.claude/settings.json's hooks and ~/.copilot/hooks') is one.
  const key = adapter.eventKey?.(raw);
  const record: WireHookEvent = {
    kind: 'event',
    id: key ? `${machineId}.${adapter.name}.${key}` : `${machineId}.${entry.name}`,
    agent: adapter.name,
    event,
    ts,
    session_id: p.session_id,
    client: clientType(entry.header['client'] || adapter.client?.(raw), adapter.headless(entry.header, p)),
    autonomy: adapter.autonomy(p.permission_mode, entry.header),
  };
  if (truncated) record.truncated = true;

  let toolName: string | undefined;
  let fileEdits: FileEdit[] | undefined;
  if (TOOL_EVENTS.has(event)) {
    // A non-string tool name is a parsing artifact; it still ships ('' → "unknown" in the pipeline).
    toolName = typeof p.tool_name === 'string' ? p.tool_name.trim() : '';
    record.tool_name = toolName.slice(0, 1024);
    const mcp = tools.mcp(toolName, p);
    if (mcp) record.mcp_server = mcp.server.slice(0, 512);
    if (tools.isShell(toolName)) record.is_shell = true;
    if (TOOL_CALL_EVENTS.has(event)) {
      // A truncated event lost its tool_response: a PostToolUse is taken as the success it reports.
      const success = truncated ? event === 'PostToolUse' : toolSucceeded(event, p.tool_response);
      record.tool_success = success;
      const skill = tools.skill(toolName, p.tool_input);
      if (skill) record.skill = skill.slice(0, 512);
      if (success) {
        // One reading of the call gives the files it created or edited and the lines of each.
        const writes = tools.writes(toolName, p.tool_input, p.tool_response);
        const files = writes.map((w) => fileFacts(w.edit.path, w.op));
        if (files.length) record.files = files.slice(0, MAX_FILES_PER_EVENT);
        if (!truncated) {
          const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : undefined;
          const edits = callEdits(
            writes.map((w) => w.edit),
            editRepos,
            cwd,
          );
          if (edits.wire.length) record.edits = edits.wire.slice(0, MAX_FILES_PER_EVENT);
          if (edits.files.length) fileEdits = edits.files;
        }
        const command = tools.shellCommand(toolName, p.tool_input);
        if (command !== undefined) {
          if (runsGitCommit(command)) record.git_commit = true;
          if (runsPrCreate(command)) record.pr_created = true;
        }
        if (mcp && PR_TOOLS.has(mcp.tool)) record.pr_created = true;
      }
    }
  }
  if (event === 'UserPromptSubmit') {
    // Qwen Code hands the model the expanded prompt and keeps what the person typed in submitted_prompt.
    const typed = (p as Record<string, unknown>)['submitted_prompt'];
    const name = slashCommand(typeof typed === 'string' ? typed : p.prompt);
    if (name) record.slash_command = name.slice(0, 512);
  }
  if (p.reason !== undefined) record.reason = p.reason.slice(0, 512);
  if (p.agent_id !== undefined) record.agent_id = p.agent_id.slice(0, 512);
  if (p.agent_type !== undefined) record.agent_type = p.agent_type.slice(0, 512);
  // The session's repository (docs/metrics.md §8 "spend by repository"): its working directory's, named
  // as edits and landed commits name theirs (the same resolver, cached per folder).
  if (editRepos && typeof p.cwd === 'string' && p.cwd.startsWith('/')) {
    const where = editRepos.repoOf(p.cwd);
    if (where) {
      record.repo = where.repo;
      record.repo_id = where.repoId;
    }
  }
  const apiSession = entry.header['session'];
  const apiMessage = entry.header['message'];
  if (apiSession && API_ID.test(apiSession)) record.api_session_id = apiSession;
  if (apiMessage && API_ID.test(apiMessage)) record.api_message_id = apiMessage;
  if (hooks) {
    // PermissionRequest (Codex, Claude Code) names a tool too: its hooks' matchers filter on it.
    const matchedTool = toolName ?? (typeof p.tool_name === 'string' ? p.tool_name.trim() : undefined);
    const ran = hooks.ran(adapter.name, p.cwd, agentEvent, matchedTool);
    if (ran.length) record.hooks = ran.slice(0, MAX_HOOK_RUNS);
  }

  const transcriptPaths = [p.transcript_path, p.agent_transcript_path].filter((x): x is string => typeof x === 'string' && x !== '');
  const context: EventContext = { sessionId: p.session_id, ts, transcriptPaths };
  if (typeof p.cwd === 'string' && p.cwd !== '') context.cwd = p.cwd;
  if (fileEdits) context.edits = fileEdits;
  const model = adapter.eventModel?.(p);
  if (model) context.model = model.slice(0, 256);
  return ok({ record, context });
}

const SALVAGED_FIELDS = ['hook_event_name', 'session_id', 'tool_name', 'permission_mode', 'transcript_path', 'cwd'] as const;

/**
 * A body cut at the hook's cap is not JSON, but the agents write the small top-level fields before the
 * large tool input and response: recover those so the event still counts (marked truncated).
 */
export function salvageTruncated(body: Buffer): Record<string, string> | undefined {
  const text = body.subarray(0, 64 * 1024).toString('utf8');
  const out: Record<string, string> = {};
  for (const field of SALVAGED_FIELDS) {
    const match = new RegExp(`"${field}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(text);
    if (!match) continue;
    try {
      out[field] = JSON.parse(match[1]!) as string;
    } catch {
      // Not a complete JSON string: leave the field out.
    }
  }
  return out['hook_event_name'] && out['session_id'] ? out : undefined;
}
