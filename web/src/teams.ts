// Pure: the Teams page's table, one row per team with its members today and its figures over the range
// (the sums of the API's group_by=team rows, /code's included; the peak of its daily active users).
import type {
  ActivityTeamGroupRow,
  CodeGroupRow,
  ProductivityTeamGroupRow,
  Teams,
  TokenTeamGroupRow,
  ToolTeamGroupRow,
} from './api-types.ts';

/** The fields of the group_by=team rows the table sums (analytics' tokens, tools, activity, productivity, code). */
export interface TeamRows {
  tokens: readonly Pick<TokenTeamGroupRow, 'date' | 'group_key' | 'billable_tokens'>[];
  tools: readonly Pick<ToolTeamGroupRow, 'date' | 'group_key' | 'tool_calls'>[];
  activity: readonly Pick<ActivityTeamGroupRow, 'date' | 'group_key' | 'daily_active_users'>[];
  productivity: readonly Pick<ProductivityTeamGroupRow, 'date' | 'group_key' | 'files_edited' | 'files_created' | 'git_commits'>[];
  code?: readonly Pick<CodeGroupRow, 'date' | 'group_key' | 'landed_agent_lines'>[];
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

export function teamTotals(listing: Teams, day: string, rows: TeamRows): TeamTotals[] {
  const total = <R extends { group_key: string }>(list: readonly R[], team: string, value: (row: R) => number) =>
    list.filter((r) => r.group_key === team).reduce((acc, r) => acc + value(r), 0);
  return listing.teams.map((t) => ({
    name: t.name,
    parent: t.parent,
    members: [...new Set(t.members.filter((m) => covers(m, day)).map((m) => m.email))].sort(),
    credits: total(rows.tokens, t.name, (r) => r.billable_tokens),
    toolCalls: total(rows.tools, t.name, (r) => r.tool_calls),
    peakDau: Math.max(0, ...rows.activity.filter((r) => r.group_key === t.name).map((r) => r.daily_active_users)),
    filesEdited: total(rows.productivity, t.name, (r) => r.files_edited),
    filesCreated: total(rows.productivity, t.name, (r) => r.files_created),
    commits: total(rows.productivity, t.name, (r) => r.git_commits),
    agentLines: total(rows.code ?? [], t.name, (r) => r.landed_agent_lines),
  }));
}
