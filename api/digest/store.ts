// The weekly digest in DuckDB (migration 090): the week's rows it is built from, and the digests sent, stored
// once per organization and week (the table's unique key) with one pending delivery per destination, in
// one transaction, before anything is sent.
import type { Db } from '../../common/db/duckdb.ts';
import { newRequestId } from '../../common/ids.ts';
import { deliveriesOf, queueDeliveries, type StoredDestination } from '../budgets/store.ts';
import { dueDigest } from './figures.ts';
import type { DigestEvent, DigestFigures, DigestView } from './schema.ts';

export const DIGEST_PREFIX = 'dig_';

export const DIGEST_SQL = {
  // The week's dollars per user, day and model (the daily batch's rows; NULL where a model has no price
  // that day: a price set from mid-week leaves the days before it unpriced, and its model named).
  // Priced and unpriced rows stay apart (sum() would drop a NULL beside a price, and its model's name):
  // the same day's model can be priced for one agent's records and not another's.
  tokens: `SELECT a.user_id, u.email, a.model, sum(a.cost_usd) AS cost_usd
           FROM agg_tokens_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id
           WHERE a.org_id = $org AND a.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)
           GROUP BY a.user_id, u.email, a.day, a.model, a.cost_usd IS NULL`,
  // The week before's dollars per day and model, as the week's: no rows is no usage ($0), rows all NULL is
  // usage without a price (null, never a silent $0: docs/metrics.md §8).
  previous: `SELECT model, sum(cost_usd) AS cost_usd FROM agg_tokens_day
             WHERE org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) GROUP BY day, model, cost_usd IS NULL`,
  fire: `INSERT INTO digests VALUES ($id, $org, CAST($week AS DATE), CAST($body AS JSON), CAST($sent_at AS TIMESTAMP)) ON CONFLICT DO NOTHING`,
  sent: 'SELECT id FROM digests WHERE org_id = $org AND week = CAST($week AS DATE)',
  one: `SELECT id, org_id, CAST(body AS VARCHAR) AS body, strftime(sent_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS sent_at FROM digests WHERE id = $id`,
  list: `SELECT id, org_id, CAST(body AS VARCHAR) AS body, strftime(sent_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS sent_at FROM digests
         WHERE org_id = $org AND ($month IS NULL OR strftime(sent_at, '%Y-%m') = $month) ORDER BY week DESC LIMIT 500`,
} as const;

interface Row {
  id: string;
  org_id: string;
  body: string;
  sent_at: string;
}
const event = (r: Row): DigestEvent => ({
  id: r.id,
  type: 'digest.weekly',
  org_id: r.org_id,
  ...(JSON.parse(r.body) as DigestFigures),
  sent_at: r.sent_at,
});

export class DigestStore {
  constructor(private readonly db: Db) {}

  async tokens(orgId: string, from: string, to: string) {
    const rows = await this.db.all<{ user_id: string; email: string | null; model: string; cost_usd: number | null }>(DIGEST_SQL.tokens, {
      org: orgId,
      from,
      to,
    });
    return rows.map((r) => ({ ...r, cost_usd: r.cost_usd === null ? null : Number(r.cost_usd) }));
  }

  /** A week's token rows per day and model (the week before's, for the change). */
  async previous(orgId: string, from: string, to: string): Promise<{ model: string; cost_usd: number | null }[]> {
    const rows = await this.db.all<{ model: string; cost_usd: number | null }>(DIGEST_SQL.previous, { org: orgId, from, to });
    return rows.map((r) => ({ model: r.model, cost_usd: r.cost_usd === null ? null : Number(r.cost_usd) }));
  }

  async sent(orgId: string, week: string): Promise<boolean> {
    return (await this.db.all(DIGEST_SQL.sent, { org: orgId, week })).length > 0;
  }

  /**
   * Is the digest due at `now` done with: sent, or due before the digest was turned on (`since`, ms; null:
   * off)? Then the next one is next Monday's.
   */
  async dueSent(orgId: string, now: number, since: number | null): Promise<boolean> {
    const due = dueDigest(now);
    if (since === null || due.at < since) return true;
    return this.sent(orgId, due.week.from);
  }

  /** Stores the week's digest with its pending deliveries unless the week has one; its id when new. */
  fire(orgId: string, figures: DigestFigures, destinations: readonly StoredDestination[], sentAt: string): Promise<string | undefined> {
    const id = `${DIGEST_PREFIX}${newRequestId().replaceAll('-', '')}`;
    return this.db.transaction(async (tx) => {
      const inserted = await tx.run(DIGEST_SQL.fire, {
        id,
        org: orgId,
        week: figures.week.from,
        body: JSON.stringify(figures),
        sent_at: sentAt,
      });
      if (inserted === 0) return undefined;
      await queueDeliveries(tx, id, orgId, destinations, sentAt);
      return id;
    });
  }

  async event(id: string): Promise<DigestEvent | undefined> {
    const [row] = await this.db.all<Row & Record<string, unknown>>(DIGEST_SQL.one, { id });
    return row && event(row);
  }

  /** The digests sent (in one UTC month), newest week first, with their deliveries. */
  async list(orgId: string, month: string | undefined): Promise<DigestView[]> {
    const rows = (await this.db.all<Row & Record<string, unknown>>(DIGEST_SQL.list, { org: orgId, month: month ?? null })).map(event);
    const deliveries = await deliveriesOf(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.map((d) => ({ id: d.id, week: d.week, cost_usd: d.cost_usd, sent_at: d.sent_at, deliveries: deliveries.get(d.id) ?? [] }));
  }
}
