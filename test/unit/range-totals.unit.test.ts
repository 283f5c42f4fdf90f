// A range's figures in one (meta.totals): api/analytics/totals.ts and the pull requests' totals, on
// records worked by hand. These were the dashboard's own derivations; the numbers are the same.
import { describe, expect, it } from 'vitest';
import {
  activityTotals,
  decisionsByAgent,
  peopleTotals,
  personTotals,
  productivityTotals,
  rangeCost,
  tokenGroupTotals,
  tokenTotals,
  toolTotals,
} from '../../api/analytics/totals.ts';
import { ACTIVE_WINDOW_MS, computerCounts } from '../../api/computers/status.ts';
import { pullRequestGroupTotals, pullRequestTotals } from '../../api/pull-requests/report.ts';
import { readinessSummary } from '../../api/readiness/figures.ts';
import { sessionCounts } from '../../api/sessions/derive.ts';

const toolDay = (extra: Partial<Parameters<typeof toolTotals>[0][number]> = {}) => ({
  tool_calls: 0,
  by_tool: [],
  mcp_by_server: [],
  skills_invocations: 0,
  skills_by_name: [],
  slash_commands_invocations: 0,
  slash_commands_by_name: [],
  hooks_invocations: 0,
  hooks_by_event: [],
  autonomy_ratio_avg: 0,
  ...extra,
});

const userDay = (user: string, credits: number, model: string | null, extra: Record<string, number | null> = {}) => ({
  user_id: user,
  user_email: `${user}@x.com`,
  billable_tokens: credits,
  cost_usd: null as number | null,
  tool_calls: 1,
  sessions: 1,
  messages: 2,
  files_created: 0,
  files_edited: 0,
  git_commits: 0,
  git_prs_created: 0,
  primary_model: model,
  ...extra,
});

describe('tool totals', () => {
  it('sum each breakdown over the days (Read 2 + 1 = 3, Bash 3: count, then name), and the autonomy mean skips quiet days: (2 + 4) / 2 = 3', () => {
    const totals = toolTotals([
      toolDay({ tool_calls: 1, autonomy_ratio_avg: 2, by_tool: [{ tool: 'Read', invocations: 2 }] }),
      toolDay({ tool_calls: 0, autonomy_ratio_avg: 0 }),
      toolDay({
        tool_calls: 3,
        autonomy_ratio_avg: 4,
        by_tool: [
          { tool: 'Bash', invocations: 3 },
          { tool: 'Read', invocations: 1 },
        ],
        hooks_by_event: [{ event: 'PostToolUse', matcher: 'Edit', command: 'fmt', count: 2 }],
      }),
    ]);
    expect(totals.by_tool).toEqual([
      { tool: 'Bash', invocations: 3 },
      { tool: 'Read', invocations: 3 },
    ]);
    expect(totals.autonomy_ratio_avg).toBe(3);
    expect(totals.tool_calls).toBe(4);
    expect(totals.hooks_by_event).toEqual([{ event: 'PostToolUse', matcher: 'Edit', command: 'fmt', count: 2 }]);
    expect(toolTotals([toolDay()]).autonomy_ratio_avg).toBe(0);
  });
});

describe('token totals', () => {
  it('sum the credits and the priced dollars: 1.25 + 0.5 = 1.75; a day without a price adds nothing', () => {
    expect(
      tokenTotals([
        { billable_tokens: 100, cost_usd: 1.25 },
        { billable_tokens: 20, cost_usd: null },
        { billable_tokens: 30, cost_usd: 0.5 },
      ]),
    ).toEqual({ billable_tokens: 150, cost_usd: 1.75 });
  });

  it('dollars are null when there was usage and none of it had a price, 0 without usage', () => {
    expect(rangeCost([{ cost_usd: null }], true)).toBeNull();
    expect(rangeCost([{ cost_usd: null }], false)).toBe(0);
    expect(tokenTotals([])).toEqual({ billable_tokens: 0, cost_usd: 0 });
  });

  it('by group: each over the range, largest credits first, ties by name', () => {
    expect(
      tokenGroupTotals([
        { group_key: 'droid', billable_tokens: 5, cost_usd: 0.1 },
        { group_key: 'claude', billable_tokens: 3, cost_usd: 0.2 },
        { group_key: 'claude', billable_tokens: 2, cost_usd: null },
        { group_key: 'codex', billable_tokens: 9, cost_usd: null },
      ]),
    ).toEqual([
      { group_key: 'codex', billable_tokens: 9, cost_usd: null },
      { group_key: 'claude', billable_tokens: 5, cost_usd: 0.2 },
      { group_key: 'droid', billable_tokens: 5, cost_usd: 0.1 },
    ]);
  });
});

