// Pure: the code figures by team (docs/metrics.md §5 and §6). group_by=team gives one row per day and team with
// a non-zero figure, over the team's direct members that day (teams below the minimum size already left
// out by api/teams/); a team= filter keeps the rows of the users who were members on the row's own day,
// which api/code/assemble.ts then assembles as it does the organization's.
import type { CodeGroupedRow } from './schema.ts';
import type { EditRow, LandedRow, PerUser } from './store.ts';

export interface TeamDay {
  day: string;
  team: { name: string };
  members: ReadonlySet<string>;
}

export function codeByTeam(teamDays: readonly TeamDay[], edits: readonly PerUser<EditRow>[], landed: readonly PerUser<LandedRow>[]) {
  const rows: CodeGroupedRow[] = [];
  const on = <T extends { day: string }>(list: readonly T[], day: string) => list.filter((r) => r.day === day);
  const editsOf = new Map<string, PerUser<EditRow>[]>();
  const landedOf = new Map<string, PerUser<LandedRow>[]>();
  for (const { day, team, members } of teamDays) {
    if (!editsOf.has(day)) editsOf.set(day, on(edits, day));
    if (!landedOf.has(day)) landedOf.set(day, on(landed, day));
    const e = (editsOf.get(day) ?? []).filter((r) => members.has(r.user_id));
    const l = (landedOf.get(day) ?? []).filter((r) => members.has(r.user_id));
    const row = {
      date: day,
      group_key: team.name,
      edit_lines_added: e.reduce((n, r) => n + r.lines_added, 0),
      landed_lines_added: l.reduce((n, r) => n + r.lines_added, 0),
      landed_agent_lines: l.reduce((n, r) => n + r.agent_lines, 0),
    };
    if (row.edit_lines_added > 0 || row.landed_lines_added > 0 || row.landed_agent_lines > 0) rows.push(row);
  }
  return rows.sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0,
  );
}
