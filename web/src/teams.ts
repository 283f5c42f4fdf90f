// Pure: the Teams page's table, one row per team with its members today and its figures over the range
// (the sums of the API's group_by=team rows, /code's included; the peak of its daily active users).
export interface TeamListing {
  teams: { name: string; parent: string | null; members: { email: string; from: string | null; to: string | null }[] }[];
  minTeamSize: number;
}
export interface TeamGroupRow {
  date: string;
  group_key: string;
  [field: string]: string | number;
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

export function teamTotals(
  listing: TeamListing,
  day: string,
  rows: { tokens: TeamGroupRow[]; tools: TeamGroupRow[]; activity: TeamGroupRow[]; productivity: TeamGroupRow[]; code?: TeamGroupRow[] },
): TeamTotals[] {
  const total = (list: TeamGroupRow[], team: string, field: string) =>
    list.filter((r) => r.group_key === team).reduce((acc, r) => acc + Number(r[field] ?? 0), 0);
  return listing.teams.map((t) => ({
    name: t.name,
    parent: t.parent,
    members: [...new Set(t.members.filter((m) => covers(m, day)).map((m) => m.email))].sort(),
    credits: total(rows.tokens, t.name, 'billable_tokens'),
    toolCalls: total(rows.tools, t.name, 'tool_calls'),
    peakDau: Math.max(0, ...rows.activity.filter((r) => r.group_key === t.name).map((r) => Number(r['daily_active_users']))),
    filesEdited: total(rows.productivity, t.name, 'files_edited'),
    filesCreated: total(rows.productivity, t.name, 'files_created'),
    commits: total(rows.productivity, t.name, 'git_commits'),
    agentLines: total(rows.code ?? [], t.name, 'landed_agent_lines'),
  }));
}
