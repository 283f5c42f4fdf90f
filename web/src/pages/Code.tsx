// Code the agents wrote: how much of the code that landed the agents wrote (docs/metrics.md §5, docs/code.md). From
// /api/v1/analytics/code (per day, and group_by=repo) and /api/v0/code/commits. Owners and managers see
// the organization; a member sees their own figures: the server restricts the answers. The team picker
// (owners and managers) sets team=: every figure and the commit list over that team's members.
import { api } from '../api.ts';
import type { Code, CodeGrouped, Commits, PullRequestDays, PullRequestGroups } from '../api-types.ts';
import { Chart, Figure, RangeForm, Status, TopList, useData } from '../components.tsx';
import { daysOf, formatDecimal, formatNumber, formatPercent, formatUsd, landedShareByDay } from '../figures.ts';
import { TeamPicker } from './Teams.tsx';

/** A list's rows with something to show, largest first (the server's totals, laid out). */
const listed = (rows: { name: string; count: number }[]) =>
  rows.filter((r) => r.count > 0).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));

/** `teams`: the viewer may pick a team (owners and managers; a member sees only their own figures). */
export function CodePage(props: { path: string; query: URLSearchParams; from: string; to: string; teams: boolean }) {
  const team = props.teams ? props.query.get('team') : null;
  const range = `startDate=${props.from}&endDate=${props.to}${team ? `&team=${encodeURIComponent(team)}` : ''}`;
  const { data, error, loading } = useData(`code|${props.from}|${props.to}|${team ?? ''}`, async () => {
    // Pull requests are of the whole organization (or the member's own); by team for owners and managers.
    const dates = `startDate=${props.from}&endDate=${props.to}`;
    const [days, repos, commits, prs, prRepos, prTeams] = await Promise.all([
      api<Code>(`/api/v1/analytics/code?${range}`),
      api<CodeGrouped>(`/api/v1/analytics/code?${range}&group_by=repo`),
      api<Commits>(`/api/v0/code/commits?${range}&limit=100`),
      api<PullRequestDays>(`/api/v1/analytics/pull_requests?${dates}`),
      api<PullRequestGroups>(`/api/v1/analytics/pull_requests?${dates}&group_by=repo`),
      props.teams ? api<PullRequestGroups>(`/api/v1/analytics/pull_requests?${dates}&group_by=team`) : Promise.resolve({ data: [] }),
    ]);
    return {
      days: days.data,
      totals: days.meta.totals,
      landedByAgent: days.meta?.landed_by_agent ?? [],
      landedByModel: days.meta?.landed_by_model ?? [],
      repos: repos.meta?.group_totals ?? [],
      commits: commits.data,
      more: commits.meta.has_more,
      prs: prs.data,
      prTotals: prs.meta?.totals,
      prRepos: prRepos.meta?.group_totals ?? [],
      prTeams: 'meta' in prTeams ? (prTeams.meta?.group_totals ?? []) : [],
    };
  });
  const days = daysOf(props.from, props.to);
  const rows = data?.days ?? [];
  // The range's figures as the server computed them (meta.totals): the page derives no ratio of its own.
  const inAll = data?.totals;
  // The range's pull request figures as the server computed them (meta.totals), cost per merged one included.
  const prTotals = data?.prTotals;
  return (
    <>
      <h1>Code the agents wrote{team ? `: ${team}` : ''}</h1>
      <p class="muted">
        How much of the code that landed on the default branches the agents wrote. Counted on each developer's machine; no code leaves it.
      </p>
      <RangeForm path={props.path} query={props.query} from={props.from} to={props.to} />
      {props.teams ? <TeamPicker path={props.path} query={props.query} /> : null}
      <Status loading={loading} error={error} />
      {data ? (
        <div data-ready="true">
          <dl class="figures">
            <Figure id="landed-lines" label="Lines landed" value={inAll?.landed_lines_added ?? 0} />
            <Figure id="agent-lines" label="Agent lines landed" value={inAll?.agent_lines_added ?? 0} />
            <Figure id="agent-share" label="Agent share" value={inAll?.agent_share ?? 0} format={formatPercent} />
            <Figure id="landed-commits" label="Commits landed" value={inAll?.commits ?? 0} />
            <Figure id="agent-commits" label="Commits with agent lines" value={inAll?.commits_with_agent_lines ?? 0} />
          </dl>
          <h2>From edit to landed</h2>
          <dl class="figures" data-testid="funnel">
            <Figure id="edit-lines" label="Lines the agents wrote" value={inAll?.edit_lines_added ?? 0} />
            <Figure id="funnel-landed" label="Of them landed" value={inAll?.agent_lines_added ?? 0} />
            <Figure id="landed-rate" label="Landed rate" value={inAll?.landed_rate ?? 0} format={formatPercent} />
          </dl>
          <div class="grid">
            <Chart
              id="code-share"
              title="Agent share of landed lines per day"
              days={days}
              format={formatPercent}
              series={[{ label: 'Agent share', values: landedShareByDay(days, rows) }]}
            />
            <Chart
              id="code-lines"
              title="Lines per day"
              days={days}
              series={[
                {
                  label: 'Agents wrote',
                  values: days.map((d) => rows.find((r) => r.date === d)?.edits.lines_added ?? 0),
                  total: inAll?.edit_lines_added,
                },
                {
                  label: 'Landed',
                  values: days.map((d) => rows.find((r) => r.date === d)?.landed.lines_added ?? 0),
                  total: inAll?.landed_lines_added,
                },
                {
                  label: 'Agent lines landed',
                  values: days.map((d) => rows.find((r) => r.date === d)?.landed.agent_lines_added ?? 0),
                  total: inAll?.agent_lines_added,
                },
              ]}
            />
          </div>
          <div class="grid">
            <TopList
              id="code-agents"
              title="Agent lines landed by agent"
              unit="Lines"
              rows={listed(data.landedByAgent.map((a) => ({ name: a.agent, count: a.lines })))}
            />
            <TopList
              id="code-models"
              title="Agent lines landed by model"
              unit="Lines"
              rows={listed(data.landedByModel.map((m) => ({ name: m.model_id, count: m.lines })))}
            />
            <TopList
              id="code-repos"
              title="Agent lines landed by repository"
              unit="Lines"
              rows={listed(data.repos.map((r) => ({ name: r.group_key, count: r.landed_agent_lines })))}
            />
            <TopList
              id="code-repo-edits"
              title="Lines the agents wrote by repository"
              unit="Lines"
              rows={listed(data.repos.map((r) => ({ name: r.group_key, count: r.edit_lines_added })))}
            />
          </div>
          <h2>Pull requests</h2>
          <p class="muted">
            Merged pull requests from the code host's webhooks (docs/pull-requests.md): their agent lines, what the agent sessions behind
            them cost, and how long they took to merge.
          </p>
          <dl class="figures" data-testid="pull-requests">
            <Figure id="prs-merged" label="Pull requests merged" value={prTotals?.merged ?? 0} />
            <Figure id="prs-agent" label="With agent lines" value={prTotals?.merged_with_agent_lines ?? 0} />
            {prTotals?.cost_per_merged_usd == null ? null : (
              <Figure id="prs-cost" label="Cost per merged pull request" value={prTotals.cost_per_merged_usd} format={formatUsd} />
            )}
          </dl>
          <div class="grid">
            <Chart
              id="prs-per-day"
              title="Pull requests merged per day"
              days={days}
              whole
              series={[
                { label: 'Merged', values: days.map((d) => data.prs.find((r) => r.date === d)?.merged ?? 0), total: prTotals?.merged },
                {
                  label: 'With agent lines',
                  values: days.map((d) => data.prs.find((r) => r.date === d)?.merged_with_agent_lines ?? 0),
                  total: prTotals?.merged_with_agent_lines,
                },
              ]}
            />
            <Chart
              id="prs-share"
              title="Agent share of merged lines per day"
              days={days}
              format={formatPercent}
              series={[
                {
                  label: 'Agent share',
                  values: days.map((d) => {
                    const r = data.prs.find((p) => p.date === d);
                    return r && r.lines_added > 0 ? r.agent_share : null;
                  }),
                },
              ]}
            />
            <Chart
              id="prs-cost"
              title="Cost per merged pull request per day"
              days={days}
              format={formatUsd}
              series={[
                {
                  label: 'Cost per merged pull request',
                  values: days.map((d) => data.prs.find((r) => r.date === d)?.cost_per_merged_usd ?? null),
                },
              ]}
            />
            <Chart
              id="prs-hours"
              title="Median hours to merge per day"
              days={days}
              format={(n) => formatDecimal(n, 1)}
              series={[
                {
                  label: 'Median hours to merge',
                  values: days.map((d) => data.prs.find((r) => r.date === d)?.median_hours_to_merge ?? null),
                },
              ]}
            />
          </div>
          <div class="grid">
            <TopList
              id="prs-repos"
              title="Pull requests merged by repository"
              unit="Pull requests"
              rows={listed(data.prRepos.map((r) => ({ name: r.group_key, count: r.merged })))}
            />
            {props.teams ? (
              <TopList
                id="prs-teams"
                title="Pull requests merged by team"
                unit="Pull requests"
                rows={listed(data.prTeams.map((r) => ({ name: r.group_key, count: r.merged })))}
              />
            ) : null}
          </div>
          <h2>Landed commits</h2>
          {data.commits.length === 0 ? (
            <p class="muted">No landed commits in this range.</p>
          ) : (
            <div class="scroll">
              <table data-testid="landed-commits">
                <caption class="sr-only">Commits that landed, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Committed</th>
                    <th scope="col">Repository</th>
                    <th scope="col">Commit</th>
                    <th scope="col">Author</th>
                    <th scope="col" class="num">
                      Lines
                    </th>
                    <th scope="col" class="num">
                      Agent lines
                    </th>
                    <th scope="col">By agent and model</th>
                  </tr>
                </thead>
                <tbody>
                  {data.commits.map((c) => (
                    <tr
                      key={`${c.repo}:${c.commit}`}
                      data-commit={c.commit}
                      data-lines={String(c.lines_added)}
                      data-agent-lines={String(c.agent_lines)}
                    >
                      <th scope="row">{c.committed_at.replace('T', ' ').slice(0, 16)}</th>
                      <td>{c.repo}</td>
                      <td>
                        <code>{c.commit.slice(0, 10)}</code>
                      </td>
                      <td>{c.user_email ?? ''}</td>
                      <td class="num">{formatNumber(c.lines_added)}</td>
                      <td class="num">{formatNumber(c.agent_lines)}</td>
                      <td>{c.by_agent.map((a) => `${a.agent} ${a.model_id}: ${formatNumber(a.lines)}`).join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {data.more ? <p class="muted">Only the newest 100 are shown; narrow the range to see others.</p> : null}
            </div>
          )}
        </div>
      ) : null}
    </>
  );
}
