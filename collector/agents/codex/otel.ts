// Codex CLI's OpenTelemetry names (docs/metrics.md §11 lists them with the fact each feeds): data only,
// which the server's receiver and the collector's both read (common/otel/agents.ts), so it imports only common/.
import type { OtelAgent } from '../../../common/otel/agents.ts';
import { REPEATS_HOOK, TOKENS_FROM_FILES } from '../../../common/otel/reasons.ts';

export default {
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
} satisfies OtelAgent;
