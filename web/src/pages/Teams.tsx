// The Teams page: each team with its members (on the last day of the range) and its figures over the
// range side by side, as the API sums its group_by=team rows (meta.group_totals; direct members). And the team picker of the
// overview, people and code pages, which sets team= in the URL (the figures of a team and the teams below it).
import { api } from '../api.ts';
import type { ActivityByTeam, CodeGrouped, ProductivityByTeam, Teams as TeamList, TokensByTeam, ToolsByTeam } from '../api-types.ts';
import { Link, RangeForm, Status, useData } from '../components.tsx';
import { formatNumber } from '../figures.ts';
import { navigate, withQuery } from '../router.ts';
import { teamTotals } from '../teams.ts';

// Asked once per page load: the picker on every page shares it.
let listing: Promise<TeamList> | undefined;
const teamListing = () =>
  (listing ??= api<TeamList>('/api/v0/organization/teams').catch((error: unknown) => {
    listing = undefined;
    throw error;
  }));

export function TeamPicker(props: { path: string; query: URLSearchParams }) {
  const { data } = useData('teams', teamListing);
  const current = props.query.get('team') ?? '';
  if (!data || data.teams.length === 0) return null;
  return (
    <label class="team-picker">
      Team{' '}
      <select
        data-testid="team-picker"
        value={current}
        onChange={(e) => navigate(withQuery(props.path, props.query, { team: e.currentTarget.value || null, page: null }))}
      >
        <option value="">Everyone</option>
        {data.teams.map((t) => (
          <option key={t.name} value={t.name}>
            {t.parent ? `${t.name} (in ${t.parent})` : t.name}
          </option>
        ))}
      </select>
    </label>
  );
}

async function load(from: string, to: string) {
  const range = `startDate=${from}&endDate=${to}&group_by=team`;
  const [teams, tokens, tools, activity, productivity, code] = await Promise.all([
    teamListing(),
    api<TokensByTeam>(`/api/v1/analytics/tokens?${range}`),
    api<ToolsByTeam>(`/api/v1/analytics/tools?${range}`),
    api<ActivityByTeam>(`/api/v1/analytics/activity?${range}`),
    api<ProductivityByTeam>(`/api/v1/analytics/productivity?${range}`),
    api<CodeGrouped>(`/api/v1/analytics/code?${range}`),
  ]);
  return {
    teams,
    rows: teamTotals(teams, to, {
      tokens: tokens.meta?.group_totals ?? [],
      tools: tools.meta?.group_totals ?? [],
      activity: activity.meta?.group_totals ?? [],
      productivity: productivity.meta?.group_totals ?? [],
      code: code.meta?.group_totals ?? [],
    }),
  };
}

const COLUMNS = [
  { key: 'credits', label: 'Standard Credits' },
  { key: 'toolCalls', label: 'Tool calls' },
  { key: 'peakDau', label: 'Peak daily active' },
  { key: 'filesEdited', label: 'Files edited' },
  { key: 'filesCreated', label: 'Files created' },
  { key: 'commits', label: 'Commits' },
  { key: 'agentLines', label: 'Agent lines landed' },
] as const;

export function Teams(props: { path: string; query: URLSearchParams; from: string; to: string }) {
  const { data, error, loading } = useData(`${props.from}|${props.to}`, () => load(props.from, props.to));
  return (
    <>
      <h1>Teams</h1>
      <RangeForm {...props} />
      <Status loading={loading} error={error} />
      {data && data.rows.length === 0 ? (
        <p class="notice">No teams yet: an owner imports the roster with `agentmeter teams import FILE` (see docs/teams.md).</p>
      ) : null}
      {data && data.rows.length > 0 ? (
        <>
          <p class="muted">
            Figures count each team's direct members on each day; teams with fewer than {data.teams.minTeamSize} member
            {data.teams.minTeamSize === 1 ? '' : 's'} on a day are left out of that day. Members shown: on {props.to}.
          </p>
          <div class="scroll">
            <table class="people" data-testid="teams-table">
              <caption class="sr-only">
                Teams from {props.from} to {props.to}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Team</th>
                  <th scope="col">Members</th>
                  {COLUMNS.map((c) => (
                    <th key={c.key} scope="col" class="num">
                      {c.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.rows.map((t) => (
                  <tr key={t.name} data-team={t.name}>
                    <th scope="row">
                      <Link href={`/overview?${new URLSearchParams({ from: props.from, to: props.to, team: t.name })}`}>{t.name}</Link>
                      {t.parent ? <span class="muted"> in {t.parent}</span> : null}
                    </th>
                    <td data-col="members">{t.members.join(', ') || '—'}</td>
                    {COLUMNS.map((c) => (
                      <td key={c.key} class="num" data-col={c.key} data-value={String(t[c.key])}>
                        {formatNumber(t[c.key])}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}
