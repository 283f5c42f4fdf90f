// The roster file (`PUT /api/v0/organization/teams`, `agentmeter teams import`): CSV with the header
// `email,team,parent,from,to`, one membership a line. Pure: parseCsv reads RFC 4180 CSV (quoted fields,
// doubled quotes, CRLF or LF, a field may hold a line break), planRoster checks every line against the
// organization's users and teams and returns either the plan TeamStore.importRoster applies or every bad
// line with its reason: the file is taken whole or not at all.
//
// A line with an empty `email` declares a team (and its parent) without a member. `from` empty: a member
// since always; `to` empty: still a member. A team named only in the `parent` column is created when
// missing and otherwise left as it is; a team in the `team` column gets the file's parent (none when no
// line states one) and exactly the file's memberships. Team and parent names are taken in NFC and compared
// by their key (common/team-name.ts), as everywhere else.
import { normalizeTeamName, teamNameKey, teamNameProblem } from '../../common/team-name.ts';
import { parseDay } from '../../common/time.ts';
import { ancestry, type RosterMembership, type RosterPlan, SINCE_ALWAYS } from './store.ts';

export const ROSTER_HEADER = ['email', 'team', 'parent', 'from', 'to'] as const;
/** The most lines a roster may have (a large company's directory fits many times over). */
export const MAX_ROSTER_LINES = 100_000;

export interface RosterError {
  line: number;
  reason: string;
}

export interface CsvRecord {
  /** The line of the file on which the record starts (1 is the header). */
  line: number;
  fields: string[];
}

