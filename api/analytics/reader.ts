// The one reader of each analytics figure: the rows an answer is assembled from (assemble.ts), for a
// selection of days of an organization. Who counts (a team= filter: the members on each day) and where
// today's rows come from (the live build) are inputs of the selection, not readers of their own: a figure
// over the whole organization reads its organization rows, the same figure over a team derives them from
// the per-user rows of the members (api/teams/figures.ts, 60_org_day.sql's rules), and the live day's rows
// stand in for the stored ones on its day. The rows themselves come from one RowSource (the read model,
// which answers from DuckDB what it does not hold), whose sets and statements are store.ts's ROW_SETS.
import { addDays, restrictRows, teamBreakdowns, teamHooks, teamOrgDays, teamTokenRows } from '../teams/figures.ts';
import type { BreakdownRow, HookRow, OrgDayRow, RepoTokenRow, RowSet, RowSource, RowTypes, TokenRow, UserDayRow } from './store.ts';

/** team=: who counts on each day, and every user who was a member from 29 days before the range to its end. */
export interface TeamFilter {
  members: (day: string) => ReadonlySet<string>;
  users: readonly string[];
}

/**
 * Today's provisional rows (api/today/store.ts), read by the same statements over the live build's
 * tables. The build counts only its scope's records (a member's own, or a team's members on the day), so
 * its rows are already the selection's.
 */
export interface LiveDay {
  date: string;
  rows: RowSource;
}

export interface Selection {
  org: string;
  from: string;
  to: string;
  team?: TeamFilter | undefined;
  live?: LiveDay | undefined;
}

const daysFrom = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
};

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class AnalyticsReader {
  constructor(private readonly stored: RowSource) {}

  /** A set's rows of days `from` to `to`: the stored days, then the live day's (when it is in the range). */
  private async rows<K extends RowSet>(
    sel: Selection,
    set: K,
    from: string,
    to: string,
    users?: readonly string[],
  ): Promise<RowTypes[K][]> {
    const live = sel.live;
    if (!live || to < live.date) return this.stored.rows(set, sel.org, from, to, users);
    const today = from <= live.date ? await live.rows.rows(set, sel.org, live.date, live.date, users) : [];
    const before = addDays(live.date, -1);
    return from <= before ? [...(await this.stored.rows(set, sel.org, from, before, users)), ...today] : today;
  }

  /** The organization's day rows (over a team: derived from its members' user days, 29 days back for the weekly and monthly users). */
  async orgDays(sel: Selection): Promise<OrgDayRow[]> {
    if (!sel.team) return this.rows(sel, 'orgDays', sel.from, sel.to);
    const rows = await this.rows(sel, 'userDays', addDays(sel.from, -29), sel.to, sel.team.users);
    return teamOrgDays(daysFrom(sel.from, sel.to), rows, sel.team.members);
  }

  /** The breakdown rows of `kinds` (over a team: its members' per-user rows summed). */
  async breakdown(sel: Selection, kinds: readonly string[]): Promise<BreakdownRow[]> {
    const wanted = new Set(kinds);
    if (!sel.team) return (await this.rows(sel, 'breakdown', sel.from, sel.to)).filter((r) => wanted.has(r.kind));
    const rows = await this.rows(sel, 'userBreakdowns', sel.from, sel.to, sel.team.users);
    return teamBreakdowns(restrictRows(rows, sel.team.members).filter((r) => wanted.has(r.kind)));
  }

  async hooks(sel: Selection): Promise<HookRow[]> {
    if (!sel.team) return this.rows(sel, 'hooks', sel.from, sel.to);
    return teamHooks(restrictRows(await this.rows(sel, 'userHooks', sel.from, sel.to, sel.team.users), sel.team.members));
  }

  /** The token rows (over a team: the members' rows, billable tokens rounded per day and model over them). */
  async tokens(sel: Selection): Promise<TokenRow[]> {
    if (!sel.team) return this.rows(sel, 'tokens', sel.from, sel.to);
    const [tokens, raw] = await Promise.all([
      this.rows(sel, 'tokens', sel.from, sel.to, sel.team.users),
      this.rows(sel, 'rawBillable', sel.from, sel.to, sel.team.users),
    ]);
    return teamTokenRows(restrictRows(tokens, sel.team.members), restrictRows(raw, sel.team.members));
  }

  /** group_by=repo's rows: per day, user and repository (over a team: the members' on each day). */
  async repoTokens(sel: Selection): Promise<RepoTokenRow[]> {
    if (!sel.team) return this.rows(sel, 'repoTokens', sel.from, sel.to);
    return restrictRows(await this.rows(sel, 'repoTokens', sel.from, sel.to, sel.team.users), sel.team.members);
  }

  /**
   * One page of user ids with a row in the range (limit + 1 of them, to know whether more follow), after
   * `cursor`. User ids are ASCII (usr_ and hex digits): JS string order is DuckDB's VARCHAR order.
   */
  async userPage(sel: Selection, cursor: string | undefined, limit: number): Promise<string[]> {
    const known = sel.team || sel.live ? undefined : this.stored.usersWithRows?.('userDays', sel.org, sel.from, sel.to, cursor, limit + 1);
    if (known) return known;
    const rows = await this.rows(sel, 'userDays', sel.from, sel.to, sel.team?.users);
    const ids = new Set<string>();
    for (const row of sel.team ? restrictRows(rows, sel.team.members) : rows)
      if (cursor === undefined || row.user_id > cursor) ids.add(row.user_id);
    return [...ids].sort(byString).slice(0, limit + 1);
  }

  /** The page's users' rows, in the users endpoint's order (user, then day). */
  async userRows(sel: Selection, page: readonly string[]): Promise<UserDayRow[]> {
    if (page.length === 0) return [];
    if (!sel.team && !sel.live && this.stored.holds?.(sel.org, ['userDays'])) {
      // Held rows: each user's, in day order, users in the page's order (ids ascending), no sort.
      const each = await Promise.all(page.map((user) => this.rows(sel, 'userDays', sel.from, sel.to, [user])));
      return each.flat();
    }
    const rows = await this.rows(sel, 'userDays', sel.from, sel.to, page);
    const wanted = new Set(page);
    // Sorted by day, then user: a stable sort by user gives user, then day.
    return rows
      .filter((r) => wanted.has(r.user_id) && (!sel.team || sel.team.members(r.day).has(r.user_id)))
      .sort((a, b) => byString(a.user_id, b.user_id));
  }
}
