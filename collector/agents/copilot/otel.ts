// GitHub Copilot's OpenTelemetry names (docs/metrics.md §11 lists them with the fact each feeds): data only,
// which the server's receiver and the collector's both read (common/otel/agents.ts), so it imports only common/.
import type { OtelAgent } from '../../../common/otel/agents.ts';
import { REPEATS_HOOK } from '../../../common/otel/reasons.ts';

/** A model call's attributes, by the GenAI semantic conventions: the same on VS Code's event and the CLI's span. */
const GEN_AI_CALL = {
  model: 'gen_ai.response.model',
  fallbackModel: 'gen_ai.request.model',
  input: 'gen_ai.usage.input_tokens',
  output: 'gen_ai.usage.output_tokens',
  cacheRead: 'gen_ai.usage.cache_read.input_tokens',
  cacheWrite: 'gen_ai.usage.cache_creation.input_tokens',
  thinking: 'gen_ai.usage.reasoning.output_tokens',
  inputIncludesCacheRead: true,
  requestId: 'gen_ai.response.id',
} as const;

export default {
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
      ...GEN_AI_CALL,
    },
    // Copilot CLI: its tokens are on the chat span of each call (VS Code emits the span too, with the same
    // response id: the call is one record, whichever arrives).
    {
      kind: 'span',
      name: 'chat',
      ...GEN_AI_CALL,
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
} satisfies OtelAgent;
