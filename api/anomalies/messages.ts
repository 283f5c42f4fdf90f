// Pure: what an anomaly alert says in Slack (the webhook's body is the event itself).
import type { AnomalyEvent } from './schema.ts';

export const usdText = (x: number) => `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** A Slack incoming-webhook body: one line of text (the notification) and the same as a section block. */
export function anomalySlack(e: AnomalyEvent): { text: string; blocks: unknown[] } {
  const who = e.scope === 'user' ? e.email! : `team ${e.team}`;
  const text =
    `agentmeter: ${who} spent ${usdText(e.cost_usd)} on ${e.day} (UTC), above ${e.multiple}× ${e.scope === 'user' ? 'their' : 'its'} ` +
    `median day of ${usdText(e.median_usd)} (${e.days_with_usage} days with usage in the 28 before) and the ${usdText(e.floor_usd)} floor.`;
  return {
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:rotating_light: ${text.replace('agentmeter: ', '*Cost anomaly:* ')}` } }],
  };
}
