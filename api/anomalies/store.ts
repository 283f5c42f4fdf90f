// Anomaly alerts in DuckDB (migration 090): stored once per organization, subject and day (the table's unique
// key) together with one pending delivery per destination, in one transaction, before anything is sent; read
// back to send (AlertEngine), to list with the alerts, and for the weekly digest.
import type { Db } from '../../common/db/duckdb.ts';
import { newRequestId } from '../../common/ids.ts';
import { deliveriesOf, queueDeliveries, type StoredDestination } from '../budgets/store.ts';
import { MULTIPLE } from './figures.ts';
import type { AnomalyEvent, AnomalyView } from './schema.ts';

export const ANOMALY_PREFIX = 'anm_';

export interface NewAnomaly {
  org_id: string;
  scope: 'user' | 'team';
  /** The user's id, or the team's name in lower case. */
  target: string;
  /** The e-mail, or the team's name. */
  subject: string;
  day: string;
  cost_usd: number;
  median_usd: number;
  floor_usd: number;
  days_with_usage: number;
  fired_at: string;
}

const COLUMNS = `id, org_id, scope, subject, CAST(day AS VARCHAR) AS day, cost_usd, median_usd, floor_usd, days_with_usage,
                 strftime(fired_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS fired_at`;

export const ANOMALY_SQL = {
  fire: `INSERT INTO anomaly_alerts VALUES ($id, $org, $scope, $target, CAST($day AS DATE), $subject, $cost, $median, $floor, $days, CAST($fired_at AS TIMESTAMP))
         ON CONFLICT DO NOTHING`,
  one: `SELECT ${COLUMNS} FROM anomaly_alerts WHERE id = $id`,
  list: `SELECT ${COLUMNS} FROM anomaly_alerts WHERE org_id = $org AND ($month IS NULL OR strftime(day, '%Y-%m') = $month)
         ORDER BY fired_at DESC, id LIMIT 500`,
  between: `SELECT ${COLUMNS} FROM anomaly_alerts WHERE org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)
            ORDER BY day, cost_usd DESC, id`,
  // Organizations with usage since a time: the ones an anomaly may be due for when the server starts.
  orgsWithUsage: 'SELECT DISTINCT org_id FROM usage WHERE ts >= CAST($from AS TIMESTAMP)',
  emails: 'SELECT id, email FROM users WHERE org_id = $org',
} as const;

interface Row {
  id: string;
  org_id: string;
  scope: 'user' | 'team';
  subject: string;
  day: string;
  cost_usd: number;
  median_usd: number;
  floor_usd: number;
  days_with_usage: number;
  fired_at: string;
}

const event = (r: Row): AnomalyEvent => ({
  id: r.id,
  type: 'cost.anomaly',
  org_id: r.org_id,
  scope: r.scope,
  ...(r.scope === 'user' ? { email: r.subject } : { team: r.subject }),
  day: r.day,
  cost_usd: Number(r.cost_usd),
  median_usd: Number(r.median_usd),
  multiple: MULTIPLE,
  floor_usd: Number(r.floor_usd),
  days_with_usage: Number(r.days_with_usage),
  fired_at: r.fired_at,
});

export class AnomalyStore {
  constructor(private readonly db: Db) {}

  /** Stores an anomaly with its pending deliveries unless the subject's day has one; its id when new. */
  fire(a: NewAnomaly, destinations: readonly StoredDestination[]): Promise<string | undefined> {
    const id = `${ANOMALY_PREFIX}${newRequestId().replaceAll('-', '')}`;
    return this.db.transaction(async (tx) => {
      const inserted = await tx.run(ANOMALY_SQL.fire, {
        id,
        org: a.org_id,
        scope: a.scope,
        target: a.target,
        day: a.day,
        subject: a.subject,
        cost: a.cost_usd,
        median: a.median_usd,
        floor: a.floor_usd,
        days: a.days_with_usage,
        fired_at: a.fired_at,
      });
      if (inserted === 0) return undefined;
      await queueDeliveries(tx, id, a.org_id, destinations, a.fired_at);
      return id;
    });
  }

  async event(id: string): Promise<AnomalyEvent | undefined> {
    const [row] = await this.db.all<Row & Record<string, unknown>>(ANOMALY_SQL.one, { id });
    return row && event(row);
  }

  /** The anomalies of the organization (of one UTC month), newest first, with their deliveries. */
  async list(orgId: string, month: string | undefined): Promise<AnomalyView[]> {
    const rows = await this.db.all<Row & Record<string, unknown>>(ANOMALY_SQL.list, { org: orgId, month: month ?? null });
    const deliveries = await deliveriesOf(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => {
      const { type: _t, org_id: _o, ...rest } = event(r);
      return { ...rest, deliveries: deliveries.get(r.id) ?? [] };
    });
  }

  /** The anomalies of the days from `from` to `to`, by day. */
  async between(orgId: string, from: string, to: string): Promise<AnomalyEvent[]> {
    return (await this.db.all<Row & Record<string, unknown>>(ANOMALY_SQL.between, { org: orgId, from, to })).map(event);
  }

  async orgsWithUsageSince(from: string): Promise<string[]> {
    return (await this.db.all<{ org_id: string }>(ANOMALY_SQL.orgsWithUsage, { from })).map((r) => r.org_id);
  }

  async emails(orgId: string): Promise<Map<string, string>> {
    return new Map((await this.db.all<{ id: string; email: string }>(ANOMALY_SQL.emails, { org: orgId })).map((r) => [r.id, r.email]));
  }
}
