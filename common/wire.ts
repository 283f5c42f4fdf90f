// The wire format between collector and server: the minimal facts the metrics need (docs/metrics.md §1),
// never prompts, file contents, shell commands or tool output.
import { z } from 'zod';
import { AGENTS } from './agents.ts';
import { REPO_NAME_MAX, repoNameProblem } from './repo-id.ts';

/** Where the collector posts wire records (gzip NDJSON) and the server takes them. */
export const INGEST_PATH = '/api/v1/ingest/events';

/** `vscode` (our extension): an agent inside VS Code (its Copilot agent), docs/metrics.md §1. */
export const CLIENT_TYPES = ['terminal-ui', 'web', 'non-interactive-cli', 'vscode'] as const;
export const ClientType = z.enum(CLIENT_TYPES);
export type ClientType = z.infer<typeof ClientType>;

export const AUTONOMY_LEVELS = ['auto-high', 'auto-medium', 'auto-low', 'spec', 'manual'] as const;
export const AutonomyLevel = z.enum(AUTONOMY_LEVELS);
export type AutonomyLevel = z.infer<typeof AutonomyLevel>;

/** An agent of common/agents.ts, or `unknown` (a hook from an agent this collector does not know). */
export const AgentName = z.enum([...AGENTS, 'unknown']);
export type AgentName = z.infer<typeof AgentName>;

/**
 * Pure: whether a string is well-formed Unicode, i.e. holds no lone UTF-16 surrogate. JSON can spell one
 * (`"\udfff"`) and JSON.parse accepts it, but DuckDB's JSON reader refuses it, and not for one row: for
 * the whole file a batch is loaded from. (String.prototype.isWellFormed is ES2024; Node has it since 20.)
 */
export const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Every string on the wire: what zod accepts, the store accepts. A string with a lone surrogate is
 * rejected, not repaired: replacing the code unit with U+FFFD would make two different ids one (the
 * second then counted as a repeat and dropped without a word), and the collector ships derived fields
 * only, so such a string means a corrupt payload, which the collector quarantines with the reason.
 */
export const wireString = () =>
  z.string().refine(isWellFormed, { message: 'not well-formed Unicode (it holds a lone UTF-16 surrogate such as \\udfff)' });

const id = wireString().min(1).max(256);
/** Ids of the sessions API as the hook passes them on (it cuts values at any other character). */
export const API_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const shortText = wireString().max(512);
/**
 * Token counts of one model call (or one Droid reading's delta). The store's columns are BIGINT and so are
 * the daily sums over them: any safe integer fits a column, but 1,024 records near 2^53 overflow a day's
 * sum and the daily batch would fail for that day on every run. No call comes near ten billion tokens
 * (context windows hold one or two million), and at that bound a day's sum stays in range up to ~900
 * million records a user and model.
 */
export const MAX_TOKENS = 10_000_000_000;
const tokens = z.number().int().nonnegative().max(MAX_TOKENS);
/** Epoch milliseconds, bounded to years 2000..2100 so a corrupt clock is rejected rather than stored. */
const epochMs = z.number().int().min(946_684_800_000).max(4_102_444_800_000);

/**
 * Most records a collector ships in one request (collector/daemon.ts clamps --batch-size to it), and so
 * the most the server decodes from one (api/ingest/limits.ts).
 */
export const MAX_BATCH_RECORDS = 10_000;
/**
 * Most files one event names: a tool call touches one file, an apply_patch a few dozen at most. The
 * collector keeps the first ones (collector/events.ts); the server refuses a record with more, so a batch
 * of records each naming thousands of files cannot cost more than a batch of ordinary ones.
 */
export const MAX_FILES_PER_EVENT = 256;
/** Most configured hooks one event reports as run (the collector keeps the first ones). */
export const MAX_HOOK_RUNS = 200;

export const FileTouch = z.strictObject({
  /** Lower-case extension without the dot; '' when the file has none. */
  ext: wireString().max(64),
  /** The base name, only for extension-less files (Makefile, Dockerfile) so their language is known. */
  name: wireString().max(128).optional(),
  op: z.enum(['create', 'edit']),
});
export type FileTouch = z.infer<typeof FileTouch>;

/**
 * Lines one file-writing tool call added and removed in one file (docs/metrics.md §5 "Edits"): counts and the
 * file's extension (or name) for its language, never a path or a line.
 */
