// Budgets, alerts and deliveries in DuckDB (migration 030). The budget list is replaced whole; an alert
// is inserted at most once per budget, threshold and month (the table's unique key), together with one
// pending delivery per destination, in one transaction: stored before anything is sent.
import type { Db } from '../../common/db/duckdb.ts';
import { newRequestId } from '../../common/ids.ts';
import type { BudgetUnit, ThresholdEvent } from './schema.ts';
import { DestinationSeal, type StoredDestination } from './sealed-destinations.ts';

export type { StoredDestination } from './sealed-destinations.ts';

export interface StoredBudget {
  scope: 'org' | 'team' | 'user';
  target: string;
  team: string | null;
  userId: string | null;
  email: string | null;
  /** Exactly one of monthlyCredits and monthlyUsd is set. */
  monthlyCredits: number | null;
  monthlyUsd: number | null;
  thresholds: number[];
  destinations: StoredDestination[];
}

/** A budget's unit and monthly amount. */
export const budgetLimit = (b: Pick<StoredBudget, 'monthlyCredits' | 'monthlyUsd'>): { unit: BudgetUnit; limit: number } =>
  b.monthlyUsd !== null ? { unit: 'usd', limit: b.monthlyUsd } : { unit: 'credits', limit: b.monthlyCredits ?? 0 };

export interface Delivery {
  alert_id: string;
  position: number;
  org_id: string;
  kind: 'webhook' | 'slack';
  /** Sealed, as the destination's (DestinationSeal.openDelivery opens it at the send). */
  url: string;
  /** Sealed. */
  secret: string | null;
  attempts: number;
}

const SQL = {
  list: `SELECT b.scope, b.target, b.team, b.user_id, u.email, b.monthly_credits, b.monthly_usd, b.thresholds, CAST(b.destinations AS VARCHAR) AS destinations
         FROM budgets b LEFT JOIN users u ON u.org_id = b.org_id AND u.id = b.user_id
         WHERE b.org_id = $org ORDER BY b.position`,
  orgsWithBudgets: 'SELECT DISTINCT org_id FROM budgets',
  usersByEmail: 'SELECT id, lower(email) AS email FROM users WHERE org_id = $org',
  clear: 'DELETE FROM budgets WHERE org_id = $org',
  insert: `INSERT INTO budgets (org_id, scope, target, position, team, user_id, monthly_credits, monthly_usd, thresholds, destinations,
                               updated_at, updated_by)
           VALUES ($org, $scope, $target, $position, $team, $user, $credits, $usd,
           CAST($thresholds AS INTEGER[]), CAST($destinations AS JSON), now()::TIMESTAMP, $by)`,
  // A dollar budget's alert keeps its figures in usage_usd and limit_usd (migration 060).
  fire: `INSERT INTO budget_alerts (id, org_id, scope, target, month, threshold, usage, credit_limit, budget, fired_at, unit, usage_usd, limit_usd)
         VALUES ($id, $org, $scope, $target, $month, $threshold,
                 CASE WHEN $unit = 'usd' THEN 0 ELSE CAST($usage AS BIGINT) END, CASE WHEN $unit = 'usd' THEN 0 ELSE CAST($limit AS BIGINT) END,
                 CAST($budget AS JSON), CAST($fired_at AS TIMESTAMP), $unit,
                 CASE WHEN $unit = 'usd' THEN CAST($usage AS DOUBLE) END, CASE WHEN $unit = 'usd' THEN CAST($limit AS DOUBLE) END)
         ON CONFLICT DO NOTHING`,
  addDelivery: `INSERT INTO alert_deliveries VALUES ($alert, $position, $org, $kind, $url, $secret, 'pending', 0, CAST($fired_at AS TIMESTAMP), NULL, NULL)`,
  due: `SELECT alert_id, position, org_id, kind, url, secret, attempts FROM alert_deliveries
        WHERE state = 'pending' AND next_attempt_at <= CAST($now AS TIMESTAMP) ORDER BY next_attempt_at LIMIT 100`,
  nextDue: `SELECT CAST(min(next_attempt_at) AS VARCHAR) AS at FROM alert_deliveries WHERE state = 'pending'`,
  alert: `SELECT id, org_id, month, threshold, coalesce(unit, 'credits') AS unit, coalesce(usage_usd, usage) AS usage,
                 coalesce(limit_usd, credit_limit) AS credit_limit, CAST(budget AS VARCHAR) AS budget, fired_at FROM budget_alerts WHERE id = $id`,
  delivered: `UPDATE alert_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = CAST($now AS TIMESTAMP), last_error = NULL, next_attempt_at = NULL
              WHERE alert_id = $alert AND position = $position`,
  retry: `UPDATE alert_deliveries SET attempts = attempts + 1, last_error = $error, next_attempt_at = CAST($next AS TIMESTAMP)
          WHERE alert_id = $alert AND position = $position`,
  giveUp: `UPDATE alert_deliveries SET state = 'undelivered', attempts = attempts + 1, last_error = $error, next_attempt_at = NULL
           WHERE alert_id = $alert AND position = $position`,
  alerts: `SELECT a.id, CAST(a.budget AS VARCHAR) AS budget, a.month, a.threshold, coalesce(a.unit, 'credits') AS unit,
                  coalesce(a.usage_usd, a.usage) AS usage, coalesce(a.limit_usd, a.credit_limit) AS credit_limit, a.fired_at,
                  coalesce(list({type: d.kind, state: d.state, attempts: d.attempts, last_error: d.last_error, delivered_at: d.delivered_at} ORDER BY d.position)
                           FILTER (WHERE d.alert_id IS NOT NULL), []) AS deliveries
           FROM budget_alerts a LEFT JOIN alert_deliveries d ON d.alert_id = a.id
           WHERE a.org_id = $org AND ($month IS NULL OR a.month = $month)
           GROUP BY ALL ORDER BY a.fired_at DESC, a.threshold DESC LIMIT 500`,
} as const;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Queues one pending delivery of an alert (a budget's, an anomaly's or a digest) per destination, in the
 * caller's transaction: the one delivery queue AlertEngine sends from. The URL and secret are copied
 * sealed, as the destination keeps them.
 */
