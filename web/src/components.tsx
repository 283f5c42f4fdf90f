// Shared pieces: links that route without a reload, the date-range form, figures, charts (uPlot) with a
// data table beside each, ranked lists, and the loading and error states.
import type { ComponentChildren, TargetedMouseEvent } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { formatCompact, formatNumber, WHOLE_INCRS, wholeAxisLabels } from './figures.ts';
import { navigate, withQuery } from './router.ts';

export function Link(props: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const onClick = (e: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} onClick={onClick} aria-current={props.current ? 'page' : undefined}>
      {props.children}
    </a>
  );
}

/**
 * Loads data for a key; re-runs when the key changes, and drops answers to an older key. The requests
 * start as the page renders (a layout effect), not a frame later: they are what a page waits for.
 */
export function useData<T>(key: string, load: () => Promise<T>): { data?: T; error?: string; loading: boolean } {
  const [state, setState] = useState<{ key: string; data?: T; error?: string }>({ key: '' });
  useLayoutEffect(() => {
    let live = true;
    setState({ key: '' });
    load().then(
      (data) => live && setState({ key, data }),
      (error: Error) => live && setState({ key, error: error.message }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  if (state.key !== key) return { loading: true };
  return { ...(state.data === undefined ? {} : { data: state.data }), ...(state.error ? { error: state.error } : {}), loading: false };
}

export function Status(props: { loading: boolean; error?: string | undefined }) {
  if (props.error)
    return (
      <p class="error" role="alert">
        {props.error}
      </p>
    );
  if (props.loading)
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  return null;
}

export function RangeForm(props: { path: string; query: URLSearchParams; from: string; to: string }) {
  const [from, setFrom] = useState(props.from);
  const [to, setTo] = useState(props.to);
  useEffect(() => {
    setFrom(props.from);
    setTo(props.to);
  }, [props.from, props.to]);
  const submit = (e: Event) => {
    e.preventDefault();
    navigate(withQuery(props.path, props.query, { from, to, page: null, cursor: null }));
  };
  return (
    <form class="range" onSubmit={submit} aria-label="Date range">
      <label>
        From <input type="date" value={from} required onInput={(e) => setFrom(e.currentTarget.value)} />
      </label>
      <label>
        To <input type="date" value={to} required onInput={(e) => setTo(e.currentTarget.value)} />
      </label>
      <button type="submit">Apply</button>
      <span class="muted">UTC days; data up to yesterday</span>
    </form>
  );
}

/** `value` null: a figure with no value (dollars of usage without a price), shown as "—", never as 0. */
export function Figure(props: { label: string; value: number | null; format?: (n: number) => string; id: string; note?: string }) {
  return (
    <div class="figure" data-figure={props.id} data-value={String(props.value)}>
      <dt>{props.label}</dt>
      <dd>
        {props.value === null ? '—' : (props.format ?? formatNumber)(props.value)}
        {props.note ? <span class="muted"> {props.note}</span> : null}
      </dd>
    </div>
  );
}

const COLORS = ['#1f4e8c', '#c0392b', '#1e8449', '#b9770e', '#6c3483', '#117a8b', '#7b7d7d', '#a93226', '#2e86c1', '#d35400'];

export interface Series {
  label: string;
  /** One value a day; null where the day has none (a gap in the line, '–' in the table). */
  values: (number | null)[];
  /**
   * The range's total as the server gives it (meta.totals), read out to a screen reader; absent for what
   * does not add up over days (people, ratios, medians).
   */
  total?: number | null | undefined;
}

/**
 * A line chart of daily values (uPlot: a canvas, so hundreds of points cost nothing). Hovering shows
 * each series' value for the day in the legend; the "Table" button shows every number as a table, which
 * is also what a screen reader reads (the canvas is hidden from it).
 */
/** `whole`: the series count people or things, so the axis shows whole numbers only. */
export function Chart(props: {
  id: string;
  title: string;
  days: string[];
  series: Series[];
  format?: (n: number) => string;
  whole?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [table, setTable] = useState(false);
  const format = props.format ?? formatNumber;
  useEffect(() => {
    const el = box.current;
    if (!el || props.days.length === 0) return;
    const xs = props.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: Math.max(el.clientWidth, 280),
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        cursor: { focus: { prox: 16 } },
        scales: { x: { time: true } },
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '' : new Date(v * 1000).toISOString().slice(0, 10)) },
          ...props.series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length]!,
            width: 2,
            points: { show: props.days.length <= 31 },
            value: (_u: uPlot, v: number | null) => (v == null ? '' : format(v)),
          })),
        ],
        // Axis labels short (1.2M), the exact numbers in the legend and the table.
        axes: [
          {},
          props.whole
            ? { values: (_u, splits) => wholeAxisLabels(splits, formatCompact), incrs: WHOLE_INCRS, size: 56 }
            : { values: (_u, splits) => splits.map((v) => (format === formatNumber ? formatCompact(v) : format(v))), size: 56 },
        ],
        // A count's axis starts at 0 and never ends below 1, so a flat line of 1 user has a tick at 1.
        ...(props.whole
          ? {
              scales: {
                x: { time: true },
                y: { range: (_u: uPlot, _min: number, max: number) => [0, Math.max(1, Math.ceil(max * 1.1))] as [number, number] },
              },
            }
          : {}),
      },
      [xs, ...props.series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 280), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.days, props.series]);
  const tableId = `${props.id}-table`;
  return (
    <figure class="chart" data-chart={props.id}>
      <figcaption>
        <h3>{props.title}</h3>
        <button type="button" class="link" aria-expanded={table} aria-controls={tableId} onClick={() => setTable(!table)}>
          {table ? 'Hide table' : 'Table'}
        </button>
      </figcaption>
      <div ref={box} class="plot" aria-hidden="true" />
      {table ? (
        <div class="scroll" id={tableId}>
          <table>
            <caption class="sr-only">{props.title}, by day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {props.series.map((s) => (
                  <th scope="col" key={s.label} class="num">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.days.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  {props.series.map((s) => (
                    <td key={s.label} class="num">
                      {s.values[i] === null ? '–' : format(s.values[i] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="sr-only">
          {props.title}: {props.series.map((s) => (s.total == null ? s.label : `${s.label} ${format(s.total)} in total`)).join('; ')}. Use
          the Table button for each day.
        </p>
      )}
    </figure>
  );
}

/** A ranked list as a table, with a share bar that is decoration only. */
/**
 * The largest rows first, as bars. `notReported` names what had no figure to count (an agent that reports
 * no tokens): listed after the rows as "not reported", never as zero.
 */
export function TopList(props: {
  id: string;
  title: string;
  rows: { name: string; count: number }[];
  unit: string;
  limit?: number;
  notReported?: readonly string[];
  /** Names whose figure is dollars none of which had a price (docs/metrics.md §8): listed as "no price". */
  noPrice?: readonly string[];
}) {
  const rows = props.rows.slice(0, props.limit ?? 10);
  const max = rows[0]?.count ?? 0;
  // Named without a figure, after those with one: what the row says instead.
  const unvalued = [
    ...(props.notReported ?? []).map((name) => ({ name, says: 'not reported' })),
    ...(props.noPrice ?? []).map((name) => ({ name, says: 'no price' })),
  ];
  return (
    <section class="card toplist" data-top={props.id} aria-labelledby={`${props.id}-h`}>
      <h3 id={`${props.id}-h`}>{props.title}</h3>
      {rows.length === 0 && unvalued.length === 0 ? (
        <p class="muted">None in this range.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" class="num">
                {props.unit}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name} data-name={r.name} data-value={String(r.count)}>
                <th scope="row" class="name">
                  <span class="bar" style={{ width: `${max ? (100 * r.count) / max : 0}%` }} aria-hidden="true" />
                  <span class="label">{r.name}</span>
                </th>
                <td class="num">{formatNumber(r.count)}</td>
              </tr>
            ))}
            {unvalued.map(({ name, says }) => (
              <tr key={`${says}-${name}`} data-name={name} data-value={says}>
                <th scope="row" class="name">
                  <span class="label">{name}</span>
                </th>
                <td class="num muted">{says}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.rows.length > rows.length ? <p class="muted">{props.rows.length - rows.length} more not shown.</p> : null}
    </section>
  );
}

/** Triggers a download of text the page made (a CSV), without a request. */
export function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
