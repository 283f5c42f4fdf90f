// The per-user table: every person active in the range (walked through the /users cursor), with their
// totals for the range as the server sums them (meta.people), sorted, searched and paged in the browser;
// sort, search and page are in the URL.
import { allPages } from '../api.ts';
import type { UsersPage } from '../api-types.ts';
import { download, Link, RangeForm, Status, useData } from '../components.tsx';
import { formatNumber, type PersonTotals, personRow, type SortDir, sortPeople, toCsv } from '../figures.ts';
import { carryRange, navigate, withQuery } from '../router.ts';
import { TeamPicker } from './Teams.tsx';

const COLUMNS: { key: keyof PersonTotals; label: string; numeric: boolean }[] = [
  { key: 'email', label: 'Person', numeric: false },
  { key: 'activeDays', label: 'Active days', numeric: true },
  { key: 'credits', label: 'Standard Credits', numeric: true },
  { key: 'sessions', label: 'Sessions', numeric: true },
  { key: 'messages', label: 'Messages', numeric: true },
  { key: 'toolCalls', label: 'Tool calls', numeric: true },
  { key: 'filesEdited', label: 'Files edited', numeric: true },
  { key: 'filesCreated', label: 'Files created', numeric: true },
  { key: 'commits', label: 'Commits', numeric: true },
  { key: 'prs', label: 'PRs', numeric: true },
  { key: 'primaryModel', label: 'Primary model', numeric: false },
];
const PAGE_SIZES = [10, 25, 50, 100];

export function People(props: { path: string; query: URLSearchParams; from: string; to: string }) {
  const { query } = props;
  const team = query.get('team');
  const range = new URLSearchParams({ startDate: props.from, endDate: props.to, limit: '100', ...(team ? { team } : {}) });
  const { data, error, loading } = useData(`${props.from}|${props.to}|${team ?? ''}`, async () =>
    (await allPages<UsersPage>('/api/v1/analytics/users', range)).flatMap((page) => page.meta.people.map(personRow)),
  );
  const sortKey = (COLUMNS.find((c) => c.key === query.get('sort'))?.key ?? 'credits') as keyof PersonTotals;
  const dir: SortDir = query.get('dir') === 'asc' ? 'asc' : 'desc';
  const search = query.get('q') ?? '';
  // Any page size from 1 to 100 in the URL; the menu offers the usual ones.
  const asked = Number(query.get('per'));
  const per = Number.isInteger(asked) && asked >= 1 && asked <= 100 ? asked : 25;
  const sizes = PAGE_SIZES.includes(per) ? PAGE_SIZES : [per, ...PAGE_SIZES];
  const go = (patch: Record<string, string | null>, replace = false) => navigate(withQuery(props.path, query, patch), replace);

  const matching = data ? sortPeople(data, sortKey, dir).filter((p) => p.email.toLowerCase().includes(search.toLowerCase())) : [];
  const pages = Math.max(1, Math.ceil(matching.length / per));
  const page = Math.min(Math.max(1, Number(query.get('page')) || 1), pages);
  const shown = matching.slice((page - 1) * per, page * per);

  const csv = () =>
    download(
      `agentmeter-people-${props.from}-${props.to}.csv`,
      'text/csv',
      toCsv(
        ['user_id', ...COLUMNS.map((c) => c.key)],
        matching.map((p) => [p.userId, ...COLUMNS.map((c) => p[c.key])]),
      ),
    );

  return (
    <>
      <h1>People{team ? `: ${team}` : ''}</h1>
      <RangeForm {...props} />
      <TeamPicker path={props.path} query={props.query} />
      <Status loading={loading} error={error} />
      {data ? (
        <>
          <div class="toolbar">
            <label>
              Search by e-mail{' '}
              <input
                type="search"
                value={search}
                onInput={(e) => go({ q: e.currentTarget.value || null, page: null }, true)}
                placeholder="name@…"
              />
            </label>
            <label>
              Rows per page{' '}
              <select value={String(per)} onChange={(e) => go({ per: e.currentTarget.value, page: null })}>
                {sizes.map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={csv} disabled={matching.length === 0}>
              Download CSV
            </button>
          </div>
          <p class="muted" role="status">
            {formatNumber(matching.length)} of {formatNumber(data.length)} people active in this range
          </p>
          <div class="scroll">
            <table class="people" data-testid="people-table">
              <caption class="sr-only">
                People active from {props.from} to {props.to}, sorted by {sortKey} {dir === 'asc' ? 'ascending' : 'descending'}
              </caption>
              <thead>
                <tr>
                  {COLUMNS.map((c) => {
                    const active = c.key === sortKey;
                    const next = active && dir === 'desc' ? 'asc' : active ? 'desc' : c.numeric ? 'desc' : 'asc';
                    return (
                      <th
                        key={c.key}
                        scope="col"
                        class={c.numeric ? 'num' : undefined}
                        aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                      >
                        <button type="button" class="sort" data-sort={c.key} onClick={() => go({ sort: c.key, dir: next, page: null })}>
                          {c.label}
                          <span aria-hidden="true">{active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    );
                  })}
                </tr>
              </thead>
              <tbody>
                {shown.map((p) => (
                  <tr key={p.userId} data-user={p.userId}>
                    <th scope="row">
                      <Link href={carryRange(`/people/${encodeURIComponent(p.userId)}`, query)}>{p.email}</Link>
                    </th>
                    {COLUMNS.slice(1).map((c) => (
                      <td key={c.key} class={c.numeric ? 'num' : undefined} data-col={c.key} data-value={String(p[c.key])}>
                        {c.numeric ? formatNumber(p[c.key] as number) : p[c.key]}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages of people">
            <button type="button" disabled={page <= 1} onClick={() => go({ page: String(page - 1) })}>
              Previous
            </button>
            <span data-testid="page-status">
              Page {page} of {pages}
            </span>
            <button type="button" disabled={page >= pages} onClick={() => go({ page: String(page + 1) })}>
              Next
            </button>
          </nav>
        </>
      ) : null}
    </>
  );
}
