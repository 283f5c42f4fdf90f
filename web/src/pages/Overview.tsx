// The organization over a range: the analytics API's four org-wide answers, as figures, daily charts
// (each with its table) and ranked lists. Every figure is the API's own: the range's totals, lists and
// ratios come from each answer's meta.totals (api/analytics/totals.ts); the page only lays them out.
import { api } from '../api.ts';
import type {
  Activity,
  ActivityAgentGroupRow,
  ActivityByAgent,
  ActivityDay,
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
  dollarsByGroup,
  formatDecimal,
  formatNumber,
  formatPercent,
  formatUsd,
  seriesByGroup,
  unpricedNote,
} from '../figures.ts';
import { TeamPicker } from './Teams.tsx';
import { TodayTiles } from './Today.tsx';

type Totals<A extends { meta: unknown }> = NonNullable<(A['meta'] & { totals?: unknown })['totals']>;

interface OverviewData {
  tokens: TokenGroupRow[];
  /** The range's credits and dollars (meta.totals). */
  tokenTotals: Totals<TokensByModel> | undefined;
  /** Each model's credits and dollars over the range (meta.group_totals). */
  modelTotals: NonNullable<TokensByModel['meta']['group_totals']>;
  /** Models without a dollar price in the range (docs/metrics.md §8): their cost is not in the dollars. */
  unpricedModels: string[];
  /** group_by=agent, agentmeter's extension of the reference: credits and active users per agent. */
  tokensByAgent: TokenAgentGroupRow[];
  /** Each agent's credits and dollars over the range (meta.group_totals). */
  agentTotals: NonNullable<TokensByAgent['meta']['group_totals']>;
  /** Agents used in the range that report no tokens (Cursor): "not reported", never zero. */
  tokensNotReported: string[];
  activityByAgent: ActivityAgentGroupRow[];
  activity: ActivityDay[];
  activityTotals: Totals<Activity> | undefined;
  tools: ToolDay[];
  toolTotals: Totals<Tools> | undefined;
  productivity: ProductivityDay[];
  productivityTotals: Totals<Productivity> | undefined;
  /** Edit decisions per agent over the range (OpenTelemetry, docs/metrics.md §11). */
  decisionsByAgent: NonNullable<EditDecisionsByAgent['meta']['by_agent']>;
}

