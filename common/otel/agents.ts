// Each agent's OpenTelemetry names, as its own documentation and source give them (docs/metrics.md §11 lists
// them with the fact each feeds): how the receiver knows the agent of a signal, which signals carry edit
// decisions or token usage, and which it leaves on purpose (with the reason). Keyed by agent name, one entry
// an agent: an agent's entry can move into its own folder under collector/agents/ unchanged.
import type { Agent } from '../agents.ts';
import type { EditDecision } from '../wire.ts';

/** A signal that carries edit decisions: a counter (one data point = `value` decisions) or a log event (one). */
export interface DecisionSignal {
  kind: 'metric' | 'log';
  name: string;
  /** The attribute holding the decision, and what each of its values means (other values are not a decision). */
  decisionAttribute: string;
  decisions: Readonly<Record<string, EditDecision>>;
  /** The tool's name attribute(s), first present wins. */
  toolAttributes: readonly string[];
  /** Only these tools propose edits; absent: every tool the signal names does. */
  editTools?: readonly string[];
  languageAttribute?: string;
}

/**
 * A log event, or a span, that carries one model call's token usage. A span is matched by its
 * `gen_ai.operation.name` (or the first word of its name: "chat gpt-4.1"), so one agent span of a turn,
 * which sums its calls, is never read as one.
 */
export interface UsageSignal {
  kind: 'log' | 'span';
  name: string;
  model: string;
  /** The model's attribute when `model` is absent (the requested model, where the response's is missing). */
  fallbackModel?: string;
  /** The input count holds the cached part (OpenAI's and the GenAI conventions' reading): input = input − cache read. */
  inputIncludesCacheRead?: boolean;
  input: string;
  output: string;
  cacheRead?: string;
  cacheWrite?: string;
  thinking?: string;
  /** The call's id, so a repeated export is one call. */
  requestId: string;
}

export interface OtelAgent {
  /** The resource's `service.name` values the agent exports under. */
  serviceNames: readonly string[];
  /** The prefix of its signal names (an event named without it, `tool_decision`, is matched with it too). */
  prefix: string;
  /** The attributes naming the session, first present wins. */
  sessionAttributes: readonly string[];
  decisions: readonly DecisionSignal[];
  usage: readonly UsageSignal[];
  /** Signals known and not mapped, with why (they repeat a hook event or another mapped signal). */
  ignored: Readonly<Record<string, string>>;
}

const REPEATS_HOOK = 'repeats a hook event (the hook is the one count)';
const TOKENS_FROM_FILES = "the same tokens the agent's own files give (docs/metrics.md §1)";

