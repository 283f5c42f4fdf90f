// The ungrouped analytics answers as pieces kept with the read model's rows (api/answers/pieces.ts): each
// day's record of /tokens, /tools, /activity and /productivity, and each user's day row of /users, is
// serialized and compressed once per load of the rows, so that a cold answer (one the answer cache does
// not hold) is their concatenation, not 200-300 KB of JSON serialized and gzipped again. A day's record
// depends on that day's rows alone (the weekly and monthly users are columns of the day's row), so a range's
// answer is its days' records in order, as the assembly of the whole range gives them; the records are
// made by the same functions (RECORDS), over the figures' one reader.
import { type Piece, Pieces, piece, storedPiece } from '../answers/pieces.ts';
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
import { activityTotals, peopleTotals, productivityTotals, tokenTotals, toolTotals } from './totals.ts';

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

/** A record or row kept as JSON, alone and (once asked) after the one it always follows. */
interface Kept {
  alone: Piece;
  after?: Piece;
  facts?: TokenFacts | undefined;
  /** The record itself, for the range's totals (meta.totals, api/analytics/totals.ts). */
  record: unknown;
}

const OPEN = storedPiece('{"data":[');
const COMMA = storedPiece(',');
/** `],"meta":…}`: the end of a `{data, meta}` answer, as JSON.stringify writes it. */
const close = (meta: unknown) => storedPiece(`],"meta":${JSON.stringify(meta)}}`);

const kept = (record: unknown, facts?: TokenFacts): Kept => ({ alone: piece(JSON.stringify(record)), facts, record });
const COMMA_BYTE = Buffer.from(',');
/** The piece of `k` following `prev` (with its comma), compressed with `prev` as its dictionary. */
const following = (k: Kept, prev: Kept) => (k.after ??= piece(Buffer.concat([COMMA_BYTE, k.alone.raw]), prev.alone.raw));

export class AnswerPieces {
  /** Users' day rows kept by the row (held rows are never changed: a new load makes new rows). */
  private readonly rows = new WeakMap<UserDayRow, Kept>();

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
    if (!this.model.holds(org, spec.sets)) return undefined;
    const pieces: Piece[] = [OPEN];
    const facts: TokenFacts[] = [];
    const records: unknown[] = [];
    let prev: Kept | undefined;
    for (const day of days) {
      const known = this.model.derived(org, `${endpoint}|${day}`, async () => {
        const { data, facts } = await spec.build(this.analytics, { org, from: day, to: day }, [day]);
        return kept(data[0], facts);
      });
      const k = known instanceof Promise ? await known : known;
      pieces.push(prev ? following(k, prev) : k.alone);
      if (k.facts) facts.push(k.facts);
      records.push(k.record);
      prev = k;
    }
    // The same meta, in the same key order, as the route's assembly gives (the answers are byte-equal).
    const totals = spec.totals(records);
    pieces.push(close(endpoint === 'tokens' ? { ...meta, ...tokensMeta(facts), totals } : { ...meta, totals }));
    return new Pieces(pieces);
  }

  /** Can /users' rows of the organization be answered as pieces (its user days held)? */
  holdsUsers(org: string): boolean {
    return this.model.holds(org, ['userDays']);
  }

  /** The `{data, meta}` answer of /users: rows as AnalyticsReader.userRows gives them (held rows). */
  users(rows: readonly UserDayRow[], meta: object): Pieces {
    const pieces: Piece[] = [OPEN];
    const records: unknown[] = [];
    let prev: { row: UserDayRow; k: Kept } | undefined;
    for (const row of rows) {
      let k = this.rows.get(row);
      if (!k) this.rows.set(row, (k = kept(userRecords([row])[0])));
      records.push(k.record);
      // A user's rows are in day order: a row after the same user's is after that user's row before it,
      // whatever the range, so its piece with that row as dictionary is kept.
      if (!prev) pieces.push(k.alone);
      else if (prev.row.user_id === row.user_id) pieces.push(following(k, prev.k));
      else pieces.push(COMMA, k.alone);
      prev = { row, k };
    }
    pieces.push(close({ ...meta, people: peopleTotals(records as Parameters<typeof peopleTotals>[0]) }));
    return new Pieces(pieces);
  }
}
