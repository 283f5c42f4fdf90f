// OTLP/JSON request bodies the tests send as an agent's exporter would.

/** A string attribute as OTLP/JSON writes it. */
const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

/**
 * Claude Code's `claude_code.code_edit_tool.decision` counter with one data point of `count` accepted Edit
 * decisions, as an ExportMetricsServiceRequest. Delta by default; `cumulative` gives the point a start time
 * and a session, as a cumulative exporter sends its running total.
 */
export function claudeAcceptedEdits(count: number, { cumulative = false, timeNanos = `${Date.now()}000000` } = {}) {
  const attributes = [attribute('decision', 'accept'), attribute('tool_name', 'Edit')];
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attribute('service.name', 'claude-code')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'claude_code.code_edit_tool.decision',
                sum: {
                  aggregationTemporality: cumulative ? 2 : 1,
                  ...(cumulative ? { isMonotonic: true } : {}),
                  dataPoints: [
                    {
                      asInt: String(count),
                      timeUnixNano: timeNanos,
                      attributes: cumulative
                        ? [attribute('session.id', 'sess-1'), ...attributes, attribute('source', 'user_temporary')]
                        : attributes,
                      ...(cumulative ? { startTimeUnixNano: '1794990000000000000' } : {}),
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}
