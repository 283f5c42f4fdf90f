// The weekly digest's pure parts (docs/metrics.md §9) on hand-worked numbers: when it is due and which week it
// reports, its figures (cost and change, tops, landed agent share, anomalies, budgets at risk) and its Slack text.
import { describe, expect, it } from 'vitest';
import { type DigestInput, digestFigures, dueDigest, nextDigest } from '../../api/digest/figures.ts';
import { digestHeadline, digestSlack } from '../../api/digest/messages.ts';
import type { ForecastAnswer } from '../../api/forecast/schema.ts';

const amounts = (forecast: number) => ({ month_to_date: 0, forecast, low: 0, high: 0 });

describe('the weekly digest', () => {
  it('is due at Monday 09:00 UTC for the Monday-to-Sunday week before', () => {
    // 2026-03-23 is a Monday.
    expect(dueDigest(Date.parse('2026-03-23T09:00:00Z'))).toEqual({
      at: Date.parse('2026-03-23T09:00:00Z'),
      week: { from: '2026-03-16', to: '2026-03-22' },
    });
    // A minute before: last Monday's is the one due.
    expect(dueDigest(Date.parse('2026-03-23T08:59:00Z'))).toEqual({
      at: Date.parse('2026-03-16T09:00:00Z'),
      week: { from: '2026-03-09', to: '2026-03-15' },
    });
    // Sunday evening and the Wednesday after (the server down since Monday morning).
    expect(dueDigest(Date.parse('2026-03-22T23:00:00Z')).week.from).toBe('2026-03-09');
    expect(dueDigest(Date.parse('2026-03-25T15:00:00Z')).week).toEqual({ from: '2026-03-16', to: '2026-03-22' });
  });

  it('the next one: the due one now when not sent, else next Monday’s', () => {
    const now = Date.parse('2026-03-23T09:30:00Z');
    expect(nextDigest(now, false)).toEqual({ at: now, week: { from: '2026-03-16', to: '2026-03-22' } });
    expect(nextDigest(now, true)).toEqual({ at: Date.parse('2026-03-30T09:00:00Z'), week: { from: '2026-03-23', to: '2026-03-29' } });
  });

  it('adds up the week: cost and change, the top 5 by cost, the landed share, anomalies and budgets at risk', () => {
    const forecast: ForecastAnswer = {
      date: '2026-03-23',
      month: '2026-03',
      days_left: 8,
      window: { from: '2026-03-16', to: '2026-03-22' },
      organization: { usd: amounts(120), credits: amounts(9), budget: { unit: 'usd', limit: 100, at_risk: true } },
      teams: [{ team: 'Web', usd: amounts(5), credits: amounts(5), budget: { unit: 'usd', limit: 50, at_risk: false } }],
      users: [
        { email: 'a@x.com', usd: amounts(1), credits: amounts(3_000_000), budget: { unit: 'credits', limit: 2_000_000, at_risk: true } },
      ],
    };
    const d = digestFigures({
      week: { from: '2026-03-16', to: '2026-03-22' },
      // a: 10 + 2.5 = 12.5; b: 4 + 0 (unpriced) = 4; c … h: 1 each. Total 22.5.
      tokens: [
        { user_id: 'ua', email: 'a@x.com', model: 'opus', cost_usd: 10 },
        { user_id: 'ua', email: 'a@x.com', model: 'sonnet', cost_usd: 2.5 },
        { user_id: 'ub', email: 'b@x.com', model: 'sonnet', cost_usd: 4 },
        { user_id: 'ub', email: 'b@x.com', model: 'local-model', cost_usd: null },
        ...['c', 'd', 'e', 'f', 'g', 'h'].map((p) => ({ user_id: `u${p}`, email: `${p}@x.com`, model: 'haiku', cost_usd: 1 })),
      ],
      // 22.5 against 10 + 8 = 18: +4.5, +25%.
      previous: [
        { model: 'opus', cost_usd: 10 },
        { model: 'sonnet', cost_usd: 8 },
      ],
      teams: [
        { group_key: 'Web', cost_usd: 3 },
        { group_key: 'Web', cost_usd: 2 },
        { group_key: 'Data', cost_usd: 7 },
        { group_key: 'Idle', cost_usd: 0 },
      ],
      // 30 of 120 + 10 of 80 lines: 40 of 200 = 0.2.
      landed: [
        { lines_added: 120, agent_lines: 30 },
        { lines_added: 80, agent_lines: 10 },
      ],
      anomalies: [
        {
          id: 'anm_1',
          type: 'cost.anomaly',
          org_id: 'o',
          scope: 'user',
          email: 'a@x.com',
          day: '2026-03-18',
          cost_usd: 10,
          median_usd: 1,
          multiple: 3,
          floor_usd: 5,
          days_with_usage: 9,
          fired_at: '2026-03-18T10:00:00.000Z',
        },
      ],
      forecast,
    });
    expect(d).toEqual({
      week: { from: '2026-03-16', to: '2026-03-22' },
      cost_usd: 22.5,
      // local-model has no price: named, as its usage is not in the dollars.
      unpriced_models: ['local-model'],
      previous_cost_usd: 18,
      previous_unpriced_models: [],
      change_usd: 4.5,
      change_pct: 25,
      top_teams: [
        { team: 'Data', cost_usd: 7 },
        { team: 'Web', cost_usd: 5 },
      ],
      // Ties at $1 by e-mail; five at most.
      top_people: [
        { email: 'a@x.com', cost_usd: 12.5 },
        { email: 'b@x.com', cost_usd: 4 },
        { email: 'c@x.com', cost_usd: 1 },
        { email: 'd@x.com', cost_usd: 1 },
        { email: 'e@x.com', cost_usd: 1 },
      ],
      // haiku 6 × 1; the unpriced model costs nothing and is left out.
      top_models: [
        { model: 'opus', cost_usd: 10 },
        { model: 'sonnet', cost_usd: 6.5 },
        { model: 'haiku', cost_usd: 6 },
      ],
      landed: { lines_added: 200, agent_lines: 40, agent_share: 0.2 },
      anomalies: [{ scope: 'user', email: 'a@x.com', day: '2026-03-18', cost_usd: 10, median_usd: 1 }],
      budgets_at_risk: [
        { scope: 'org', unit: 'usd', limit: 100, forecast: 120 },
        { scope: 'user', email: 'a@x.com', unit: 'credits', limit: 2_000_000, forecast: 3_000_000 },
      ],
      forecast_date: '2026-03-23',
    });
    const slack = digestSlack(d);
    expect(slack.text).toBe(
      'agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $22.50 (without local-model: no price), +$4.50 (+25%) vs the week before.',
    );
    const blocks = JSON.stringify(slack.blocks);
    for (const part of [
      '1. Data: $7.00',
      '1. a@x.com: $12.50',
      '20% agent share: 40 of 200 lines landed',
      '2026-03-18 a@x.com: $10.00 (median $1.00)',
      'the organization: $120.00 forecast of $100.00',
    ])
      expect(blocks).toContain(part);
  });
});

