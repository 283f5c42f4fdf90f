// The organization over a range: the analytics API's four org-wide answers, as figures, daily charts
// (each with its table) and ranked lists. Every number is a sum or a list of the API's own.
import { api } from '../api.ts';
import type {
  Activity,
  ActivityAgentGroupRow,
  ActivityByAgent,
  ActivityDay,
  EditDecisionGroupRow,
  EditDecisionsByAgent,
  Productivity,
  ProductivityDay,
  TokenAgentGroupRow,
  TokenGroupRow,
  TokensByAgent,
  TokensByModel,
  ToolDay,
  Tools,
} from '../api-types.ts';
import { Chart, Figure, RangeForm, Status, TopList, useData } from '../components.tsx';
import {
  creditsByModel,
  daysOf,
  decisionsByAgent,
  formatDecimal,
  formatNumber,
  formatPercent,
  formatUsd,
  meanOfActiveDays,
  seriesByGroup,
  sum,
  topOf,
} from '../figures.ts';
import { TeamPicker } from './Teams.tsx';
import { TodayTiles } from './Today.tsx';

interface OverviewData {
  tokens: TokenGroupRow[];
  /** Models without a dollar price in the range (docs/metrics.md §8): their cost is not in the dollars. */
  unpricedModels: string[];
  /** group_by=agent, agentmeter's extension of the reference: credits and active users per agent. */
  tokensByAgent: TokenAgentGroupRow[];
  /** Agents used in the range that report no tokens (Cursor): "not reported", never zero. */
  tokensNotReported: string[];
  activityByAgent: ActivityAgentGroupRow[];
  activity: ActivityDay[];
  tools: ToolDay[];
  productivity: ProductivityDay[];
  /** Edit decisions per agent and day (OpenTelemetry, docs/metrics.md §11). */
  decisionsByAgent: EditDecisionGroupRow[];
}

async function load(from: string, to: string, team: string | null): Promise<OverviewData> {
  // team=: every figure over the members of the team and of the teams below it (docs/metrics.md §6).
  const range = `startDate=${from}&endDate=${to}${team ? `&team=${encodeURIComponent(team)}` : ''}`;
  const [tokens, tokensByAgent, activity, activityByAgent, tools, productivity, decisions] = await Promise.all([
    api<TokensByModel>(`/api/v1/analytics/tokens?${range}&group_by=model`),
    api<TokensByAgent>(`/api/v1/analytics/tokens?${range}&group_by=agent`),
    api<Activity>(`/api/v1/analytics/activity?${range}`),
    api<ActivityByAgent>(`/api/v1/analytics/activity?${range}&group_by=agent`),
    api<Tools>(`/api/v1/analytics/tools?${range}`),
    api<Productivity>(`/api/v1/analytics/productivity?${range}`),
    // group_by=team cannot be combined with another grouping; with team= the rows are the team's.
    api<EditDecisionsByAgent>(`/api/v1/analytics/productivity?${range}&group_by=agent`),
  ]);
  return {
    tokens: tokens.data,
    // Read loosely: a page that cannot be drawn from its answers is the error boundary's, not the loader's.
    unpricedModels: tokens.meta?.unpriced_models ?? [],
    tokensByAgent: tokensByAgent.data,
    tokensNotReported: tokensByAgent.meta?.tokens_not_reported ?? [],
    activity: activity.data,
    activityByAgent: activityByAgent.data,
    tools: tools.data,
    productivity: productivity.data,
    decisionsByAgent: decisions.data,
  };
}

export function Overview(props: { path: string; query: URLSearchParams; from: string; to: string }) {
  const team = props.query.get('team');
  const { data, error, loading } = useData(`${props.from}|${props.to}|${team ?? ''}`, () => load(props.from, props.to, team));
  return (
    <>
      <h1>Overview{team ? `: ${team}` : ''}</h1>
      <TodayTiles />
      <RangeForm {...props} />
      <TeamPicker path={props.path} query={props.query} />
      <Status loading={loading} error={error} />
      {data ? <OverviewBody data={data} from={props.from} to={props.to} /> : null}
    </>
  );
}