export async function queueDeliveries(
  tx: Db,
  alertId: string,
  orgId: string,
  destinations: readonly StoredDestination[],
  at: string,
): Promise<void> {
  for (const [position, d] of destinations.entries())
    await tx.run(SQL.addDelivery, {
      alert: alertId,
      position,
      org: orgId,
      kind: d.type,
      url: d.url,
      secret: d.secret ?? null,
      fired_at: at,
    });
}

/** What one alert's deliveries look like in a list (budgets', anomalies' and digests' alike). */
export interface DeliveryState {
  type: 'webhook' | 'slack';
  state: 'pending' | 'delivered' | 'undelivered';
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
}

/**
 * A team's budget follows the team's rename (api/teams/store.ts, renameTeam, in its transaction): a team
 * budget is named by the team's name key, and a rename would otherwise leave it counting a team that no
 * longer exists (0 credits, no alerts), ready for the next team given the old name. Its alerts of the month
 * move with it, so none fires again.
 */
export const TEAM_BUDGET_RENAME_SQL = {
  budgets: "UPDATE budgets SET target = $to, team = $name WHERE org_id = $org AND scope = 'team' AND target = $from",
  alerts: "UPDATE budget_alerts SET target = $to WHERE org_id = $org AND scope = 'team' AND target = $from",
} as const;

/**
 * A deleted team's budget goes with it (api/teams/store.ts, deleteTeam, in its transaction): it would count
 * nobody, and the next team given the name would take it over. The month's alerts stay as history (each
 * keeps its budget as it was), set apart from the name with a control character, which no team name holds:
 * a new team of that name then alerts afresh.
 */
export const TEAM_BUDGET_DELETE_SQL = {
  budgets: "DELETE FROM budgets WHERE org_id = $org AND scope = 'team' AND target = $key",
  alerts: "UPDATE budget_alerts SET target = chr(1) || $team WHERE org_id = $org AND scope = 'team' AND target = $key",
} as const;

/** The deliveries of a list of alerts, each alert's in its destinations' order (`alerts`: comma-separated ids). */
export const DELIVERIES_OF_SQL = `SELECT alert_id, list({type: kind, state: state, attempts: attempts, last_error: last_error, delivered_at: delivered_at} ORDER BY position) AS deliveries
  FROM alert_deliveries WHERE alert_id IN (SELECT unnest(string_split($alerts, ','))) GROUP BY alert_id`;

export async function deliveriesOf(db: Db, alertIds: readonly string[]): Promise<Map<string, DeliveryState[]>> {
  if (alertIds.length === 0) return new Map();
  const rows = await db.all<{ alert_id: string; deliveries: DeliveryState[] }>(DELIVERIES_OF_SQL, { alerts: alertIds.join(',') });
  return new Map(rows.map((r) => [r.alert_id, r.deliveries]));
}

export class BudgetStore {
  /** Seals and opens destinations under the database's key. */
  readonly seal: DestinationSeal;

  constructor(private readonly db: Db) {
    this.seal = new DestinationSeal(db.path);
  }

  /** The organization's users by e-mail (lower case) → id: a user budget names its user by e-mail. */
  async usersByEmail(orgId: string): Promise<Map<string, string>> {
    const rows = await this.db.all<{ id: string; email: string }>(SQL.usersByEmail, { org: orgId });
    return new Map(rows.map((u) => [u.email, u.id]));
  }

