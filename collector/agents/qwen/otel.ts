// Qwen Code's OpenTelemetry names (docs/metrics.md §11 lists them with the fact each feeds): data only,
// which the server's receiver and the collector's both read (common/otel/agents.ts), so it imports only common/.
import type { OtelAgent } from '../../../common/otel/agents.ts';
import { REPEATS_HOOK, TOKENS_FROM_FILES } from '../../../common/otel/reasons.ts';

export default {
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
} satisfies OtelAgent;