describe('activity and productivity totals', () => {
  it('sum sessions and messages', () => {
    expect(
      activityTotals([
        { sessions: 2, messages: 5, user_messages: 2 },
        { sessions: 1, messages: 4, user_messages: 1 },
      ]),
    ).toEqual({ sessions: 3, messages: 9, user_messages: 3 });
  });

  it('the acceptance rate of the range is over its sums: (3 + 5) / (3 + 1 + 5 + 1) = 0.8, not the mean of the days', () => {
    const day = (accepted: number, rejected: number, language: string) => ({
      files_created: 1,
      files_edited: 2,
      by_extension: [{ extension: 'ts', count: 3 }],
      by_language: [{ language, count: 3 }],
      git_commits: 1,
      git_prs_created: 0,
      edits_accepted: accepted,
      edits_rejected: rejected,
    });
    const totals = productivityTotals([day(3, 1, 'TypeScript'), day(5, 1, 'Go'), day(0, 0, 'Go')]);
    expect(totals).toMatchObject({ files_created: 3, files_edited: 6, git_commits: 3, edits_accepted: 8, edits_rejected: 2 });
    expect(totals.edit_acceptance_rate).toBe(0.8);
    expect(totals.by_language).toEqual([
      { language: 'Go', count: 6 },
      { language: 'TypeScript', count: 3 },
    ]);
    expect(productivityTotals([day(0, 0, 'Go')]).edit_acceptance_rate).toBeNull();
  });
});

describe('decisions by agent', () => {
  it('sums each agent over the days, and an agent that reports no decision reads null (not reported)', () => {
    const decisions = [
      { group_key: 'claude', edits_accepted: 3, edits_rejected: 1 },
      { group_key: 'claude', edits_accepted: 5, edits_rejected: 1 },
      // Decisions of an agent with no hook event in the range (OpenTelemetry only): still listed.
      { group_key: 'codex', edits_accepted: 0, edits_rejected: 2 },
    ];
    expect(decisionsByAgent(['droid', 'claude'], decisions)).toEqual([
      { agent: 'claude', edits_accepted: 8, edits_rejected: 2, edit_acceptance_rate: 0.8 },
      { agent: 'codex', edits_accepted: 0, edits_rejected: 2, edit_acceptance_rate: 0 },
      { agent: 'droid', edits_accepted: 0, edits_rejected: 0, edit_acceptance_rate: null },
    ]);
  });
});

describe('people totals', () => {
  it('one row per person; the primary model is the one of the days with most credits (opus 10 + 25 = 35 > sonnet 30)', () => {
    const people = peopleTotals([
      userDay('u1', 10, 'opus'),
      userDay('u1', 30, 'sonnet', { git_commits: 2, cost_usd: 0.5 }),
      userDay('u1', 25, 'opus'),
      userDay('u2', 5, null),
    ]);
    expect(people).toEqual([
      {
        user_id: 'u1',
        user_email: 'u1@x.com',
        active_days: 3,
        billable_tokens: 65,
        cost_usd: 0.5,
        tool_calls: 3,
        sessions: 3,
        messages: 6,
        files_created: 0,
        files_edited: 0,
        git_commits: 2,
        git_prs_created: 0,
        primary_model: 'opus',
      },
      expect.objectContaining({ user_id: 'u2', active_days: 1, billable_tokens: 5, cost_usd: null, primary_model: null }),
    ]);
    expect(personTotals([])).toMatchObject({ active_days: 0, billable_tokens: 0, cost_usd: 0, primary_model: null });
  });
});

