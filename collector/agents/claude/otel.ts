// Claude Code's OpenTelemetry names (docs/metrics.md §11 lists them with the fact each feeds): data only,
// which the server's receiver and the collector's both read (common/otel/agents.ts), so it imports only common/.
import type { OtelAgent } from '../../../common/otel/agents.ts';
import { REPEATS_HOOK } from '../../../common/otel/reasons.ts';

export default {
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
} satisfies OtelAgent;
