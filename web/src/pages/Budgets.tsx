// Budgets: each budget's usage this month (US dollars or Standard Credits) as a bar with its thresholds
// marked, the alerts fired with the state of each delivery, and for owners a form that sets or removes one
// budget (PATCH /api/v0/organization/budgets, as `agentmeter budgets set` does; docs/budgets.md).
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Alerts, Budget, Budgets as BudgetList, Forecast, Me } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { type BudgetFields, budgetRequest, formatAmount, formatNumber, formatUsd } from '../figures.ts';

const whose = (b: { scope: string; team?: string; email?: string }) =>
  b.scope === 'org' ? 'Organization' : b.scope === 'team' ? `Team ${b.team}` : (b.email ?? 'user');

/** The month's usage as a bar out of the budget, the thresholds as marks (SVG: no inline styles). */
function BudgetBar({ b }: { b: Budget }) {
  const scale = Math.max(100, b.percentage, ...b.thresholds);
  const x = (p: number) => `${(Math.min(p, scale) / scale) * 100}%`;
  return (
    <svg class="budget-bar" width="100%" height="22" role="img" aria-label={`${b.percentage}% of the budget used`}>
      <rect x="0" y="4" width="100%" height="14" class="budget-track" />
      <rect x="0" y="4" width={x(b.percentage)} height="14" class={b.percentage >= 100 ? 'budget-over' : 'budget-used'} />
      {b.thresholds.map((t) => (
        <line key={t} x1={x(t)} x2={x(t)} y1="0" y2="22" class="budget-mark">
          <title>{t}%</title>
        </line>
      ))}
    </svg>
  );
}

/** The form's fields, as typed (budgetRequest in figures.ts checks them and makes the request). */
type BudgetDraft = BudgetFields;
const EMPTY: BudgetDraft = {
  scope: 'org',
  who: '',
  unit: 'usd',
  amount: '',
  thresholds: '50, 75, 90, 100',
  slack: '',
  webhook: '',
  secret: '',
};

function BudgetForm(props: { onSaved: () => void }) {
  const [draft, setDraft] = useState<BudgetDraft>(EMPTY);
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();
  const field =
    <K extends keyof BudgetDraft>(key: K) =>
    (e: Event) =>
      setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value as BudgetDraft[K] });
  const send = async (remove: boolean) => {
    const request = budgetRequest(draft, remove);
    if ('problem' in request) {
      setMessage({ text: request.problem, error: true });
      return;
    }
    try {
      await api('/api/v0/organization/budgets', { method: 'PATCH', body: request.body });
      setMessage({ text: remove ? 'Budget removed' : 'Budget saved', error: false });
      setDraft(EMPTY);
      props.onSaved();
    } catch (error) {
      setMessage({ text: (error as Error).message, error: true });
    }
  };
  return (
    <section aria-labelledby="budget-form-h">
      <h2 id="budget-form-h">Set a budget</h2>
      <form
        class="budget-form"
        data-testid="budget-form"
        onSubmit={(e) => {
          e.preventDefault();
          void send(false);
        }}
      >
        <label>
          For{' '}
          <select value={draft.scope} onChange={field('scope')} name="scope">
            <option value="org">the organization</option>
            <option value="team">a team</option>
            <option value="user">a person</option>
          </select>
        </label>
        {draft.scope !== 'org' ? (
          <label>
            {draft.scope === 'team' ? 'Team' : 'E-mail'} <input name="who" value={draft.who} onInput={field('who')} required />
          </label>
        ) : null}
        <label>
          Per month <input name="amount" inputMode="decimal" value={draft.amount} onInput={field('amount')} required size={10} />
        </label>
        <label>
          in{' '}
          <select value={draft.unit} onChange={field('unit')} name="unit">
            <option value="usd">US dollars</option>
            <option value="credits">Standard Credits</option>
          </select>
        </label>
        <label>
          Alerts at (%) <input name="thresholds" value={draft.thresholds} onInput={field('thresholds')} size={16} />
        </label>
        <label>
          Slack webhook URL <input name="slack" type="url" value={draft.slack} onInput={field('slack')} size={30} />
        </label>
        <label>
          Webhook URL <input name="webhook" type="url" value={draft.webhook} onInput={field('webhook')} size={30} />
        </label>
        {draft.webhook ? (
          <label>
            Webhook secret <input name="secret" type="password" value={draft.secret} onInput={field('secret')} autoComplete="off" />
          </label>
        ) : null}
        <button type="submit">Save</button>{' '}
        <button type="button" onClick={() => void send(true)}>
          Remove this budget
        </button>
      </form>
      <p role="status" class={message?.error ? 'error' : 'ok'} data-testid="budget-message">
        {message?.text ?? ''}
      </p>
    </section>
  );
}

