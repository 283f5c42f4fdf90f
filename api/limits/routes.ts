// Per-user monthly credit limits: PUT sets them (1-100 entries, per-user outcome, never all-or-nothing),
// GET reports each user's limit and the credits used this calendar month (UTC; with the live figures,
// today's included, else from the daily aggregates). A user's own budget (api/budgets/) is a limit too:
// the effective limit is the smaller of the two (effective.ts).
// PUT …/enforcement turns enforcement on or off. Owners and managers administer; a member's GET answers
// for themself only (the collector asks it with the member's own key to know whether to block prompts).
// An owner sets anyone's limit; a manager only members' and guests' (as with keys).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import { ADMIN_ROLES, OWNERS, PEOPLE, ROLE_RANK, type Role } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { LiveFiguresStore } from '../today/store.ts';
import { effectiveLimit } from './effective.ts';
import {
  ENFORCEMENT_PATH,
  EnforcementAnswer,
  EnforcementBody,
  Entry,
  LIMITS_PATH,
  LimitStatus,
  LimitsBody,
  LimitsUpdate,
} from './schema.ts';
import { LimitStore } from './store.ts';

/** May a caller with role `actor` set the credit limit of a user with role `target`? Pure. */
export function maySetLimit(actor: Role, target: Role): boolean {
  if (actor === 'owner') return true;
  return actor === 'manager' && ROLE_RANK[target] < ROLE_RANK.manager;
}

/**
 * What a limits answer (and the status line's, api/me/) is built from: the month's usage (the records as
 * they arrive, the batch's days, prices), the users, a user's own budget (a limit too) and the limits.
 */
export const LIMIT_READS = ['events', 'aggregates', 'prices', 'users', 'budgets', 'limits'] as const;

export interface LimitDeps {
  db: Db;
  now?: () => Date;
  live?: LiveFiguresStore;
  /** The answer cache: the collectors ask often; an answer is kept until what it reads changes. */
  cache: ResponseCache;
  /** Told when a limit or the enforcement changes. */
  changes: Pick<Changes, 'changed'>;
}

export function registerLimitRoutes(app: FastifyInstance, deps: LimitDeps): void {
  const now = deps.now ?? (() => new Date());
  const limits = new LimitStore(deps.db);

  declareRoute(
    app,
    {
      method: 'PUT',
      path: LIMITS_PATH,
      tag: 'Credit limits',
      summary: 'Set monthly credit limits (1-100 entries, each applied or refused on its own)',
      description:
        'A bad entry is reported in `errors` with its e-mail, not as a 400: the route checks each entry with the entry schema. ' +
        "An owner sets anyone's limit; a manager only members' and guests' (an owner's or manager's entry is an error).",
      action: 'Setting credit limits',
      access: { kind: 'user', roles: ADMIN_ROLES },
      body: LimitsBody,
      responses: { 200: LimitsUpdate },
    },
    async ({ principal, body }, request): Promise<LimitsUpdate> => {
      const members = await limits.usersByEmail(principal.orgId);
      const emails = body.users.map((e) =>
        typeof (e as { email?: unknown })?.email === 'string' ? (e as { email: string }).email.toLowerCase() : '',
      );
      const updated: LimitsUpdate['updated'] = [];
      const errors: LimitsUpdate['errors'] = [];
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
          await limits.setLimit(principal.orgId, members.get(email)!.id, parsed.data.limit, principal.userId);
          deps.changes.changed({ kind: 'limit', org: principal.orgId });
          updated.push({ email, limit: parsed.data.limit });
        }
      }
      request.log.info({ updated: updated.length, errors: errors.length }, 'credit limits updated');
      return { updated, errors };
    },
  );

  // A collector key reads its own user's entry only, whatever the user's role (what enforcement needs).
  const statusDoc = {
    method: 'GET',
    path: LIMITS_PATH,
    freshness: 'cached',
    tag: 'Credit limits',
    summary: "Each user's monthly credit limit and the credits used this month (a member: their own)",
    description: 'A collector key reads only its own user’s entry, whatever the role (what the collector enforces).',
    action: 'Reading credit limits',
    access: { kind: 'user', roles: PEOPLE, collectorKey: true },
    responses: { 200: LimitStatus },
  } as const satisfies RouteDoc;
  declareRoute(app, statusDoc, async ({ principal }, request, reply) => {
    const today = now();
    const only = ADMIN_ROLES.includes(principal.role) && principal.scope !== 'collector' ? null : principal.userId;
    const build = async (): Promise<LimitStatus> => {
      const monthStart = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)).toISOString().slice(0, 10);
      const enforced = await limits.enforced(principal.orgId);
      const rows = await limits.status(principal.orgId, only, monthStart);
      const live = deps.live ? (await deps.live.figures({ orgId: principal.orgId }, 'credits')).month.byUser : undefined;
      return {
        month: monthStart.slice(0, 7),
        enforced,
        // The caller, so a collector holding a manager's key still finds its own entry.
        userId: principal.userId,
        users: rows.map((r) => {
          const limit = effectiveLimit(r.credits, r.budget);
          const used = live ? (live.get(r.user_id) ?? 0) : r.used;
          return { userId: r.user_id, email: r.email, limit, used, over: limit !== null && used >= limit };
        }),
      };
    };
    // Kept per caller (the answer names them) and per what the credential may see: everyone's entries for
    // the Organization page, one's own for each collector, which asks often; a manager's personal key and
    // collector key are one user with two answers. Everyone's entries list every user, so a user added is
    // a change.
    const viewer = `${principal.userId}:${only === null ? 'everyone' : 'own'}`;
    const of = { org: principal.orgId, viewer, now: today, reads: LIMIT_READS };
    return sendAnswer(deps.cache, request, reply, of, build);
  });

  declareRoute(
    app,
    {
      method: 'PUT',
      path: ENFORCEMENT_PATH,
      tag: 'Credit limits',
      summary: 'Turn the enforcement of credit limits on or off',
      action: 'Turning credit-limit enforcement on or off',
      access: { kind: 'user', roles: OWNERS },
      body: EnforcementBody,
      responses: { 200: EnforcementAnswer },
    },
    async ({ principal, body }, request): Promise<EnforcementAnswer> => {
      await limits.setEnforced(principal.orgId, body.enabled);
      deps.changes.changed({ kind: 'limit', org: principal.orgId });
      request.log.info({ enabled: body.enabled }, 'credit-limit enforcement changed');
      return { enforced: body.enabled };
    },
  );
}