/** An answer's meta.totals, which the server sends on every answer the overview asks for: drawing fails without. */
function drawn<T>(totals: T | undefined, what: string): T {
  if (totals === undefined) throw new Error(`the ${what} answer has no meta.totals`);
  return totals;
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
    tokenTotals: tokens.meta?.totals,
    modelTotals: tokens.meta?.group_totals ?? [],
    // Read loosely: a page that cannot be drawn from its answers is the error boundary's, not the loader's.
    unpricedModels: tokens.meta?.unpriced_models ?? [],
    tokensByAgent: tokensByAgent.data,
    agentTotals: tokensByAgent.meta?.group_totals ?? [],
    tokensNotReported: tokensByAgent.meta?.tokens_not_reported ?? [],
    activity: activity.data,
    activityTotals: activity.meta?.totals,
    activityByAgent: activityByAgent.data,
    tools: tools.data,
    toolTotals: tools.meta?.totals,
    productivity: productivity.data,
    productivityTotals: productivity.meta?.totals,
    decisionsByAgent: decisions.meta?.by_agent ?? [],
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
  const dollars = dollarsByGroup(days, data.tokens);
  const agentCredits = seriesByGroup(days, data.tokensByAgent, (r) => r.billable_tokens);
  const agentUsers = seriesByGroup(days, data.activityByAgent, (r) => r.daily_active_users);
  const { activity, tools, productivity } = data;
  const tokenTotals = drawn(data.tokenTotals, 'tokens');
  const activityTotals = drawn(data.activityTotals, 'activity');
  const toolTotals = drawn(data.toolTotals, 'tools');
  const productivityTotals = drawn(data.productivityTotals, 'productivity');
  const costNote = unpricedNote(tokenTotals.cost_usd ?? null, data.unpricedModels);
  const modelTotal = (model: string) => data.modelTotals.find((t) => t.group_key === model);
  const clients: (keyof ActivityDay['daily_active_users_by_client'])[] = ['terminal-ui', 'web', 'non-interactive-cli', 'vscode'];
  const shares = (['auto_high', 'auto_medium', 'auto_low', 'manual'] as const).map((level) => ({
    label: level.replace('_', ' '),
    values: tools.map((r) => r.tool_autonomy_level_ratio[level]),
  }));
  // The lists by agent, largest first: the server's totals per agent, in cents for the dollars.
  const agentDollars = data.agentTotals
    .flatMap((a) =>
      a.cost_usd === null || a.cost_usd === undefined ? [] : [{ name: a.group_key, count: Math.round(a.cost_usd * 100) / 100 }],
    )
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
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
            // No price at all: no dollars (null), never $0.00; the note names the models.
            value={tokenTotals.cost_usd ?? null}
            format={formatUsd}
            {...(costNote ? { note: costNote } : {})}
          />
          <Figure id="credits" label="Standard Credits" value={tokenTotals.billable_tokens} />
          <Figure id="sessions" label="Sessions" value={activityTotals.sessions} />
          <Figure id="messages" label="Messages" value={activityTotals.messages} />
          <Figure id="tool-calls" label="Tool calls" value={toolTotals.tool_calls} />
          <Figure id="mau" label={`Monthly active users (${to})`} value={activity.at(-1)?.monthly_active_users ?? 0} />
          <Figure id="files-edited" label="Files edited" value={productivityTotals.files_edited} />
          <Figure id="files-created" label="Files created" value={productivityTotals.files_created} />
          <Figure id="commits" label="Commits" value={productivityTotals.git_commits} />
          <Figure id="prs" label="Pull requests" value={productivityTotals.git_prs_created} />
          <Figure
            id="autonomy"
            label="Autonomy ratio (mean of active days)"
            value={toolTotals.autonomy_ratio_avg}
            format={(n) => formatDecimal(n)}
          />
        </dl>
      </section>

      <section aria-labelledby="usage-h">
        <h2 id="usage-h">Usage</h2>
        <div class="grid">
          <Chart
            id="dollars-by-model"
            title="US dollars per day, by model"
            days={days}
            series={dollars.groups.map((m, i) => ({ label: m, values: dollars.values[i]!, total: modelTotal(m)?.cost_usd }))}
          />
          <Chart
            id="credits-by-model"
            title="Standard Credits per day, by model"
            days={days}
            series={credits.models.map((m, i) => ({ label: m, values: credits.values[i]!, total: modelTotal(m)?.billable_tokens }))}
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
              { label: 'Sessions', values: activity.map((r) => r.sessions), total: activityTotals.sessions },
              { label: 'Messages', values: activity.map((r) => r.messages), total: activityTotals.messages },
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
            series={agentCredits.groups.map((a, i) => ({
              label: a,
              values: agentCredits.values[i]!,
              total: data.agentTotals.find((t) => t.group_key === a)?.billable_tokens,
            }))}
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
            rows={agentDollars}
            notReported={data.tokensNotReported}
            noPrice={data.agentTotals.filter((a) => a.cost_usd === null).map((a) => a.group_key)}
          />
          <TopList
            id="agents"
            title="Standard Credits by agent"
            unit="Credits"
            rows={data.agentTotals.map((a) => ({ name: a.group_key, count: a.billable_tokens }))}
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
            series={[{ label: 'Tool calls', values: tools.map((r) => r.tool_calls), total: toolTotals.tool_calls }]}
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
            rows={toolTotals.by_tool.map((t) => ({ name: t.tool, count: t.invocations }))}
          />
          <TopList
            id="mcp"
            title="MCP servers"
            unit="Calls"
            rows={toolTotals.mcp_by_server.map((t) => ({ name: t.server, count: t.invocations }))}
          />
          <TopList id="skills" title="Skills" unit="Uses" rows={toolTotals.skills_by_name.map((t) => ({ name: t.name, count: t.count }))} />
          <TopList
            id="slash"
            title="Slash commands"
            unit="Uses"
            rows={toolTotals.slash_commands_by_name.map((t) => ({ name: t.name, count: t.count }))}
          />
          <TopList
            id="hooks"
            title="Hooks that ran"
            unit="Runs"
            rows={toolTotals.hooks_by_event.map((h) => ({
              name: `${h.event} ${h.matcher ? `[${h.matcher}] ` : ''}${h.command}`,
              count: h.count,
            }))}
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
              { label: 'Created', values: productivity.map((r) => r.files_created), total: productivityTotals.files_created },
              { label: 'Edited', values: productivity.map((r) => r.files_edited), total: productivityTotals.files_edited },
            ]}
          />
          <Chart
            id="git"
            title="Commits and pull requests"
            days={days}
            series={[
              { label: 'Commits', values: productivity.map((r) => r.git_commits), total: productivityTotals.git_commits },
              { label: 'Pull requests', values: productivity.map((r) => r.git_prs_created), total: productivityTotals.git_prs_created },
            ]}
          />
        </div>
        <EditDecisions rows={data.decisionsByAgent} rate={productivityTotals.edit_acceptance_rate} />
        <div class="grid lists">
          <TopList
            id="languages"
            title="Files by language"
            unit="Files"
            rows={productivityTotals.by_language.map((l) => ({ name: l.language, count: l.count }))}
          />
          <TopList
            id="extensions"
            title="Files by extension"
            unit="Files"
            rows={productivityTotals.by_extension.map((l) => ({ name: l.extension, count: l.count }))}
          />
        </div>
      </section>
    </div>
  );
}

/**
 * Edit decisions and the acceptance rate by agent, as the server sums and divides them (meta.by_agent, and
 * the range's rate of meta.totals); an agent that reports none reads "not reported".
 */
function EditDecisions({ rows, rate }: { rows: OverviewData['decisionsByAgent']; rate: number | null }) {
  return (
    <div id="edit-decisions" data-testid="edit-decisions" class="scroll">
      <table>
        <caption>Edit decisions by agent (accepted / decided): {rate === null ? 'not reported' : formatPercent(rate)}</caption>
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
              <td class="num">{r.edit_acceptance_rate === null ? 'not reported' : formatNumber(r.edits_accepted)}</td>
              <td class="num">{r.edit_acceptance_rate === null ? 'not reported' : formatNumber(r.edits_rejected)}</td>
              <td class="num">{r.edit_acceptance_rate === null ? 'not reported' : formatPercent(r.edit_acceptance_rate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
