// Budgets: each budget's credits this month as a bar with its thresholds marked, and the alerts fired
// with the state of each delivery. Read-only: owners put the list through the API (docs/budgets.md).
import { api } from '../api.ts';
import type { Alerts, Budget, Budgets as BudgetList } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import { formatAmount } from '../figures.ts';

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

export function Budgets() {
  const { data, error, loading } = useData('budgets', async () => {
    const [budgets, alerts] = await Promise.all([
      api<BudgetList>('/api/v0/organization/budgets'),
      api<Alerts>('/api/v0/organization/alerts'),
    ]);
    return { ...budgets, alerts: alerts.alerts };
  });
  return (
    <>
      <h1>Budgets</h1>
      <Status loading={loading} error={error} />
      {data ? (
        <div data-ready="true">
          <section aria-labelledby="budgets-h">
            <h2 id="budgets-h">This month ({data.month}, UTC; today's credits included)</h2>
            {data.budgets.length === 0 ? (
              <p class="muted">No budgets yet. An owner sets them with PUT /api/v0/organization/budgets (see docs/budgets.md).</p>
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
    </>
  );
}
