// Credit limits in DuckDB: one row per user with a limit (credit_limits), the organization's enforcement
// switch (org_settings), and each user's limit, own budget and credits this month from the daily
// aggregates (the route prefers the live figures when the server has them). The status line (api/me/)
// reads one user's limit, budget and the switch from here too.
import type { Db } from '../../common/db/duckdb.ts';
import type { Role } from '../auth/principal.ts';

const SQL = {
  users: 'SELECT id, email, role FROM users WHERE org_id = $org',
  upsert: `INSERT INTO credit_limits VALUES ($org, $user, $credits, now()::TIMESTAMP, $by)
           ON CONFLICT (org_id, user_id) DO UPDATE SET credits = excluded.credits, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  enforced: 'SELECT enforce_limits FROM org_settings WHERE org_id = $org',
  setEnforced: `INSERT INTO org_settings VALUES ($org, $enabled) ON CONFLICT (org_id) DO UPDATE SET enforce_limits = excluded.enforce_limits`,
  status: `SELECT u.id AS user_id, u.email, l.credits,
                  (SELECT b.monthly_credits FROM budgets b WHERE b.org_id = u.org_id AND b.scope = 'user' AND b.target = u.id) AS budget,
                  coalesce((SELECT sum(t.billable_tokens) FROM agg_tokens_day t
                            WHERE t.org_id = u.org_id AND t.user_id = u.id AND t.day >= CAST($month_start AS DATE)), 0) AS used
           FROM users u LEFT JOIN credit_limits l ON l.org_id = u.org_id AND l.user_id = u.id
           WHERE u.org_id = $org AND ($only IS NULL OR u.id = $only)
           ORDER BY u.email`,
  ofUser: `SELECT (SELECT credits FROM credit_limits WHERE org_id = $org AND user_id = $user) AS credits,
  (SELECT monthly_credits FROM budgets WHERE org_id = $org AND scope = 'user' AND target = $user) AS budget,
  coalesce((SELECT enforce_limits FROM org_settings WHERE org_id = $org), false) AS enforced`,
} as const;

/** A user's credit limit, own budget and billable tokens since the month's start (daily aggregates). */
export interface LimitRow {
  user_id: string;
  email: string;
  credits: number | null;
  budget: number | null;
  used: number;
}

export class LimitStore {
  constructor(private readonly db: Db) {}

  /** The organization's users by e-mail (as stored: lower case). */
  async usersByEmail(org: string): Promise<Map<string, { id: string; email: string; role: Role }>> {
    const rows = await this.db.all<{ id: string; email: string; role: Role }>(SQL.users, { org });
    return new Map(rows.map((u) => [u.email, u]));
  }

  async setLimit(org: string, user: string, credits: number, by: string): Promise<void> {
    await this.db.run(SQL.upsert, { org, user, credits, by });
  }

  async enforced(org: string): Promise<boolean> {
    const [settings] = await this.db.all<{ enforce_limits: boolean }>(SQL.enforced, { org });
    return settings?.enforce_limits ?? false;
  }

  async setEnforced(org: string, enabled: boolean): Promise<void> {
    await this.db.run(SQL.setEnforced, { org, enabled });
  }

  /** One user's credit limit and own budget (null: none), and whether the organization enforces limits. */
  async ofUser(org: string, user: string): Promise<{ credits: number | null; budget: number | null; enforced: boolean }> {
    const [row] = await this.db.all<{ credits: number | null; budget: number | null; enforced: boolean }>(SQL.ofUser, { org, user });
    return { credits: row?.credits ?? null, budget: row?.budget ?? null, enforced: row?.enforced ?? false };
  }

  /** Every user of the organization, or only `only`, by e-mail; `monthStart` is YYYY-MM-DD. */
  status(org: string, only: string | null, monthStart: string): Promise<LimitRow[]> {
    return this.db.all<LimitRow & Record<string, unknown>>(SQL.status, { org, only, month_start: monthStart });
  }
}
