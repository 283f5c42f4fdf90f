// Pure: the weekly digest as a Slack message (text for the notification, blocks for the reading).
import { usdText } from '../anomalies/messages.ts';
import type { DigestFigures } from './schema.ts';

const pct = (share: number) => `${(share * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${usdText(Math.abs(n))}`;
/** " (without <models>: no price)": the models whose usage a week's dollars leave out (docs/metrics.md §8). */
const without = (names: readonly string[] | undefined) => (names?.length ? ` (without ${names.join(', ')}: no price)` : '');
/** A week whose usage had no price at all: no dollars (null), never a silent $0. */
const noPrice = (whose: string, names: readonly string[] | undefined) =>
  `${whose} usage${names?.length ? ` (${names.join(', ')})` : ''} had no price`;

/** The change from the week before: none to show when either week's usage had no price at all. */
const change = (d: DigestFigures) => {
  const earlier = d.previous_unpriced_models;
  if (d.previous_cost_usd === null) return `no change to show: ${noPrice("the week before's", earlier)}`;
  const priced = earlier?.length ? `, without ${earlier.join(', ')}: no price` : '';
  if (d.change_usd === null) return `no change to show (the week before: ${usdText(d.previous_cost_usd)}${priced})`;
  // No percentage of $0. Said as the amount: the week before may have had no usage or usage priced at $0.
  if (d.change_pct === null) return `${signed(d.change_usd)} (${usdText(d.previous_cost_usd)} the week before${priced})`;
  return `${signed(d.change_usd)} (${d.change_pct >= 0 ? '+' : ''}${d.change_pct}%) vs the week before${without(earlier)}`;
};
const list = (rows: { name: string; cost_usd: number }[]) =>
  rows.length ? rows.map((r, i) => `${i + 1}. ${r.name}: ${usdText(r.cost_usd)}`).join('\n') : 'none';
const unitAmount = (unit: 'usd' | 'credits', n: number) => (unit === 'usd' ? usdText(n) : `${n.toLocaleString('en-US')} Standard Credits`);

/**
 * The week's dollars, and the models whose usage they leave out (no price, docs/metrics.md §8): never a
 * silent $0. When none of the week's usage had a price there are no dollars to show.
 */
const dollars = (d: DigestFigures, bold = false) => {
  if (d.cost_usd === null) return `no dollars: ${noPrice("the week's", d.unpriced_models)}`;
  return `${bold ? `*${usdText(d.cost_usd)}*` : usdText(d.cost_usd)}${without(d.unpriced_models)}`;
};

/** One line: what the digest says first. */
export const digestHeadline = (d: DigestFigures) =>
  `agentmeter weekly digest, ${d.week.from} to ${d.week.to} (UTC): ${dollars(d)}, ${change(d)}.`;

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
      { type: 'section', text: { type: 'mrkdwn', text: `${dollars(d, true)}, ${change(d)}` } },
      ...digestSections(d).map((s) => ({ type: 'section', text: { type: 'mrkdwn', text: `*${s.title}*\n${s.text}` } })),
    ],
  };
}