  async list(orgId: string): Promise<StoredBudget[]> {
    const rows = await this.db.all<{
      scope: StoredBudget['scope'];
      target: string;
      team: string | null;
      user_id: string | null;
      email: string | null;
      monthly_credits: number | null;
      monthly_usd: number | null;
      thresholds: number[];
      destinations: string;
    }>(SQL.list, { org: orgId });
    return rows.map((r) => ({
      scope: r.scope,
      target: r.target,
      team: r.team,
      userId: r.user_id,
      email: r.email,
      monthlyCredits: r.monthly_credits === null ? null : Number(r.monthly_credits),
      monthlyUsd: r.monthly_usd,
      thresholds: r.thresholds,
      destinations: JSON.parse(r.destinations) as StoredDestination[],
    }));
  }

  async orgsWithBudgets(): Promise<string[]> {
    return (await this.db.all<{ org_id: string }>(SQL.orgsWithBudgets)).map((r) => r.org_id);
  }

  async replace(orgId: string, budgets: StoredBudget[], by: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(SQL.clear, { org: orgId });
      for (const [position, b] of budgets.entries())
        await tx.run(SQL.insert, {
          org: orgId,
          scope: b.scope,
          target: b.target,
          position,
          team: b.team,
          user: b.userId,
          credits: b.monthlyCredits,
          usd: b.monthlyUsd,
          thresholds: `[${b.thresholds.join(',')}]`,
          destinations: JSON.stringify(b.destinations),
          by,
        });
    });
  }

  /**
   * Stores the alert of one budget, threshold and month with its pending deliveries, unless that alert
   * exists already; returns whether it was new.
   */
  async fire(budget: StoredBudget, event: Omit<ThresholdEvent, 'id' | 'type'>): Promise<string | undefined> {
    const id = `alr_${newRequestId().replaceAll('-', '')}`;
    return this.db.transaction(async (tx) => {
      const inserted = await tx.run(SQL.fire, {
        id,
        org: event.org_id,
        scope: budget.scope,
        target: budget.target,
        month: event.month,
        threshold: event.threshold,
        unit: event.unit,
        usage: event.usage,
        limit: event.limit,
        budget: JSON.stringify(event.budget),
        fired_at: event.fired_at,
      });
      if (inserted === 0) return undefined;
      await queueDeliveries(tx, id, event.org_id, budget.destinations, event.fired_at);
      return id;
    });
  }

  due(now: number): Promise<Delivery[]> {
    return this.db.all<Delivery & Record<string, unknown>>(SQL.due, { now: iso(now) });
  }

  async nextDue(): Promise<number | undefined> {
    const [row] = await this.db.all<{ at: string | null }>(SQL.nextDue);
    return row?.at ? Date.parse(`${row.at.replace(' ', 'T')}Z`) : undefined;
  }

  async event(alertId: string): Promise<ThresholdEvent | undefined> {
    const [a] = await this.db.all<{
      id: string;
      org_id: string;
      month: string;
      threshold: number;
      unit: BudgetUnit;
      usage: number;
      credit_limit: number;
      budget: string;
      fired_at: string;
    }>(SQL.alert, { id: alertId });
    if (!a) return undefined;
    return {
      id: a.id,
      type: 'budget.threshold',
      org_id: a.org_id,
      budget: JSON.parse(a.budget) as ThresholdEvent['budget'],
      threshold: a.threshold,
      unit: a.unit,
      usage: Number(a.usage),
      limit: Number(a.credit_limit),
      month: a.month,
      fired_at: new Date(`${a.fired_at.replace(' ', 'T')}${a.fired_at.endsWith('Z') ? '' : 'Z'}`).toISOString(),
    };
  }

  async delivered(d: Delivery, now: number): Promise<void> {
    await this.db.run(SQL.delivered, { alert: d.alert_id, position: d.position, now: iso(now) });
  }

  async retry(d: Delivery, error: string, next: number): Promise<void> {
    await this.db.run(SQL.retry, { alert: d.alert_id, position: d.position, error, next: iso(next) });
  }

  async giveUp(d: Delivery, error: string): Promise<void> {
    await this.db.run(SQL.giveUp, { alert: d.alert_id, position: d.position, error });
  }

  alerts(orgId: string, month: string | undefined) {
    return this.db.all<{
      id: string;
      budget: string;
      month: string;
      threshold: number;
      unit: BudgetUnit;
      usage: number;
      credit_limit: number;
      fired_at: string;
      deliveries: {
        type: 'webhook' | 'slack';
        state: 'pending' | 'delivered' | 'undelivered';
        attempts: number;
        last_error: string | null;
        delivered_at: string | null;
      }[];
    }>(SQL.alerts, { org: orgId, month: month ?? null });
  }
}
