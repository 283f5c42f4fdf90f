// Per-user monthly credit limits: PUT sets them (1-100 entries, per-user outcome, never all-or-nothing),
// GET reports each user's limit and the credits used this calendar month (UTC; with the live figures,
// today's included, else from the daily aggregates). A user's own budget (api/budgets/) is a limit too:
// the effective limit is the smaller of the two,
// PUT …/enforcement turns enforcement on or off. Owners and managers administer; a member's GET answers
// for themself only (the collector asks it with the member's own key to know whether to block prompts).
// An owner sets anyone's limit; a manager only members' and guests' (as with keys: api/routes/accounts.ts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden } from '../../common/errors.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, ROLE_RANK, type Role, requireRole } from '../auth/principal.ts';
import type { LiveFiguresStore } from '../today/store.ts';

export const LIMITS_PATH = '/api/v0/organization/usage/limits/users';
export const ENFORCEMENT_PATH = '/api/v0/organization/usage/limits/enforcement';

export const LimitsBody = z.strictObject({
  // Entries are checked one by one below, so one bad entry does not sink the others.
  users: z.array(z.unknown()).min(1, 'users needs 1 to 100 entries').max(100, 'users takes at most 100 entries'),
});
export const Entry = z.strictObject({ email: z.email(), limit: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER) });
export const EnforcementBody = z.strictObject({ enabled: z.boolean() });

export const LimitsUpdate = z.strictObject({
  updated: z.array(z.strictObject({ email: z.string(), limit: z.number() })),
  errors: z.array(z.strictObject({ email: z.string(), error: z.string() })),
});
export const LimitStatus = z.strictObject({
  month: z.string(),
  enforced: z.boolean(),
  userId: z.string(),
  users: z.array(
    z.strictObject({ userId: z.string(), email: z.string(), limit: z.number().nullable(), used: z.number(), over: z.boolean() }),
  ),
});

export const EnforcementAnswer = z.strictObject({ enforced: z.boolean() });

const SQL = {
  usersByEmail: 'SELECT id, email, role FROM users WHERE org_id = $org',
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
} as const;

/** May a caller with role `actor` set the credit limit of a user with role `target`? Pure. */
export function maySetLimit(actor: Role, target: Role): boolean {
  if (actor === 'owner') return true;
  return actor === 'manager' && ROLE_RANK[target] < ROLE_RANK.manager;
}

/** Pure: a user's effective monthly limit, the smaller of their credit limit and their own budget. */
export function effectiveLimit(credits: number | null, budget: number | null): number | null {
  if (credits === null) return budget;
  return budget === null ? credits : Math.min(credits, budget);
}

export function registerLimitRoutes(
  app: FastifyInstance,
  deps: { db: Db; auth: Authenticator; now?: () => Date; live?: LiveFiguresStore },
): void {
  const now = deps.now ?? (() => new Date());

  app.put(LIMITS_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ADMIN_ROLES, 'Setting credit limits');
    const body = LimitsBody.parse(request.body);
    const members = new Map(
      (await deps.db.all<{ id: string; email: string; role: Role }>(SQL.usersByEmail, { org: principal.orgId })).map((u) => [u.email, u]),
    );
    const emails = body.users.map((e) =>
      typeof (e as { email?: unknown })?.email === 'string' ? (e as { email: string }).email.toLowerCase() : '',
    );
    const updated: { email: string; limit: number }[] = [];
    const errors: { email: string; error: string }[] = [];
    for (const [i, raw] of body.users.entries()) {
      const email = emails[i]!;
      const parsed = Entry.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        errors.push({
          email,
          error:
            issue.path[0] === 'limit'
              ? 'limit must be a whole number of credits, 0 or more'
              : `${issue.path.join('.') || 'entry'}: ${issue.message}`,
        });
      } else if (emails.indexOf(email) !== emails.lastIndexOf(email)) {
        errors.push({ email, error: 'this email appears more than once in the request' });
      } else if (!members.has(email)) {
        // The same answer whether the address is unknown or belongs to another organization.
        errors.push({ email, error: 'no user with this email in the organization' });
      } else if (!maySetLimit(principal.role, members.get(email)!.role)) {
        errors.push({ email, error: `a ${principal.role} can set credit limits only for members and guests` });
      } else {
        await deps.db.run(SQL.upsert, {
          org: principal.orgId,
          user: members.get(email)!.id,
          credits: parsed.data.limit,
          by: principal.userId,
        });
        updated.push({ email, limit: parsed.data.limit });
      }
    }
    request.log.info({ updated: updated.length, errors: errors.length }, 'credit limits updated');
    return { updated, errors };
  });

  // A collector key reads its own user's entry only, whatever the user's role (what enforcement needs).
  app.get(LIMITS_PATH, { config: { collectorKey: true } }, async (request) => {
    const principal = await deps.auth.authenticate(request);
    if (principal.role === 'guest') throw forbidden('Credit limits need the owner, manager or member role; this credential has guest');
    const today = now();
    const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)).toISOString().slice(0, 10);
    const [settings] = await deps.db.all<{ enforce_limits: boolean }>(SQL.enforced, { org: principal.orgId });
    const rows = await deps.db.all<{ user_id: string; email: string; credits: number | null; budget: number | null; used: number }>(
      SQL.status,
      {
        org: principal.orgId,
        only: ADMIN_ROLES.includes(principal.role) && principal.scope !== 'collector' ? null : principal.userId,
        month_start: monthStart,
      },
    );
    const live = deps.live ? (await deps.live.figures({ orgId: principal.orgId }, 'credits')).month.byUser : undefined;
    return {
      month: monthStart.slice(0, 7),
      enforced: settings?.enforce_limits ?? false,
      // The caller, so a collector holding a manager's key still finds its own entry.
      userId: principal.userId,
      users: rows.map((r) => {
        const limit = effectiveLimit(r.credits, r.budget);
        const used = live ? (live.get(r.user_id) ?? 0) : r.used;
        return { userId: r.user_id, email: r.email, limit, used, over: limit !== null && used >= limit };
      }),
    };
  });

  app.put(ENFORCEMENT_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner'], 'Turning credit-limit enforcement on or off');
    const { enabled } = EnforcementBody.parse(request.body);
    await deps.db.run(SQL.setEnforced, { org: principal.orgId, enabled });
    request.log.info({ enabled }, 'credit-limit enforcement changed');
    return { enforced: enabled };
  });
}