export const MAX_LINES = 100_000_000;
/** A repository's id as common/repo-id.ts makes it. */
export const REPO_ID = /^repo_[0-9a-f]{16}$/;
/**
 * A repository's name as common/repo-id.ts repoIdentity makes it: the remote's normalized host/path, or
 * local:<id> for a remote that is a local folder. Never a path of the developer's disk.
 */
const repoName = () =>
  wireString()
    .min(1)
    .max(REPO_NAME_MAX)
    .superRefine((name, ctx) => {
      const problem = repoNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
const lines = z.number().int().nonnegative().max(MAX_LINES);
export const EditLines = z
  .strictObject({
    ext: wireString().max(64),
    name: wireString().max(128).optional(),
    lines_added: lines,
    lines_deleted: lines,
    /** The file's repository as its landed commits name it (both or neither; none outside a work tree). */
    repo_id: z.string().regex(REPO_ID).optional(),
    repo: repoName().optional(),
  })
  .refine((e) => (e.repo_id === undefined) === (e.repo === undefined), { message: 'repo_id and repo come together', path: ['repo'] });
export type EditLines = z.infer<typeof EditLines>;

export const HookRun = z.strictObject({
  event: shortText,
  matcher: shortText,
  command: wireString().max(1024),
});
export type HookRun = z.infer<typeof HookRun>;

export const WireHookEvent = z.strictObject({
  kind: z.literal('event'),
  id,
  agent: AgentName,
  event: wireString().min(1).max(128),
  ts: epochMs,
  session_id: id,
  client: ClientType,
  autonomy: AutonomyLevel,
  /** Tool facts, on PreToolUse / PostToolUse / PostToolUseFailure. */
  tool_name: wireString().max(1024).optional(),
  tool_success: z.boolean().optional(),
  mcp_server: shortText.optional(),
  skill: shortText.optional(),
  is_shell: z.boolean().optional(),
  files: z.array(FileTouch).max(MAX_FILES_PER_EVENT).optional(),
  /** Lines the call added and removed, per file (successful file-writing calls). */
  edits: z.array(EditLines).max(MAX_FILES_PER_EVENT).optional(),
  git_commit: z.boolean().optional(),
  pr_created: z.boolean().optional(),
  /** UserPromptSubmit: the slash command name when the prompt is one; the prompt itself never ships. */
  slash_command: shortText.optional(),
  reason: shortText.optional(),
  agent_id: shortText.optional(),
  agent_type: shortText.optional(),
  truncated: z.boolean().optional(),
  hooks: z.array(HookRun).max(MAX_HOOK_RUNS).optional(),
  /**
   * The repository of the session's working directory (its normalized host/path and id, as edits and
   * landed commits name it; absent outside a git work tree or without an origin): spend by repository.
   */
  repo_id: z.string().regex(REPO_ID).optional(),
  repo: repoName().optional(),
  /** The API session and message this agent run serves (set by `agentmeter computer run`). */
  api_session_id: z.string().regex(API_ID).optional(),
  api_message_id: z.string().regex(API_ID).optional(),
});
export type WireHookEvent = z.infer<typeof WireHookEvent>;

/** Fields every transcript-derived record has. Its id is stable: re-reading the same transcript line or
 * settings reading yields the same id. */
const transcriptRecord = { id, agent: AgentName, session_id: id, ts: epochMs };

export const WireUsage = z.strictObject({
  kind: z.literal('usage'),
  ...transcriptRecord,
  model: wireString().min(1).max(256),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_write_tokens: tokens,
  /** The part of cache_write_tokens written for one hour, where the agent reports it (priced apart, §8). */
  cache_write_1h_tokens: tokens.optional(),
  thinking_tokens: tokens,
  /** The usage included reasoning (a thinking block or thinking tokens). */
  thinking: z.boolean(),
  /**
   * Where the counts came from: the agent's own files (absent) or its OpenTelemetry export, which the
   * daily batch counts only for a session with no usage from files (docs/metrics.md §11, one fact, one count).
   */
  source: z.literal('otel').optional(),
});
export type WireUsage = z.infer<typeof WireUsage>;

/** One per distinct assistant message id in a session. */
export const WireMessage = z.strictObject({
  kind: z.literal('message'),
  ...transcriptRecord,
  model: wireString().max(256).optional(),
});
export type WireMessage = z.infer<typeof WireMessage>;

/** A git object id: SHA-1 (40 hex digits) or SHA-256 (64). */
export const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A commit that landed on a watched repository's default branch (docs/metrics.md §5 "Landed"): ids, the
 * committer time, the author's address, line counts, and its agent lines by agent and model, and by
 * agent session. Never a line, a path, a commit message or a branch name. The server takes it only from a
 * key of the user who owns `author` (their e-mail or an alias). `id` is `<repo_id>:<commit>`.
 */
/** Most sessions one commit record splits its agent lines by (past it the collector merges the smallest under ''). */
export const MAX_COMMIT_SESSIONS = 200;
/** Most parents one commit record names (an octopus merge past it keeps its first ones). */
export const MAX_COMMIT_PARENTS = 16;

export const WireLandedCommit = z
  .strictObject({
    kind: z.literal('commit'),
    id: wireString().min(1).max(256),
    repo_id: z.string().regex(REPO_ID),
    /** The remote's normalized host/path (no credentials, no scheme, lower case), or local:<id>. */
    repo: repoName(),
    commit: z.string().regex(COMMIT_ID),
    /** Committer time. */
    ts: epochMs,
    /** The commit's author address, lower case. */
    author: wireString()
      .min(3)
      .max(320)
      .regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'),
    lines_added: lines,
    lines_deleted: lines,
    agent_lines: lines,
    by_agent: z.array(z.strictObject({ agent: AgentName, model: wireString().min(1).max(256), lines: lines.min(1) })).max(100),
    /** Its parents, first parent first: how a pull request's commits are found (docs/metrics.md §10). */
    parents: z.array(z.string().regex(COMMIT_ID)).max(MAX_COMMIT_PARENTS).optional(),
    /** The same agent lines by the agent session that wrote them ('' for lines the ledger kept without one). */
    by_session: z
      .array(z.strictObject({ agent: AgentName, session_id: wireString().max(256), lines: lines.min(1) }))
      .max(MAX_COMMIT_SESSIONS)
      .optional(),
  })
  .refine((c) => c.id === `${c.repo_id}:${c.commit}`, { message: 'id must be <repo_id>:<commit>', path: ['id'] })
  .refine((c) => c.agent_lines === c.by_agent.reduce((n, a) => n + a.lines, 0), {
    message: 'agent_lines must be the sum of by_agent lines',
    path: ['agent_lines'],
  })
  .refine((c) => c.agent_lines <= c.lines_added, { message: 'agent_lines cannot exceed lines_added', path: ['agent_lines'] })
  .refine((c) => c.by_session === undefined || c.agent_lines === c.by_session.reduce((n, s) => n + s.lines, 0), {
    message: 'agent_lines must be the sum of by_session lines',
    path: ['by_session'],
  });
export type WireLandedCommit = z.infer<typeof WireLandedCommit>;

/** How a person answered an agent's proposed edit (docs/metrics.md §11). */
export const EDIT_DECISIONS = ['accept', 'reject'] as const;
export const EditDecision = z.enum(EDIT_DECISIONS);
export type EditDecision = z.infer<typeof EditDecision>;
/** Most decisions one record counts (a metric data point of one export interval). */
export const MAX_DECISIONS = 1_000_000;

/**
 * Edit decisions the agent reported through OpenTelemetry (docs/metrics.md §11): how many proposed edits of
 * one tool (and language, where the agent says it) the person accepted or rejected. Counts and names only:
 * never the edit, a path or a prompt. `id` is the collector's (machine, spool file, position), so a
 * delivery repeated after a lost acknowledgement counts once.
 */
export const WireEditDecision = z.strictObject({
  kind: z.literal('decision'),
  ...transcriptRecord,
  decision: EditDecision,
  count: z.number().int().min(1).max(MAX_DECISIONS),
  tool_name: wireString().min(1).max(256).optional(),
  language: wireString().min(1).max(128).optional(),
});
export type WireEditDecision = z.infer<typeof WireEditDecision>;

export const WireRecord = z.discriminatedUnion('kind', [WireHookEvent, WireUsage, WireMessage, WireLandedCommit, WireEditDecision]);
export type WireRecord = z.infer<typeof WireRecord>;

export const IngestResponse = z.strictObject({
  received: z.number().int(),
  stored: z.number().int(),
  duplicates: z.number().int(),
  rejected: z.array(z.strictObject({ index: z.number().int(), id: z.string().optional(), reason: z.string() })),
});
export type IngestResponse = z.infer<typeof IngestResponse>;

/** Turns a zod error into one readable line: "field.path: message; …". */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
