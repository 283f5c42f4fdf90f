// Pure: the Teams page's table, one row per team with its members on a day and its figures over the range
// as the server sums them: each group_by=team answer's meta.group_totals (/code's included; activity's
// peak of daily active users). Nothing is summed here; a team without a row had no activity (0).
import type { ActivityByTeam, CodeGrouped, ProductivityByTeam, Teams, TokensByTeam, ToolsByTeam } from './api-types.ts';

type GroupTotals<A extends { meta: { group_totals?: unknown } }> = NonNullable<A['meta']['group_totals']>;

/** The meta.group_totals of the group_by=team answers the table reads. */
export interface TeamGroupTotals {
  tokens: GroupTotals<TokensByTeam>;
  tools: GroupTotals<ToolsByTeam>;
  activity: GroupTotals<ActivityByTeam>;
  productivity: GroupTotals<ProductivityByTeam>;
  code?: GroupTotals<CodeGrouped>;
}

export interface TeamTotals {
  name: string;
  parent: string | null;
  /** Members whose membership covers `day`, by e-mail. */
  members: string[];
  credits: number;
  toolCalls: number;
  peakDau: number;
  filesEdited: number;
  filesCreated: number;
  commits: number;
  /** Lines of the team's landed commits the agents wrote (docs/metrics.md §5). */
  agentLines: number;
}

const covers = (m: { from: string | null; to: string | null }, day: string) =>
  (m.from === null || m.from <= day) && (m.to === null || m.to >= day);

export function teamTotals(listing: Teams, day: string, totals: TeamGroupTotals): TeamTotals[] {
  const of = <R extends { group_key: string }>(list: readonly R[] | undefined, team: string) => list?.find((r) => r.group_key === team);
  return listing.teams.map((t) => {
    const productivity = of(totals.productivity, t.name);
    return {
      name: t.name,
      parent: t.parent,
      members: [...new Set(t.members.filter((m) => covers(m, day)).map((m) => m.email))].sort(),
      credits: of(totals.tokens, t.name)?.billable_tokens ?? 0,
      toolCalls: of(totals.tools, t.name)?.tool_calls ?? 0,
      peakDau: of(totals.activity, t.name)?.peak_daily_active_users ?? 0,
      filesEdited: productivity?.files_edited ?? 0,
      filesCreated: productivity?.files_created ?? 0,
      commits: productivity?.git_commits ?? 0,
      agentLines: of(totals.code, t.name)?.landed_agent_lines ?? 0,
    };
  });
}
