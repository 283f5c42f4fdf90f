// Budgets: each budget's usage this month (US dollars or Standard Credits) as a bar with its thresholds
// marked, the month-end forecast, the alerts fired (budget thresholds, cost anomalies, weekly digests) with
// the state of each delivery, the anomaly and digest settings, a preview of the next Monday digest (the
// server's own builder, GET /api/v0/organization/digest/preview), and for owners the forms that set or
// remove one budget (PATCH /api/v0/organization/budgets, as `agentmeter budgets set` does) and the anomaly
// and digest settings (PATCH /api/v0/organization/alert-settings, as `agentmeter alerts` does; docs/budgets.md).
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { AlertSettings, Alerts, Budget, Budgets as BudgetList, DigestPreview, Forecast, Me } from '../api-types.ts';
import { Status, useData } from '../components.tsx';
import {
  type AlertSettingsFields,
  alertSettingsRequest,
  type BudgetFields,
  budgetRequest,
  digestChangeText,
  digestCostText,
  formatAmount,
  formatNumber,
  formatPercent,
  formatUsd,
} from '../figures.ts';

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

const deliveryText = (ds: Alerts['anomalies'][number]['deliveries']) =>
  ds.length === 0
    ? 'no destination'
    : ds.map((d) => `${d.type}: ${d.state}${d.state === 'undelivered' && d.last_error ? ` (${d.last_error})` : ''}`).join('; ');