export const OTEL_AGENTS: Partial<Record<Agent, OtelAgent>> = {
  claude: {
    serviceNames: ['claude-code'],
    prefix: 'claude_code.',
    sessionAttributes: ['session.id'],
    decisions: [
      {
        kind: 'metric',
        name: 'claude_code.code_edit_tool.decision',
        decisionAttribute: 'decision',
        decisions: { accept: 'accept', reject: 'reject' },
        // Older versions named the tool `tool`.
        toolAttributes: ['tool_name', 'tool'],
        languageAttribute: 'language',
      },
    ],
    usage: [
      {
        kind: 'log',
        name: 'claude_code.api_request',
        model: 'model',
        input: 'input_tokens',
        output: 'output_tokens',
        cacheRead: 'cache_read_tokens',
        cacheWrite: 'cache_creation_tokens',
        requestId: 'request_id',
      },
    ],
    ignored: {
      'claude_code.tool_decision': "the edit tools' decisions repeat claude_code.code_edit_tool.decision; other tools' are no edit",
      'claude_code.token.usage': 'the same tokens as the claude_code.api_request events, which name their call',
      'claude_code.cost.usage': 'agentmeter prices tokens itself (docs/metrics.md §8)',
      'claude_code.tool_result': REPEATS_HOOK,
      'claude_code.user_prompt': REPEATS_HOOK,
      'claude_code.session.count': REPEATS_HOOK,
      'claude_code.commit.count': REPEATS_HOOK,
      'claude_code.pull_request.count': REPEATS_HOOK,
      'claude_code.lines_of_code.count': 'the edit lines come from the hook (docs/metrics.md §5)',
    },
  },
  codex: {
    serviceNames: ['codex_cli_rs', 'codex-cli', 'codex_exec', 'codex'],
    prefix: 'codex.',
    sessionAttributes: ['conversation.id', 'session.id', 'thread.id'],
    decisions: [
      {
        kind: 'log',
        name: 'codex.tool_decision',
        decisionAttribute: 'decision',
        decisions: { approved: 'accept', approved_for_session: 'accept', denied: 'reject', abort: 'reject' },
        toolAttributes: ['tool_name'],
        editTools: ['apply_patch'],
      },
    ],
    usage: [],
    ignored: {
      'codex.sse_event': TOKENS_FROM_FILES,
      'codex.api_request': TOKENS_FROM_FILES,
      'codex.tool_result': REPEATS_HOOK,
      'codex.user_prompt': REPEATS_HOOK,
      'codex.conversation_starts': REPEATS_HOOK,
    },
  },
  gemini: {
    serviceNames: ['gemini-cli'],
    prefix: 'gemini_cli.',
    sessionAttributes: ['session.id'],
    decisions: [
      {
        kind: 'log',
        name: 'gemini_cli.tool_call',
        decisionAttribute: 'decision',
        // `modify`: the person changed the proposed edit in an editor and applied it; `auto_accept`: approved by
        // an "always allow" answer or mode, as Claude Code counts a config-approved edit as accepted.
        decisions: { accept: 'accept', auto_accept: 'accept', modify: 'accept', reject: 'reject' },
        toolAttributes: ['function_name'],
        editTools: ['replace', 'write_file', 'edit'],
      },
    ],
    usage: [],
    ignored: {
      'gemini_cli.tool.call.count': 'the same decisions as the gemini_cli.tool_call events',
      'gemini_cli.api_response': TOKENS_FROM_FILES,
      'gemini_cli.token.usage': TOKENS_FROM_FILES,
      'gemini_cli.user_prompt': REPEATS_HOOK,
    },
  },
  copilot: {
    // Copilot CLI (and the Copilot app) export as github-copilot, VS Code's Copilot agent as copilot-chat
    // (microsoft/vscode-copilot-chat docs/monitoring/agent_monitoring.md; captures of Copilot CLI 1.0.40–1.0.84).
    serviceNames: ['github-copilot', 'copilot-chat'],
    prefix: 'copilot_chat.',
    sessionAttributes: ['gen_ai.conversation.id', 'session.id'],
    decisions: [
      {
        kind: 'log',
        name: 'copilot_chat.edit.feedback',
        decisionAttribute: 'outcome',
        decisions: { accepted: 'accept', rejected: 'reject' },
        toolAttributes: [],
        languageAttribute: 'language_id',
      },
      {
        kind: 'log',
        name: 'copilot_chat.inline.done',
        decisionAttribute: 'accepted',
        decisions: { true: 'accept', false: 'reject' },
        toolAttributes: [],
        languageAttribute: 'language_id',
      },
    ],
    usage: [
      // VS Code: one event per model call, named by the response's id.
      {
        kind: 'log',
        name: 'gen_ai.client.inference.operation.details',
        model: 'gen_ai.response.model',
        fallbackModel: 'gen_ai.request.model',
        input: 'gen_ai.usage.input_tokens',
        output: 'gen_ai.usage.output_tokens',
        cacheRead: 'gen_ai.usage.cache_read.input_tokens',
        cacheWrite: 'gen_ai.usage.cache_creation.input_tokens',
        thinking: 'gen_ai.usage.reasoning.output_tokens',
        inputIncludesCacheRead: true,
        requestId: 'gen_ai.response.id',
      },
      // Copilot CLI: its tokens are on the chat span of each call (VS Code emits the span too, with the same
      // response id: the call is one record, whichever arrives).
      {
        kind: 'span',
        name: 'chat',
        model: 'gen_ai.response.model',
        fallbackModel: 'gen_ai.request.model',
        input: 'gen_ai.usage.input_tokens',
        output: 'gen_ai.usage.output_tokens',
        cacheRead: 'gen_ai.usage.cache_read.input_tokens',
        cacheWrite: 'gen_ai.usage.cache_creation.input_tokens',
        thinking: 'gen_ai.usage.reasoning.output_tokens',
        inputIncludesCacheRead: true,
        requestId: 'gen_ai.response.id',
      },
    ],
    ignored: {
      'copilot_chat.edit.hunk.action': 'the same decisions as copilot_chat.edit.feedback, hunk by hunk',
      'copilot_chat.edit.acceptance.count': 'the same decisions as the copilot_chat.edit.feedback and inline.done events',
      'copilot_chat.agent.turn': 'the sum of the turn’s model calls, each counted by its own event',
      'copilot_chat.tool.call': REPEATS_HOOK,
      'copilot_chat.tool.call.count': REPEATS_HOOK,
      'copilot_chat.session.start': REPEATS_HOOK,
      'copilot_chat.session.count': REPEATS_HOOK,
    },
  },
  qwen: {
    serviceNames: ['qwen-code'],
    prefix: 'qwen-code.',
    sessionAttributes: ['session.id'],
    decisions: [
      {
        kind: 'log',
        name: 'qwen-code.tool_call',
        decisionAttribute: 'decision',
        decisions: { accept: 'accept', auto_accept: 'accept', modify: 'accept', reject: 'reject' },
        toolAttributes: ['function_name'],
        editTools: ['edit', 'write_file', 'replace'],
      },
    ],
    usage: [],
    ignored: {
      'qwen-code.tool.call.count': 'the same decisions as the qwen-code.tool_call events',
      'qwen-code.api_response': TOKENS_FROM_FILES,
      'qwen-code.token.usage': TOKENS_FROM_FILES,
      'qwen-code.user_prompt': REPEATS_HOOK,
    },
  },
};

/** Pure: the agent a resource and signal name belong to: by `service.name`, else by the name's prefix. */
export function otelAgentOf(serviceName: unknown, signalName: string): Agent | undefined {
  const entries = Object.entries(OTEL_AGENTS) as [Agent, OtelAgent][];
  if (typeof serviceName === 'string') for (const [agent, m] of entries) if (m.serviceNames.includes(serviceName)) return agent;
  for (const [agent, m] of entries) if (signalName.startsWith(m.prefix)) return agent;
  return undefined;
}

/** Pure: whether an event name (full, or as some agents set `event.name`, without the prefix) is `full`. */
export const sameSignal = (name: string, full: string, prefix: string) => name === full || `${prefix}${name}` === full;
