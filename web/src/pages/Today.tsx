// Today so far: the current UTC day's tiles from GET /api/v1/analytics/today, beside the range's figures,
// fetched again every minute while the page is open. Marked provisional: the nightly batch writes the
// final figures.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Today } from '../api-types.ts';
import { Figure } from '../components.tsx';
import { formatUsd, unpricedNote } from '../figures.ts';

export const TODAY_REFRESH_MS = 60_000;

export function TodayTiles() {
  const [today, setToday] = useState<Today['data'] | undefined>();
  const [unpriced, setUnpriced] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const load = () =>
      api<Today>('/api/v1/analytics/today').then(
        (t) => {
          if (!live) return;
          setToday(t.data);
          setUnpriced(t.meta.unpriced_models);
          setError(undefined);
        },
        (e: Error) => live && setError(e.message),
      );
    void load();
    const timer = setInterval(load, TODAY_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  if (!today) return error ? <p class="muted">Today so far: {error}</p> : null;
  const asOf = today.as_of ? `, as of ${today.as_of.slice(11, 16)} UTC` : '';
  const costNote = unpricedNote(today.tokens.cost_usd ?? null, unpriced);
  return (
    <section aria-labelledby="today-h" class="today" data-testid="today" data-date={today.date}>
      <h2 id="today-h">
        Today so far{' '}
        <span class="muted">
          ({today.date}, provisional{asOf}; refreshed every minute)
        </span>
      </h2>
      <dl class="figures">
        <Figure
          id="today-cost"
          label="Cost today (US dollars)"
          value={today.tokens.cost_usd ?? null}
          format={formatUsd}
          {...(costNote ? { note: costNote } : {})}
        />
        <Figure id="today-credits" label="Standard Credits today" value={today.tokens.billable_tokens} />
        <Figure id="today-active" label="Active people today" value={today.activity.daily_active_users} />
        <Figure id="today-tool-calls" label="Tool calls today" value={today.tools.tool_calls} />
        <Figure id="today-sessions" label="Sessions today" value={today.activity.sessions} />
      </dl>
    </section>
  );
}