/** Pure: the records of a CSV text, or the line where a quoted field is left open. */
export function parseCsv(text: string): { records: CsvRecord[] } | { error: RosterError } {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let wasQuoted = false;
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const endRecord = () => {
    fields.push(field);
    // A blank line (nothing but the line break) is no record.
    if (!(fields.length === 1 && fields[0] === '' && !wasQuoted)) records.push({ line: start, fields });
    fields = [];
    field = '';
    wasQuoted = false;
  };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (quoted) {
      if (c === '"') {
        if (body[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') {
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && body[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else field += c;
  }
  if (quoted) return { error: { line: start, reason: 'a quoted field is not closed' } };
  if (field !== '' || fields.length > 0 || wasQuoted) endRecord();
  return { records };
}

export interface RosterContext {
  /** The user id of an e-mail of the organization (compared case-insensitively), or undefined. */
  userId(email: string): string | undefined;
  /** The organization's teams now: name → parent name (null: none). */
  teams: ReadonlyMap<string, string | null>;
}

interface Line {
  line: number;
  email: string;
  team: string;
  parent: string;
  from: string;
  to: string;
}

const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value) && parseDay(value) !== undefined;

/** Pure: the plan of a roster, or every bad line (sorted by line) when any. */
export function planRoster(text: string, context: RosterContext): { plan: RosterPlan } | { errors: RosterError[] } {
  const parsed = parseCsv(text);
  if ('error' in parsed) return { errors: [parsed.error] };
  const [header, ...rest] = parsed.records;
  if (!header || header.fields.map((f) => f.trim().toLowerCase()).join(',') !== ROSTER_HEADER.join(','))
    return { errors: [{ line: header?.line ?? 1, reason: `the first line must be the header ${ROSTER_HEADER.join(',')}` }] };
  if (rest.length > MAX_ROSTER_LINES) return { errors: [{ line: 1, reason: `a roster has at most ${MAX_ROSTER_LINES} lines` }] };

  const errors: RosterError[] = [];
  const bad = (line: number, reason: string) => errors.push({ line, reason });
  const lines: Line[] = [];
  for (const record of rest) {
    if (record.fields.length !== ROSTER_HEADER.length) {
      bad(record.line, `expected ${ROSTER_HEADER.length} fields (${ROSTER_HEADER.join(',')}), found ${record.fields.length}`);
      continue;
    }
    const [email, rawTeam, rawParent, from, to] = record.fields.map((f) => f.trim()) as [string, string, string, string, string];
    // Names as they are stored (NFC): "E" + U+0301 on one line and "É" on another are one team.
    const team = normalizeTeamName(rawTeam);
    const parent = normalizeTeamName(rawParent);
    const problems: string[] = [];
    if (team === '') problems.push('the team is empty');
    else {
      const problem = teamNameProblem(team);
      if (problem) problems.push(problem);
    }
    const parentProblem = parent === '' ? undefined : teamNameProblem(parent, 'a parent name');
    if (parentProblem) problems.push(parentProblem);
    if (team !== '' && teamNameKey(parent) === teamNameKey(team)) problems.push(`"${team}" cannot be its own parent (a cycle)`);
    if (email !== '' && context.userId(email) === undefined) problems.push(`no user of the organization has the e-mail ${email}`);
    if (email === '' && (from !== '' || to !== '')) problems.push('from and to need an e-mail');
    if (from !== '' && !isDay(from)) problems.push(`from "${from}" is not a date (YYYY-MM-DD)`);
    if (to !== '' && !isDay(to)) problems.push(`to "${to}" is not a date (YYYY-MM-DD)`);
    if (from !== '' && to !== '' && isDay(from) && isDay(to) && from > to) problems.push(`from ${from} is after to ${to}`);
    if (problems.length) bad(record.line, problems.join('; '));
    else lines.push({ line: record.line, email, team, parent, from, to });
  }

  // Each team's parent: every line that states one must state the same.
  const teams = new Map<
    string,
    { name: string; parent: string | null; parentLine: number; members: (RosterMembership & { line: number })[] }
  >();
  for (const l of lines) {
    const key = teamNameKey(l.team);
    const team = teams.get(key) ?? { name: l.team, parent: null, parentLine: 0, members: [] };
    teams.set(key, team);
    if (l.parent !== '') {
      if (team.parent === null) {
        team.parent = l.parent;
        team.parentLine = l.line;
      } else if (teamNameKey(team.parent) !== teamNameKey(l.parent))
        bad(l.line, `the parent of "${team.name}" is "${team.parent}" on line ${team.parentLine}, "${l.parent}" here`);
    }
    if (l.email !== '')
      team.members.push({
        userId: context.userId(l.email) as string,
        firstDay: l.from || SINCE_ALWAYS,
        lastDay: l.to || null,
        line: l.line,
      });
  }

  // Two periods of one user in one team must not overlap.
  for (const team of teams.values()) {
    const sorted = [...team.members].sort(
      (a, b) => a.userId.localeCompare(b.userId) || a.firstDay.localeCompare(b.firstDay) || a.line - b.line,
    );
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1] as (typeof sorted)[number];
      const after = sorted[i] as (typeof sorted)[number];
      if (before.userId === after.userId && (before.lastDay === null || before.lastDay >= after.firstDay))
        bad(after.line, `this membership of "${team.name}" overlaps line ${before.line}`);
    }
  }

  // No cycle among the parents, the teams the file does not name keeping theirs.
  const parents = new Map<string, string | null>();
  for (const [name, parent] of context.teams) parents.set(teamNameKey(name), parent === null ? null : teamNameKey(parent));
  for (const [key, team] of teams) parents.set(key, team.parent === null ? null : teamNameKey(team.parent));
  for (const [key, team] of teams) {
    if (team.parent === null) continue;
    if (ancestry(parents, teamNameKey(team.parent)).chain.includes(key))
      bad(team.parentLine, `the parent "${team.parent}" of "${team.name}" makes a cycle`);
  }

  if (errors.length) return { errors: errors.sort((a, b) => a.line - b.line) };
  const named = new Set(teams.keys());
  const parentsOnly = [
    ...new Map(
      [...teams.values()]
        .filter((t) => t.parent !== null && !named.has(teamNameKey(t.parent)))
        .map((t) => [teamNameKey(t.parent as string), t.parent as string]),
    ).values(),
  ];
  return {
    plan: {
      parentsOnly,
      teams: [...teams.values()].map((t) => ({
        name: t.name,
        parent: t.parent,
        members: t.members.map(({ userId, firstDay, lastDay }) => ({ userId, firstDay, lastDay })),
      })),
    },
  };
}

/** Pure: errors as one readable sentence per line, for a detail or the command line. */
export const describeRosterErrors = (errors: readonly RosterError[], total = errors.length): string =>
  `the roster was not imported (nothing changed)${total > errors.length ? `; ${total} bad lines, the first ${errors.length} listed` : ''}: ${errors
    .map((e) => `line ${e.line}: ${e.reason}`)
    .join('; ')}`;