function OverviewBody({ data, from, to }: { data: OverviewData; from: string; to: string }) {
  const days = daysOf(from, to);
  const credits = creditsByModel(days, data.tokens);
  const dollars = seriesByGroup(days, data.tokens, (r) => r.cost_usd ?? 0);
  const agentDollars = seriesByGroup(days, data.tokensByAgent, (r) => r.cost_usd ?? 0);
  const unpriced = data.unpricedModels.length ? `without ${data.unpricedModels.join(', ')} (no price)` : undefined;
  const agentCredits = seriesByGroup(days, data.tokensByAgent, (r) => r.billable_tokens);
  const agentUsers = seriesByGroup(days, data.activityByAgent, (r) => r.daily_active_users);
  const { activity, tools, productivity } = data;
  const clients: (keyof ActivityDay['daily_active_users_by_client'])[] = ['terminal-ui', 'web', 'non-interactive-cli', 'vscode'];
  const activeTools = (r: ToolDay) => r.tool_calls > 0;
  const autonomy = meanOfActiveDays(tools, (r) => r.autonomy_ratio_avg, activeTools);
  const shares = (['auto_high', 'auto_medium', 'auto_low', 'manual'] as const).map((level) => ({
    label: level.replace('_', ' '),
    values: tools.map((r) => r.tool_autonomy_level_ratio[level]),
  }));
  return (
    <div class="overview" data-ready="true">
      <section aria-labelledby="totals-h">
        <h2 id="totals-h" class="sr-only">
          Totals for {from} to {to}
        </h2>
        <dl class="figures">
          <Figure
            id="cost"
            label="Cost (US dollars, list or own prices)"
            value={sum(data.tokens, (r) => r.cost_usd ?? 0)}
            format={formatUsd}
            {...(unpriced ? { note: unpriced } : {})}
          />
          <Figure id="credits" label="Standard Credits" value={sum(data.tokens, (r) => r.billable_tokens)} />
          <Figure id="sessions" label="Sessions" value={sum(activity, (r) => r.sessions)} />
          <Figure id="messages" label="Messages" value={sum(activity, (r) => r.messages)} />
          <Figure id="tool-calls" label="Tool calls" value={sum(tools, (r) => r.tool_calls)} />
          <Figure id="mau" label={`Monthly active users (${to})`} value={activity.at(-1)?.monthly_active_users ?? 0} />
          <Figure id="files-edited" label="Files edited" value={sum(productivity, (r) => r.files_edited)} />
          <Figure id="files-created" label="Files created" value={sum(productivity, (r) => r.files_created)} />
          <Figure id="commits" label="Commits" value={sum(productivity, (r) => r.git_commits)} />
          <Figure id="prs" label="Pull requests" value={sum(productivity, (r) => r.git_prs_created)} />
          <Figure id="autonomy" label="Autonomy ratio (mean of active days)" value={autonomy} format={(n) => formatDecimal(n)} />
        </dl>
      </section>

      <section aria-labelledby="usage-h">
        <h2 id="usage-h">Usage</h2>
        <div class="grid">
          <Chart
            id="dollars-by-model"
            title="US dollars per day, by model"
            days={days}
            series={dollars.groups.map((m, i) => ({ label: m, values: dollars.values[i]! }))}
          />
          <Chart
            id="credits-by-model"
            title="Standard Credits per day, by model"
            days={days}
            series={credits.models.map((m, i) => ({ label: m, values: credits.values[i]! }))}
          />
          <Chart
            id="active-users"
            whole
            title="Active users (DAU, WAU, MAU)"
            days={days}
            series={[
              { label: 'DAU', values: activity.map((r) => r.daily_active_users) },
              { label: 'WAU', values: activity.map((r) => r.weekly_active_users) },
              { label: 'MAU', values: activity.map((r) => r.monthly_active_users) },
            ]}
          />
          <Chart
            id="dau-by-client"
            whole
            title="Daily active users by client"
            days={days}
            series={clients.map((c) => ({ label: c, values: activity.map((r) => r.daily_active_users_by_client[c]) }))}
          />
          <Chart
            id="sessions-messages"
            whole
            title="Sessions and messages"
            days={days}
            series={[
              { label: 'Sessions', values: activity.map((r) => r.sessions) },
              { label: 'Messages', values: activity.map((r) => r.messages) },
            ]}
          />
        </div>
      </section>

      <section aria-labelledby="agents-h">
        <h2 id="agents-h">By agent</h2>
        <div class="grid">
          <Chart
            id="credits-by-agent"
            title="Standard Credits per day, by agent"
            days={days}
            series={agentCredits.groups.map((a, i) => ({ label: a, values: agentCredits.values[i]! }))}
          />
          <Chart
            id="dau-by-agent"
            whole
            title="Daily active users by agent (a user of two agents counts under each)"
            days={days}
            series={agentUsers.groups.map((a, i) => ({ label: a, values: agentUsers.values[i]! }))}
          />
        </div>
        <div class="grid lists">
          <TopList
            id="agents-dollars"
            title="US dollars by agent"
            unit="$"
            rows={agentDollars.groups.map((name, i) => ({ name, count: Math.round(sum(agentDollars.values[i]!, (v) => v) * 100) / 100 }))}
            notReported={data.tokensNotReported}
          />
          <TopList
            id="agents"
            title="Standard Credits by agent"
            unit="Credits"
            rows={agentCredits.groups.map((name, i) => ({ name, count: sum(agentCredits.values[i]!, (v) => v) }))}
            notReported={data.tokensNotReported}
          />
        </div>
      </section>

      <section aria-labelledby="tools-h">
        <h2 id="tools-h">Tools and autonomy</h2>
        <div class="grid">
          <Chart
            id="tool-calls"
            whole
            title="Tool calls per day"
            days={days}
            series={[{ label: 'Tool calls', values: tools.map((r) => r.tool_calls) }]}
          />
          <Chart
            id="autonomy-ratio"
            title="Autonomy ratio (tool calls per user turn)"
            days={days}
            format={(n) => formatDecimal(n)}
            series={[
              { label: 'Mean', values: tools.map((r) => r.autonomy_ratio_avg) },
              { label: 'p50', values: tools.map((r) => r.autonomy_ratio_p50) },
              { label: 'p90', values: tools.map((r) => r.autonomy_ratio_p90) },
            ]}
          />
          <Chart id="autonomy-levels" title="Share of tool calls by autonomy level" days={days} format={formatPercent} series={shares} />
        </div>
        <div class="grid lists">
          <TopList
            id="tools"
            title="Top tools"
            unit="Calls"
            rows={topOf(tools, (r) => r.by_tool.map((t) => ({ name: t.tool, count: t.invocations })))}
          />
          <TopList
            id="mcp"
            title="MCP servers"
            unit="Calls"
            rows={topOf(tools, (r) => r.mcp_by_server.map((t) => ({ name: t.server, count: t.invocations })))}
          />
          <TopList
            id="skills"
            title="Skills"
            unit="Uses"
            rows={topOf(tools, (r) => r.skills_by_name.map((t) => ({ name: t.name, count: t.count })))}
          />
          <TopList
            id="slash"
            title="Slash commands"
            unit="Uses"
            rows={topOf(tools, (r) => r.slash_commands_by_name.map((t) => ({ name: t.name, count: t.count })))}
          />
          <TopList
            id="hooks"
            title="Hooks that ran"
            unit="Runs"
            rows={topOf(tools, (r) =>
              r.hooks_by_event.map((h) => ({ name: `${h.event} ${h.matcher ? `[${h.matcher}] ` : ''}${h.command}`, count: h.count })),
            )}
          />
        </div>
      </section>

      <section aria-labelledby="output-h">
        <h2 id="output-h">What the agents produced</h2>
        <div class="grid">
          <Chart
            id="files"
            title="Files created and edited"
            days={days}
            series={[
              { label: 'Created', values: productivity.map((r) => r.files_created) },
              { label: 'Edited', values: productivity.map((r) => r.files_edited) },
            ]}
          />
          <Chart
            id="git"
            title="Commits and pull requests"
            days={days}
            series={[
              { label: 'Commits', values: productivity.map((r) => r.git_commits) },
              { label: 'Pull requests', values: productivity.map((r) => r.git_prs_created) },
            ]}
          />
        </div>
        <EditDecisions rows={decisionsByAgent(data.activityByAgent, data.decisionsByAgent)} />
        <div class="grid lists">
          <TopList
            id="languages"
            title="Files by language"
            unit="Files"
            rows={topOf(productivity, (r) => r.by_language.map((l) => ({ name: l.language, count: l.count })))}
          />
          <TopList
            id="extensions"
            title="Files by extension"
            unit="Files"
            rows={topOf(productivity, (r) => r.by_extension.map((l) => ({ name: l.extension, count: l.count })))}
          />
        </div>
      </section>
    </div>
  );
}

/** Edit decisions and the acceptance rate by agent; an agent that reports none reads "not reported". */
function EditDecisions({ rows }: { rows: ReturnType<typeof decisionsByAgent> }) {
  const accepted = sum(rows, (r) => r.accepted);
  const rejected = sum(rows, (r) => r.rejected);
  return (
    <div id="edit-decisions" data-testid="edit-decisions" class="scroll">
      <table>
        <caption>
          Edit decisions by agent (accepted / decided):{' '}
          {accepted + rejected > 0 ? formatPercent(accepted / (accepted + rejected)) : 'not reported'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col" class="num">
              Accepted
            </th>
            <th scope="col" class="num">
              Rejected
            </th>
            <th scope="col" class="num">
              Acceptance rate
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.agent}>
              <th scope="row">{r.agent}</th>
              <td class="num">{r.rate === null ? 'not reported' : formatNumber(r.accepted)}</td>
              <td class="num">{r.rate === null ? 'not reported' : formatNumber(r.rejected)}</td>
              <td class="num">{r.rate === null ? 'not reported' : formatPercent(r.rate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
