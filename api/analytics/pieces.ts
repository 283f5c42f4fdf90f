// The ungrouped analytics answers as pieces kept with the read model's rows (api/answers/pieces.ts): each
// day's record of /tokens, /tools, /activity and /productivity, and each user's day row of /users, is
// serialized once per load of the rows, and runs of them compressed once (a Chain's spans), so that a
// cold answer (one the answer cache does not hold) is a few spans concatenated, not 200-300 KB of JSON
// serialized and gzipped again. A day's record depends on that day's rows alone (the weekly and monthly
// users are columns of the day's row), so a range's answer is its days' records in order, as the assembly
// of the whole range gives them; a /users page is its users' rows in the range, each user's in day order.
// The records are made by the same functions (RECORDS, userRecords), over the figures' one reader.
import { Chain, type Piece, Pieces, storedPiece } from '../answers/pieces.ts';
import {
  activityRecords,
  productivityRecords,
  type TokenFacts,
  tokenFacts,
  tokenRecords,
  tokensMeta,
  toolRecords,
  userRecords,
} from './assemble.ts';
import type { AnalyticsReadModel } from './memory.ts';
import type { AnalyticsReader, Selection } from './reader.ts';
import type { RowSet, UserDayRow } from './store.ts';
import { activityTotals, personTotals, productivityTotals, tokenTotals, toolTotals } from './totals.ts';

export type DayEndpoint = 'tokens' | 'tools' | 'activity' | 'productivity';

/** An ungrouped endpoint's records of a selection's days, the sets they read, (/tokens) its facts, and the range in one. */
interface DayRecords<R> {
  sets: readonly RowSet[];
  build(analytics: AnalyticsReader, sel: Selection, days: string[]): Promise<{ data: R[]; facts?: TokenFacts }>;
  /** meta.totals: the range's records in one (api/analytics/totals.ts). */
  totals(records: readonly R[]): object;
}
const dayRecords = <R>(spec: DayRecords<R>) => spec;

/** Each ungrouped endpoint's records: the route's assembly and the kept pieces both use them. */
export const RECORDS = {
  tokens: dayRecords({
    sets: ['tokens', 'breakdown'],
    async build(analytics, sel, days) {
      const [rows, used] = await Promise.all([analytics.tokens(sel), analytics.breakdown(sel, ['agent_users'])]);
      return { data: tokenRecords(days, rows), facts: tokenFacts(rows, used) };
    },
    totals: tokenTotals,
  }),
  tools: dayRecords({
    sets: ['orgDays', 'breakdown', 'hooks'],
    async build(analytics, sel, days) {
      const [orgRows, breakdowns, hooks] = await Promise.all([
        analytics.orgDays(sel),
        analytics.breakdown(sel, ['tool', 'mcp_server', 'skill', 'slash_command']),
        analytics.hooks(sel),
      ]);
      return { data: toolRecords(days, orgRows, breakdowns, hooks) };
    },
    totals: toolTotals,
  }),
  activity: dayRecords({
    sets: ['orgDays', 'breakdown'],
    async build(analytics, sel, days) {
      const [orgRows, breakdowns] = await Promise.all([analytics.orgDays(sel), analytics.breakdown(sel, ['client'])]);
      return { data: activityRecords(days, orgRows, breakdowns) };
    },
    totals: activityTotals,
  }),
  productivity: dayRecords({
    sets: ['orgDays', 'breakdown'],
    async build(analytics, sel, days) {
      const [orgRows, breakdowns] = await Promise.all([
        analytics.orgDays(sel),
        analytics.breakdown(sel, ['extension', 'language', 'edits_accepted_agent', 'edits_rejected_agent']),
      ]);
      return { data: productivityRecords(days, orgRows, breakdowns) };
    },
    totals: productivityTotals,
  }),
};

/** A day's record kept as JSON, with (/tokens) its facts and the record itself, for the range's totals (meta.totals). */
interface Kept {
  raw: Buffer;
  facts?: TokenFacts | undefined;
  record: unknown;
}

const OPEN = storedPiece('{"data":[');
/** `],"meta":…}`: the end of a `{data, meta}` answer, as JSON.stringify writes it. */
const close = (meta: unknown) => storedPiece(`],"meta":${JSON.stringify(meta)}}`);

/** An endpoint's kept days of an organization, by day number, and their chain. */
interface DayChain {
  chain: Chain;
  days: Map<number, Kept>;
}

