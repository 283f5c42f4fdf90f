// Pure: which thresholds a usage has reached, and what an alert says to each kind of destination.
import { createHmac } from 'node:crypto';
import type { ThresholdEvent } from './schema.ts';

/**
 * The thresholds (percentages) that `usage` has reached out of `limit`: whole credits, or dollars compared
 * in hundredths of a cent (the 4 decimals the answers show).
 */
export function reachedThresholds(usage: number, limit: number, thresholds: readonly number[]): number[] {
  // usage / limit ≥ t / 100, in integers: no rounding decides whether 90% is reached.
  const u = Math.round(usage * 10_000);
  const l = Math.round(limit * 10_000);
  return thresholds.filter((t) => u * 100 >= t * l).sort((a, b) => a - b);
}

/** usage / limit × 100 to 2 decimals. */
export const percentage = (usage: number, limit: number) => Math.round((usage * 10_000) / limit) / 100;

/**
 * The signature of before timestamps, kept for one release in X-Agentmeter-Signature:
 * sha256=<hex HMAC-SHA256 of the raw body>. A receiver cannot tell a replay of it from a new alert.
 */
export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * The timestamped signature (X-Agentmeter-Signature-V1): t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">. The time is signed with the body, so a receiver refuses a replay by its age
 * (docs/budgets.md shows how, with 5 minutes).
 */
export const timestampedSignature = (secret: string, body: string, unixSeconds: number) =>
  `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`;

const whose = (e: ThresholdEvent) =>
  e.budget.scope === 'org' ? 'the organization' : e.budget.scope === 'team' ? `team ${e.budget.team}` : e.budget.email!;

/** A Slack incoming-webhook body. */
export function slackBody(e: ThresholdEvent): { text: string } {
  const n = (x: number) => x.toLocaleString('en-US');
  const usd = (x: number) => `$${x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const amounts = e.unit === 'usd' ? `${usd(e.usage)} of ${usd(e.limit)}` : `${n(e.usage)} of ${n(e.limit)} Standard Credits`;
  return { text: `agentmeter: ${whose(e)} reached ${e.threshold}% of its ${e.month} budget: ${amounts}.` };
}
