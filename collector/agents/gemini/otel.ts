// Gemini CLI's OpenTelemetry names (docs/metrics.md §11 lists them with the fact each feeds): data only,
// which the server's receiver and the collector's both read (common/otel/agents.ts), so it imports only common/.
import type { OtelAgent } from '../../../common/otel/agents.ts';
import { REPEATS_HOOK, TOKENS_FROM_FILES } from '../../../common/otel/reasons.ts';

export default {
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
} satisfies OtelAgent;