/** Cost anomalies (docs/metrics.md §9), newest first. */
function AnomalyTable({ anomalies }: { anomalies: Alerts['anomalies'] }) {
  return (
    <section aria-labelledby="anomalies-h">
      <h2 id="anomalies-h">Cost anomalies</h2>
      {anomalies.length === 0 ? (
        <p class="muted">No anomaly: no day above 3× its median and the floor.</p>
      ) : (
        <table data-testid="anomalies">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Who</th>
              <th scope="col" class="num">
                Cost
              </th>
              <th scope="col" class="num">
                Median day
              </th>
              <th scope="col">Delivery</th>
            </tr>
          </thead>
          <tbody>
            {anomalies.map((a) => (
              <tr key={a.id} data-anomaly={a.scope === 'user' ? a.email : `Team ${a.team}`} data-cost={String(a.cost_usd)}>
                <td>{a.day}</td>
                <td>{a.scope === 'user' ? a.email : `Team ${a.team}`}</td>
                <td class="num">{formatUsd(a.cost_usd)}</td>
                <td class="num">
                  {formatUsd(a.median_usd)} ({a.days_with_usage} days)
                </td>
                <td>{deliveryText(a.deliveries)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Weekly digests sent, newest week first. */
function DigestTable({ digests }: { digests: Alerts['digests'] }) {
  if (digests.length === 0) return null;
  return (
    <section aria-labelledby="digests-h">
      <h2 id="digests-h">Weekly digests sent</h2>
      <table data-testid="digests">
        <thead>
          <tr>
            <th scope="col">Week (UTC)</th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Sent</th>
            <th scope="col">Delivery</th>
          </tr>
        </thead>
        <tbody>
          {digests.map((d) => (
            <tr key={d.id}>
              <td>
                {d.week.from} to {d.week.to}
              </td>
              <td class="num">{digestCostText(d.cost_usd)}</td>
              <td>{d.sent_at.slice(0, 16).replace('T', ' ')}</td>
              <td>{deliveryText(d.deliveries)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const destinationsText = (ds: AlertSettings['digest']['destinations']) =>
  ds.length ? ds.map((d) => `${d.type} ${d.url}`).join(', ') : 'nowhere';

function SettingsSummary({ settings }: { settings: AlertSettings }) {
  const a = settings.anomalies;
  return (
    <section aria-labelledby="alert-settings-h">
      <h2 id="alert-settings-h">Anomalies and the weekly digest</h2>
      <p data-testid="anomaly-settings">
        An anomaly is a person's or team's day above {a.multiple}× their median day with usage of the {a.historyDays} before (at least{' '}
        {a.minDaysWithUsage} such days) and above {formatUsd(a.floorUsd)}; sent to {destinationsText(a.destinations)}.
      </p>
      <p data-testid="digest-settings">
        {settings.digest.next
          ? `The digest goes out on Mondays at 09:00 UTC to ${destinationsText(settings.digest.destinations)}; next ${settings.digest.next.slice(0, 16).replace('T', ' ')} UTC.`
          : 'The weekly digest is off (no destination).'}
      </p>
    </section>
  );
}

/** The next digest as the server builds it. */
function DigestPreviewSection({ preview }: { preview: DigestPreview }) {
  const d = preview.digest;
  const list = (rows: { name: string; cost: number }[]) =>
    rows.length ? (
      <ol>
        {rows.map((r) => (
          <li key={r.name}>
            {r.name}: {formatUsd(r.cost)}
          </li>
        ))}
      </ol>
    ) : (
      <p class="muted">none</p>
    );
  return (
    <section aria-labelledby="digest-preview-h" data-testid="digest-preview" data-cost={String(d.cost_usd)}>
      <h2 id="digest-preview-h">
        Next weekly digest{' '}
        <span class="muted">
          ({d.week.from} to {d.week.to}; sent {preview.sends_at.slice(0, 16).replace('T', ' ')} UTC
          {preview.complete ? '' : ', the week so far'}
          {preview.destinations ? '' : '; off: no destination'})
        </span>
      </h2>
      <p>
        {d.cost_usd === null ? (
          <strong>no dollars: the week's usage{d.unpriced_models?.length ? ` (${d.unpriced_models.join(', ')})` : ''} had no price</strong>
        ) : (
          <strong>{formatUsd(d.cost_usd)}</strong>
        )}
        {d.cost_usd !== null && d.unpriced_models?.length ? (
          <span class="muted"> without {d.unpriced_models.join(', ')} (no price)</span>
        ) : null}
        , <span data-testid="digest-change">{digestChangeText(d)}</span>; landed agent share {formatPercent(d.landed.agent_share)} (
        {formatNumber(d.landed.agent_lines)} of {formatNumber(d.landed.lines_added)} lines).
      </p>
      <div class="digest-columns">
        <div>
          <h3>Top teams</h3>
          {list(d.top_teams.map((t) => ({ name: t.team, cost: t.cost_usd })))}
        </div>
        <div>
          <h3>Top people</h3>
          {list(d.top_people.map((p) => ({ name: p.email, cost: p.cost_usd })))}
        </div>
        <div>
          <h3>Top models</h3>
          {list(d.top_models.map((m) => ({ name: m.model, cost: m.cost_usd })))}
        </div>
      </div>
      <h3>Anomalies</h3>
      {d.anomalies.length ? (
        <ul data-testid="digest-anomalies">
          {d.anomalies.map((a) => (
            <li key={`${a.scope}|${a.email ?? a.team}|${a.day}`}>
              {a.day} {a.scope === 'user' ? a.email : `Team ${a.team}`}: {formatUsd(a.cost_usd)} (median {formatUsd(a.median_usd)})
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">none</p>
      )}
      <h3>Budgets at risk (forecast of {d.forecast_date})</h3>
      {d.budgets_at_risk.length ? (
        <ul>
          {d.budgets_at_risk.map((b) => (
            <li key={`${b.scope}|${b.team ?? b.email ?? ''}`}>
              {b.scope === 'org' ? 'Organization' : b.scope === 'team' ? `Team ${b.team}` : b.email}: {formatAmount(b.forecast, b.unit)}{' '}
              forecast of {formatAmount(b.limit, b.unit)}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">none</p>
      )}
    </section>
  );
}

/** The form's fields, pre-filled with the settings as shown (a masked URL stands for the stored one). */
const settingsFields = (s: AlertSettings): AlertSettingsFields => {
  const url = (ds: AlertSettings['digest']['destinations'], type: 'slack' | 'webhook') => ds.find((d) => d.type === type)?.url ?? '';
  return {
    floor: String(s.anomalies.floorUsd),
    anomalySlack: url(s.anomalies.destinations, 'slack'),
    anomalyWebhook: url(s.anomalies.destinations, 'webhook'),
    anomalySecret: '',
    digestSlack: url(s.digest.destinations, 'slack'),
    digestWebhook: url(s.digest.destinations, 'webhook'),
    digestSecret: '',
  };
};

function AlertSettingsForm(props: { settings: AlertSettings; onSaved: () => void }) {
  const [draft, setDraft] = useState<AlertSettingsFields>(() => settingsFields(props.settings));
  const [message, setMessage] = useState<{ text: string; error: boolean } | undefined>();
  const field = (key: keyof AlertSettingsFields) => (e: Event) =>
    setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value });
  const send = async () => {
    const request = alertSettingsRequest(draft);
    if ('problem' in request) {
      setMessage({ text: request.problem, error: true });
      return;
    }
    try {
      await api('/api/v0/organization/alert-settings', { method: 'PATCH', body: request.body });
      setMessage({ text: 'Settings saved', error: false });
      props.onSaved();
    } catch (error) {
      setMessage({ text: (error as Error).message, error: true });
    }
  };
  return (
    <section aria-labelledby="alert-settings-form-h">
      <h2 id="alert-settings-form-h">Set anomaly alerts and the weekly digest</h2>
      <form
        class="budget-form"
        data-testid="alert-settings-form"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label>
          Anomaly floor (US dollars) <input name="floor" inputMode="decimal" value={draft.floor} onInput={field('floor')} size={8} />
        </label>
        <label>
          Anomalies to Slack <input name="anomalySlack" value={draft.anomalySlack} onInput={field('anomalySlack')} size={30} />
        </label>
        <label>
          Anomalies to a webhook <input name="anomalyWebhook" value={draft.anomalyWebhook} onInput={field('anomalyWebhook')} size={30} />
        </label>
        {draft.anomalyWebhook ? (
          <label>
            Its secret{' '}
            <input name="anomalySecret" type="password" value={draft.anomalySecret} onInput={field('anomalySecret')} autoComplete="off" />
          </label>
        ) : null}
        <label>
          Digest to Slack <input name="digestSlack" value={draft.digestSlack} onInput={field('digestSlack')} size={30} />
        </label>
        <label>
          Digest to a webhook <input name="digestWebhook" value={draft.digestWebhook} onInput={field('digestWebhook')} size={30} />
        </label>
        {draft.digestWebhook ? (
          <label>
            Its secret{' '}
            <input name="digestSecret" type="password" value={draft.digestSecret} onInput={field('digestSecret')} autoComplete="off" />
          </label>
        ) : null}
        <button type="submit">Save alert settings</button>
      </form>
      <p role="status" class={message?.error ? 'error' : 'ok'} data-testid="alert-settings-message">
        {message?.text ?? ''}
      </p>
    </section>
  );
}

/** The settings form, loaded once on its own: it stays (with its message) while the page's figures load again. */
function AlertSettingsEditor(props: { onSaved: () => void }) {
  const { data } = useData('alert-settings-form', () => api<AlertSettings>('/api/v0/organization/alert-settings'));
  return data ? <AlertSettingsForm settings={data} onSaved={props.onSaved} /> : null;
}

export function Budgets(props: { me: Me }) {
  const [version, setVersion] = useState(0);
  const { data, error, loading } = useData(`budgets|${version}`, async () => {
    const [budgets, alerts, forecast, settings, preview] = await Promise.all([
      api<BudgetList>('/api/v0/organization/budgets'),
      api<Alerts>('/api/v0/organization/alerts'),
      api<Forecast>('/api/v0/organization/forecast'),
      api<AlertSettings>('/api/v0/organization/alert-settings'),
      api<DigestPreview>('/api/v0/organization/digest/preview'),
    ]);
    return { ...budgets, alerts: alerts.alerts, anomalies: alerts.anomalies, digests: alerts.digests, forecast, settings, preview };
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
          <AnomalyTable anomalies={data.anomalies} />
          <DigestTable digests={data.digests} />
          <SettingsSummary settings={data.settings} />
          <DigestPreviewSection preview={data.preview} />
        </div>
      ) : null}
      {/* Outside the answer's block: they stay (with their messages) while the list loads again. */}
      {props.me.role === 'owner' ? <BudgetForm onSaved={() => setVersion((v) => v + 1)} /> : null}
      {props.me.role === 'owner' ? <AlertSettingsEditor onSaved={() => setVersion((v) => v + 1)} /> : null}
    </>
  );
}