const FORECAST: ForecastAnswer = {
  date: '2026-03-23',
  month: '2026-03',
  days_left: 8,
  window: { from: '2026-03-16', to: '2026-03-22' },
  organization: { usd: amounts(0), credits: amounts(0), budget: null },
  teams: [],
  users: [],
};
const row = (model: string, cost_usd: number | null) => ({ user_id: 'ua', email: 'a@x.com', model, cost_usd });
const weekOf = (tokens: DigestInput['tokens'], previous: DigestInput['previous']): DigestInput => ({
  week: { from: '2026-03-16', to: '2026-03-22' },
  tokens,
  previous,
  teams: [],
  landed: [],
  anomalies: [],
  forecast: FORECAST,
});
const money = (d: ReturnType<typeof digestFigures>) => ({
  cost_usd: d.cost_usd,
  unpriced_models: d.unpriced_models,
  previous_cost_usd: d.previous_cost_usd,
  previous_unpriced_models: d.previous_unpriced_models,
  change_usd: d.change_usd,
  change_pct: d.change_pct,
});
// The week: 3 days of opus at $4, $3.50 and $2.50 = $10 (rows per user, day and model).
const WEEK = [row('opus', 4), row('opus', 3.5), row('opus', 2.5)];

// docs/metrics.md §8: usage without a price is never $0 silently; a week without usage costs $0.
describe("the weekly digest's dollars when usage has no price", () => {
  it('a week before without usage cost $0: the change is the week’s dollars, no percentage', () => {
    const d = digestFigures(weekOf(WEEK, []));
    expect(money(d)).toEqual({
      cost_usd: 10,
      unpriced_models: [],
      previous_cost_usd: 0,
      previous_unpriced_models: [],
      change_usd: 10,
      change_pct: null,
    });
    expect(digestHeadline(d)).toBe('agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $10.00, +$10.00 ($0.00 the week before).');
  });

  it('a week before whose usage had no price has no dollars: null, and no change to show', () => {
    // Two days of qwen3-coder-plus, none priced: not $0 (the old reading: "+$10.00 (nothing the week before)").
    const d = digestFigures(
      weekOf(WEEK, [
        { model: 'qwen3-coder-plus', cost_usd: null },
        { model: 'qwen3-coder-plus', cost_usd: null },
      ]),
    );
    expect(money(d)).toEqual({
      cost_usd: 10,
      unpriced_models: [],
      previous_cost_usd: null,
      previous_unpriced_models: ['qwen3-coder-plus'],
      change_usd: null,
      change_pct: null,
    });
    expect(digestHeadline(d)).toBe(
      "agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $10.00, no change to show: the week before's usage (qwen3-coder-plus) had no price.",
    );
    expect(digestSlack(d).blocks[1]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: "*$10.00*, no change to show: the week before's usage (qwen3-coder-plus) had no price" },
    });
  });

  it('a week before partly priced: its priced dollars, its unpriced models named beside the change', () => {
    // The week before: opus $3 + $5 = $8, local-model and qwen3-coder-plus without a price. 10 against 8:
    // +$2, +25%.
    const d = digestFigures(
      weekOf(WEEK, [
        { model: 'opus', cost_usd: 3 },
        { model: 'qwen3-coder-plus', cost_usd: null },
        { model: 'opus', cost_usd: 5 },
        { model: 'local-model', cost_usd: null },
      ]),
    );
    expect(money(d)).toEqual({
      cost_usd: 10,
      unpriced_models: [],
      previous_cost_usd: 8,
      previous_unpriced_models: ['local-model', 'qwen3-coder-plus'],
      change_usd: 2,
      change_pct: 25,
    });
    expect(digestHeadline(d)).toBe(
      'agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $10.00, +$2.00 (+25%) vs the week before (without local-model, qwen3-coder-plus: no price).',
    );
  });

  it('a week whose usage had no price has no dollars either, by the same rule', () => {
    // The week: two days of qwen3-coder-plus, none priced; the week before opus $8.
    const d = digestFigures(weekOf([row('qwen3-coder-plus', null), row('qwen3-coder-plus', null)], [{ model: 'opus', cost_usd: 8 }]));
    expect(money(d)).toEqual({
      cost_usd: null,
      unpriced_models: ['qwen3-coder-plus'],
      previous_cost_usd: 8,
      previous_unpriced_models: [],
      change_usd: null,
      change_pct: null,
    });
    // Nobody and no model cost a known amount: the tops are empty.
    expect([d.top_people, d.top_models]).toEqual([[], []]);
    expect(digestHeadline(d)).toBe(
      "agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): no dollars: the week's usage (qwen3-coder-plus) had no price, no change to show (the week before: $8.00).",
    );
    // Neither week used anything: $0 and $0, a change of $0 and no percentage.
    expect(money(digestFigures(weekOf([], [])))).toEqual({
      cost_usd: 0,
      unpriced_models: [],
      previous_cost_usd: 0,
      previous_unpriced_models: [],
      change_usd: 0,
      change_pct: null,
    });
  });
});
