// One person's days: /api/v0/usage/users/{id}, the same records as /api/v1/analytics/users, and the range's
// figures as the server sums them (meta.totals). Owners and managers open anyone's; a member opens only
// their own ("My usage"): the server enforces it.
import { api } from '../api.ts';
import type { PersonUsage, UserDay } from '../api-types.ts';
import { Chart, Figure, Link, RangeForm, Status, useData } from '../components.tsx';
import { daysOf, formatDecimal, formatNumber, formatUsd } from '../figures.ts';
import { carryRange } from '../router.ts';

export function Person(props: { path: string; query: URLSearchParams; from: string; to: string; userId: string; mine: boolean }) {
  const { data, error, loading } = useData(`${props.userId}|${props.from}|${props.to}`, () =>
    api<PersonUsage>(`/api/v0/usage/users/${encodeURIComponent(props.userId)}?startDate=${props.from}&endDate=${props.to}`),
  );
  const days = daysOf(props.from, props.to);
  const byDay = new Map((data?.data ?? []).map((r) => [r.date, r]));
  const series = (f: (r: UserDay) => number) => days.map((d) => (byDay.has(d) ? f(byDay.get(d)!) : 0));
  const rows = data?.data ?? [];
  return (
    <>
      {props.mine ? null : (
        <p>
          <Link href={carryRange('/people', props.query)}>← People</Link>
        </p>
      )}
      <h1>{props.mine ? 'My usage' : (data?.meta.user_email ?? 'Person')}</h1>
      {data && !props.mine ? <p class="muted">Role: {data.meta.role}</p> : null}
      <RangeForm path={props.path} query={props.query} from={props.from} to={props.to} />
      <Status loading={loading} error={error} />
      {data ? (
        <div data-ready="true">
          <dl class="figures">
            <Figure id="active-days" label="Active days" value={data.meta.totals.active_days} />
            <Figure id="cost" label="Cost (US dollars)" value={data.meta.totals.cost_usd} format={formatUsd} />
            <Figure id="credits" label="Standard Credits" value={data.meta.totals.billable_tokens} />
            <Figure id="sessions" label="Sessions" value={data.meta.totals.sessions} />
            <Figure id="messages" label="Messages" value={data.meta.totals.messages} />
            <Figure id="tool-calls" label="Tool calls" value={data.meta.totals.tool_calls} />
            <Figure id="files-edited" label="Files edited" value={data.meta.totals.files_edited} />
            <Figure id="commits" label="Commits" value={data.meta.totals.git_commits} />
            <Figure id="prs" label="Pull requests" value={data.meta.totals.git_prs_created} />
          </dl>
          <div class="grid">
            <Chart
              id="person-credits"
              title="Standard Credits per day"
              days={days}
              series={[{ label: 'Credits', values: series((r) => r.billable_tokens), total: data.meta.totals.billable_tokens }]}
            />
            <Chart
              id="person-activity"
              whole
              title="Sessions, messages and tool calls"
              days={days}
              series={[
                { label: 'Sessions', values: series((r) => r.sessions), total: data.meta.totals.sessions },
                { label: 'Messages', values: series((r) => r.messages), total: data.meta.totals.messages },
                { label: 'Tool calls', values: series((r) => r.tool_calls), total: data.meta.totals.tool_calls },
              ]}
            />
          </div>
          <h2>Days</h2>
          {rows.length === 0 ? (
            <p class="muted">No activity in this range.</p>
          ) : (
            <div class="scroll">
              <table data-testid="person-days">
                <caption class="sr-only">Each active day</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col" class="num">
                      Credits
                    </th>
                    <th scope="col">Primary model</th>
                    <th scope="col" class="num">
                      Sessions
                    </th>
                    <th scope="col" class="num">
                      Messages
                    </th>
                    <th scope="col" class="num">
                      Tool calls
                    </th>
                    <th scope="col" class="num">
                      Autonomy
                    </th>
                    <th scope="col" class="num">
                      Files edited
                    </th>
                    <th scope="col" class="num">
                      Commits
                    </th>
                    <th scope="col">Languages</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.date}>
                      <th scope="row">{r.date}</th>
                      <td class="num">{formatNumber(r.billable_tokens)}</td>
                      <td>{r.primary_model ?? ''}</td>
                      <td class="num">{formatNumber(r.sessions)}</td>
                      <td class="num">{formatNumber(r.messages)}</td>
                      <td class="num">{formatNumber(r.tool_calls)}</td>
                      <td class="num">{r.autonomy_ratio === null ? '' : formatDecimal(r.autonomy_ratio)}</td>
                      <td class="num">{formatNumber(r.files_edited)}</td>
                      <td class="num">{formatNumber(r.git_commits)}</td>
                      <td>{r.languages.join(', ')}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ) : null}
    </>
  );
}