/** The month-end forecast (docs/metrics.md §9): the organization, then each team and person with a budget. */
function ForecastTable({ forecast }: { forecast: Forecast }) {
  const rows = [
    { name: 'Organization', p: forecast.organization },
    ...forecast.teams.map((t) => ({ name: `Team ${t.team}`, p: t })),
    ...forecast.users.map((u) => ({ name: u.email, p: u })),
  ];
  return (
    <section aria-labelledby="forecast-h">
      <h2 id="forecast-h">
        Month-end forecast{' '}
        <span class="muted">
          ({forecast.days_left} days left; from the mean, lowest and highest of {forecast.window.from} to {forecast.window.to})
        </span>
      </h2>
      <div class="scroll">
        <table data-testid="forecast">
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col" class="num">
                So far
              </th>
              <th scope="col" class="num">
                Forecast (low–high)
              </th>
              <th scope="col" class="num">
                Credits forecast
              </th>
              <th scope="col">Budget</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ name, p }) => (
              <tr key={name} data-forecast={name} data-at-risk={String(p.budget?.at_risk ?? false)}>
                <td>{name}</td>
                <td class="num">{formatUsd(p.usd.month_to_date)}</td>
                <td class="num">
                  {formatUsd(p.usd.forecast)} ({formatUsd(p.usd.low)}–{formatUsd(p.usd.high)})
                </td>
                <td class="num">{formatNumber(p.credits.forecast)}</td>
                <td>{p.budget ? `${formatAmount(p.budget.limit, p.budget.unit)}${p.budget.at_risk ? ' — at risk' : ''}` : 'none'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function Budgets(props: { me: Me }) {
  const [version, setVersion] = useState(0);
  const { data, error, loading } = useData(`budgets|${version}`, async () => {
    const [budgets, alerts, forecast] = await Promise.all([
      api<BudgetList>('/api/v0/organization/budgets'),
      api<Alerts>('/api/v0/organization/alerts'),
      api<Forecast>('/api/v0/organization/forecast'),
    ]);
    return { ...budgets, alerts: alerts.alerts, forecast };
  });
  return (
    <>
      <h1>Budgets</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <div data-ready="true">
          <section aria-labelledby="budgets-h">
            <h2 id="budgets-h">This month ({data.month}, UTC; today's usage included)</h2>
            {data.budgets.length === 0 ? (
              <p class="muted">No budgets yet. An owner sets them below, or with `agentmeter budgets set` (see docs/budgets.md).</p>
            ) : (
              <ul class="budgets">
                {data.budgets.map((b) => (
                  <li key={`${b.scope}|${b.team ?? b.email ?? ''}`} data-budget={whose(b)} data-percentage={String(b.percentage)}>
                    <div class="budget-head">
                      <strong>{whose(b)}</strong>
                      <span>
                        {formatAmount(b.usage, b.unit).replace(' Standard Credits', '')} of{' '}
                        {formatAmount(b.monthlyUsd ?? b.monthlyCredits ?? 0, b.unit)} ({b.percentage}%) · alerts at{' '}
                        {b.thresholds.map((t) => `${t}%`).join(', ')}
                        {b.destinations.length ? ` → ${b.destinations.map((d) => d.type).join(', ')}` : ' (no destination)'}
                      </span>
                    </div>
                    <BudgetBar b={b} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          <ForecastTable forecast={data.forecast} />
          <section aria-labelledby="alerts-h">
            <h2 id="alerts-h">Alerts</h2>
            {data.alerts.length === 0 ? (
              <p class="muted">No alert has fired.</p>
            ) : (
              <table data-testid="alerts">
                <thead>
                  <tr>
                    <th scope="col">Fired (UTC)</th>
                    <th scope="col">Budget</th>
                    <th scope="col">Threshold</th>
                    <th scope="col">Usage / limit</th>
                    <th scope="col">Delivery</th>
                  </tr>
                </thead>
                <tbody>
                  {data.alerts.map((a) => (
                    <tr key={a.id}>
                      <td>{a.fired_at.slice(0, 16).replace('T', ' ')}</td>
                      <td>{whose(a.budget)}</td>
                      <td class="num">{a.threshold}%</td>
                      <td class="num">
                        {formatAmount(a.usage, a.unit)} / {formatAmount(a.limit, a.unit)}
                      </td>
                      <td>
                        {a.deliveries.length === 0
                          ? 'no destination'
                          : a.deliveries
                              .map((d) => `${d.type}: ${d.state}${d.state === 'undelivered' && d.last_error ? ` (${d.last_error})` : ''}`)
                              .join('; ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </div>
      ) : null}
      {/* Outside the answer's block: it stays (with its message) while the list loads again. */}
      {props.me.role === 'owner' ? <BudgetForm onSaved={() => setVersion((v) => v + 1)} /> : null}
    </>
  );
}