const DAY_MS = 86_400_000;
/** A day's number (days since 1970-01-01): the days of a range are consecutive numbers of one chain. */
const dayNumber = (day: string) => Date.parse(day) / DAY_MS;

type UserRecord = ReturnType<typeof userRecords>[number];

/** One user's day rows (all of them, in day order) as a chain: their records and JSON made at the first ask. */
class UserChain {
  readonly chain = new Chain();
  private readonly records: UserRecord[] = [];
  private readonly raws: Buffer[] = [];
  constructor(private readonly rows: readonly UserDayRow[]) {}

  private record(i: number): UserRecord {
    return (this.records[i] ??= userRecords([this.rows[i]!])[0]!);
  }

  readonly element = (i: number): Buffer => (this.raws[i] ??= Buffer.from(JSON.stringify(this.record(i))));

  /** The records of rows lo..hi-1. */
  slice(lo: number, hi: number): UserRecord[] {
    const out: UserRecord[] = [];
    for (let i = lo; i < hi; i++) out.push(this.record(i));
    return out;
  }
}

export class AnswerPieces {
  /** Users' chains, by the array of their held rows (held rows are never changed: a new load makes new arrays). */
  private readonly users$ = new WeakMap<readonly UserDayRow[], UserChain>();

  constructor(
    private readonly model: AnalyticsReadModel,
    private readonly analytics: AnalyticsReader,
  ) {}

  /**
   * The `{data, meta}` answer of an ungrouped day endpoint over `days` (consecutive), `meta` with /tokens'
   * facts after it; undefined when the rows are not held (the caller assembles the answer then).
   */
  async days(endpoint: DayEndpoint, org: string, days: readonly string[], meta: object): Promise<Pieces | undefined> {
    // One endpoint's spec: its records go back to its own totals.
    const spec = RECORDS[endpoint] as DayRecords<unknown>;
    if (!this.model.holds(org, spec.sets) || days.length === 0) return undefined;
    // The endpoint's kept days and chain, found once an answer (not a key a day).
    const known = this.model.derived(org, `${endpoint}|days`, async (): Promise<DayChain> => ({ chain: new Chain(), days: new Map() }));
    const { chain, days: kept } = known instanceof Promise ? await known : known;
    const lo = dayNumber(days[0]!);
    const facts: TokenFacts[] = [];
    const records: unknown[] = [];
    const raws: Buffer[] = [];
    for (let i = 0; i < days.length; i++) {
      let k = kept.get(lo + i);
      if (!k) {
        const day = days[i]!;
        const { data, facts } = await spec.build(this.analytics, { org, from: day, to: day }, [day]);
        kept.set(lo + i, (k = { raw: Buffer.from(JSON.stringify(data[0])), facts, record: data[0] }));
      }
      if (k.facts) facts.push(k.facts);
      records.push(k.record);
      raws.push(k.raw);
    }
    const pieces: Piece[] = [OPEN];
    chain.push(lo, lo + days.length, (n) => raws[n - lo]!, pieces);
    // The same meta, in the same key order, as the route's assembly gives (the answers are byte-equal).
    const totals = spec.totals(records);
    pieces.push(close(endpoint === 'tokens' ? { ...meta, ...tokensMeta(facts), totals } : { ...meta, totals }));
    return new Pieces(pieces);
  }

  /**
   * The `{data, meta}` answer of /users over `from` to `to` for the page's users (ids ascending, each with a
   * row in the range), their rows in day order; undefined when the rows are not held.
   */
  users(org: string, from: string, to: string, page: readonly string[], meta: object): Pieces | undefined {
    const ranges = this.model.userRanges('userDays', org, page, from, to);
    if (!ranges) return undefined;
    const pieces: Piece[] = [OPEN];
    const people: object[] = [];
    for (const { rows, lo, hi } of ranges) {
      if (lo === hi) continue;
      let user = this.users$.get(rows);
      if (!user) this.users$.set(rows, (user = new UserChain(rows)));
      user.chain.push(lo, hi, user.element, pieces, people.length > 0);
      // peopleTotals of the page's records, one person at a time (their rows are consecutive).
      const records = user.slice(lo, hi);
      people.push({ user_id: records[0]!.user_id, user_email: records[0]!.user_email, ...personTotals(records) });
    }
    pieces.push(close({ ...meta, people }));
    return new Pieces(pieces);
  }
}
