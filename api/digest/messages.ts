// Pure: the weekly digest as a Slack message (text for the notification, blocks for the reading).
import { usdText } from '../anomalies/messages.ts';
import type { DigestFigures } from './schema.ts';

const pct = (share: number) => `${(share * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;
const change = (d: DigestFigures) =>
  d.change_pct === null
    ? `${d.change_usd >= 0 ? '+' : '−'}${usdText(Math.abs(d.change_usd))} (nothing the week before)`
    : `${d.change_usd >= 0 ? '+' : '−'}${usdText(Math.abs(d.change_usd))} (${d.change_pct >= 0 ? '+' : ''}${d.change_pct}%) vs the week before`;
const list = (rows: { name: string; cost_usd: number }[]) =>
  rows.length ? rows.map((r, i) => `${i + 1}. ${r.name}: ${usdText(r.cost_usd)}`).join('\n') : 'none';
const unitAmount = (unit: 'usd' | 'credits', n: number) => (unit === 'usd' ? usdText(n) : `${n.toLocaleString('en-US')} Standard Credits`);

/** The models whose usage the week's dollars leave out (no price, docs/metrics.md §8): never a silent $0. */
const unpriced = (d: DigestFigures) => (d.unpriced_models?.length ? ` (without ${d.unpriced_models.join(', ')}: no price)` : '');

/** One line: what the digest says first. */
export const digestHeadline = (d: DigestFigures) =>
  `agentmeter weekly digest, ${d.week.from} to ${d.week.to} (UTC): ${usdText(d.cost_usd)}${unpriced(d)}, ${change(d)}.`;

/** The digest's sections as plain text, in the order Slack shows them (also the dashboard's preview). */
export function digestSections(d: DigestFigures): { title: string; text: string }[] {
  return [
    { title: 'Top teams', text: list(d.top_teams.map((t) => ({ name: t.team, cost_usd: t.cost_usd }))) },
    { title: 'Top people', text: list(d.top_people.map((p) => ({ name: p.email, cost_usd: p.cost_usd }))) },
    { title: 'Top models', text: list(d.top_models.map((m) => ({ name: m.model, cost_usd: m.cost_usd }))) },
    {
      title: 'Landed code',
      text: `${pct(d.landed.agent_share)} agent share: ${d.landed.agent_lines.toLocaleString('en-US')} of ${d.landed.lines_added.toLocaleString('en-US')} lines landed`,
    },
    {
      title: 'Anomalies',
      text: d.anomalies.length
        ? d.anomalies
            .map(
              (a) =>
                `${a.day} ${a.scope === 'user' ? a.email : `team ${a.team}`}: ${usdText(a.cost_usd)} (median ${usdText(a.median_usd)})`,
            )
            .join('\n')
        : 'none',
    },
    {
      title: `Budgets at risk (forecast of ${d.forecast_date})`,
      text: d.budgets_at_risk.length
        ? d.budgets_at_risk
            .map(
              (b) =>
                `${b.scope === 'org' ? 'the organization' : b.scope === 'team' ? `team ${b.team}` : b.email}: ${unitAmount(b.unit, b.forecast)} forecast of ${unitAmount(b.unit, b.limit)}`,
            )
            .join('\n')
        : 'none',
    },
  ];
}

/** A Slack incoming-webhook body. */
export function digestSlack(d: DigestFigures): { text: string; blocks: unknown[] } {
  const text = digestHeadline(d);
  return {
    text,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `Weekly digest, ${d.week.from} to ${d.week.to}` } },
      { type: 'section', text: { type: 'mrkdwn', text: `*${usdText(d.cost_usd)}*${unpriced(d)}, ${change(d)}` } },
      ...digestSections(d).map((s) => ({ type: 'section', text: { type: 'mrkdwn', text: `*${s.title}*\n${s.text}` } })),
    ],
  };
}