describe('pull request totals', () => {
  const day = (merged: number, withAgent: number, cost: number | null) => ({
    merged,
    merged_with_agent_lines: withAgent,
    lines_added: merged * 10,
    agent_lines: withAgent * 5,
    cost_usd: cost,
    not_shipped_cost_usd: 0,
  });

  it('sums merged and agent pull requests and divides the cost by the merged: ($4 + $2) / 4 = $1.50', () => {
    expect(pullRequestTotals([day(3, 3, 4), day(0, 0, 0), day(1, 0, 2)])).toEqual({
      merged: 4,
      merged_with_agent_lines: 3,
      lines_added: 40,
      agent_lines: 15,
      agent_share: 0.375,
      cost_usd: 6,
      cost_per_merged_usd: 1.5,
      not_shipped_cost_usd: 0,
    });
  });

  it('has no cost per merged pull request when a day has no price or nothing merged', () => {
    expect(pullRequestTotals([day(2, 1, null)]).cost_per_merged_usd).toBeNull();
    expect(pullRequestTotals([]).cost_per_merged_usd).toBeNull();
    expect(pullRequestTotals([day(0, 0, 0)])).toMatchObject({ cost_usd: 0, cost_per_merged_usd: null, agent_share: 0 });
  });
});

describe('pull request group totals', () => {
  it('each group over the range: ($3 + $1) / (2 + 1) = $1.3333; a day without a price makes the group null', () => {
    expect(
      pullRequestGroupTotals([
        { group_key: 'shop', merged: 2, merged_with_agent_lines: 1, agent_lines: 10, cost_usd: 3 },
        { group_key: 'shop', merged: 1, merged_with_agent_lines: 1, agent_lines: 5, cost_usd: 1 },
        { group_key: 'api', merged: 1, merged_with_agent_lines: 0, agent_lines: 0, cost_usd: null },
      ]),
    ).toEqual([
      { group_key: 'shop', merged: 3, merged_with_agent_lines: 2, agent_lines: 15, cost_usd: 4, cost_per_merged_usd: 1.3333 },
      { group_key: 'api', merged: 1, merged_with_agent_lines: 0, agent_lines: 0, cost_usd: null, cost_per_merged_usd: null },
    ]);
  });
});

describe('readiness summary', () => {
  it('counts criteria met in full and scores the mean of numerator / denominator: (2/2 + 1/2 + 0/4) / 3 = 0.5', () => {
    const c = (numerator: number, denominator: number) => ({ numerator, denominator, rationale: '' });
    const reportId = '00000000-0000-4000-8000-000000000000';
    expect(readinessSummary({ reportId, report: { a: c(2, 2), b: c(1, 2), d: c(0, 4) } })).toEqual({
      reportId,
      criteria: 3,
      met: 1,
      score: 0.5,
    });
    expect(readinessSummary({ reportId, report: {} })).toEqual({ reportId, criteria: 0, met: 0, score: 0 });
  });
});

describe('session and computer counts', () => {
  it('count each status by the rule of one: running wins over waiting, neither is idle', () => {
    expect(
      sessionCounts([
        { running: 1, waiting: 2 },
        { running: 0, waiting: 1 },
        { running: 0, waiting: 0 },
        { running: 0, waiting: 0 },
      ]),
    ).toEqual({ running: 1, pending: 1, idle: 2 });
  });

  it('count computers: never connected provisioning, heard from within the window active, failed checks or quiet an error', () => {
    const now = 1_000_000_000;
    const base = { created_ms: now - 10, checks_ms: null, checks_error: null, first_seen_ms: null, last_seen_ms: null };
    expect(
      computerCounts(
        [
          base,
          { ...base, checks_ms: now - 5, first_seen_ms: now - 5, last_seen_ms: now - 5 },
          { ...base, checks_ms: now - 5, checks_error: 'cwd: missing', first_seen_ms: now - 5, last_seen_ms: now - 5 },
          { ...base, checks_ms: now - 5, first_seen_ms: now - ACTIVE_WINDOW_MS - 10, last_seen_ms: now - ACTIVE_WINDOW_MS - 1 },
        ],
        now,
      ),
    ).toEqual({ provisioning: 1, active: 1, error: 2 });
  });
});
