// Pure: the OTLP receiver's line in `agentmeter collect status`.
import type { ReceiverStatus } from './status.ts';

export function describeReceiver(status: ReceiverStatus | undefined): string {
  if (!status) return 'otlp receiver: not started';
  const top = status.unmappedNames.map(([name, n]) => `${name} ×${n}`).join(', ');
  return [
    `otlp receiver: ${status.listen} since ${new Date(status.startedAt).toISOString()}; ${status.requests} requests, ${status.refused} refused`,
    `otlp facts spooled: ${status.facts}; refused: ${status.rejected} (quarantined, one entry per request); signals left on purpose: ${status.ignored}; unmapped and dropped: ${status.unmapped}${top ? ` (${top})` : ''}`,
  ].join('\n');
}
