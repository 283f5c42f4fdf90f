// The users routes: adding a user (with their invitation key), the admin listing, removal with erasure,
// whoami, the organization page's listing, and one person's usage. Rules: owners manage everyone in their
// organization; managers add members and guests; only owners remove users. Other organizations' ids
// answer 404, never 403, so ids do not leak. A user's keys have their own routes (api/keys/routes.ts).

import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, HttpError, notFound } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { BatchOptions, BatchReport } from '../../pipeline/batch.ts';
import type { AccountStore } from '../accounts/store.ts';
import { userRecords } from '../analytics/assemble.ts';
import { parseAnalyticsQuery } from '../analytics/query.ts';
import type { AnalyticsReader } from '../analytics/reader.ts';
import { personTotals } from '../analytics/totals.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, OWNERS, PEOPLE, ROLE_RANK } from '../auth/principal.ts';
import { NoQuery } from '../http/query.ts';
import type { IngestStore } from '../ingest/store.ts';
import { durableRefusal, minter, mintRefusal } from '../keys/minting.ts';
import { keyView } from '../keys/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import { logRemoval, removalRefusal, removeUser } from './remove.ts';
import {
  CreatedUser,
  CreateUserBody,
  ORGANIZATION_USERS_PATH,
  PageQuery,
  RemovedUser,
  RemoveQuery,
  USER_PATH,
  USER_USAGE_PATH,
  USERS_PATH,
  UsageParams,
  UsageQuery,
  UserList,
  UserListingList,
  UserParams,
  UserUsage,
  WHOAMI_PATH,
  WhoAmI,
} from './schema.ts';
import { listUsers, type User, userPage } from './store.ts';

export interface UserRouteDeps {
  accounts: AccountStore;
  /** Told when a user's credentials stop working (removal): their cached principals go. */
  auth: Pick<Authenticator, 'invalidate'>;
  db: Db;
  /** Removal runs while no batch is written, and the removed user's batches are refused after it. */
  ingest: Pick<IngestStore, 'removeSender'>;
  analytics: AnalyticsReader;
  /** The server's batch (one at a time): an erasure rebuilds the days it touched. */
  runBatch: (options: Omit<BatchOptions, 'pricingFile'>) => Promise<BatchReport>;
  /**
   * Told after a user is removed: answers hold the user's e-mail. (A new user needs no such call: their
   * id is new, so no row names them yet.)
   */
  changes?: Pick<Changes, 'changed'>;
  /** The answer cache: one person's usage is kept until a batch or a change of users. */
  cache: ResponseCache;
  now?: () => Date;
}

/** What one person's usage is built from: the daily aggregates, and the users (their e-mail and role). */
const USAGE_READS = ['aggregates', 'users'] as const;

const publicUser = (u: User) => ({ id: u.id, email: u.email, role: u.role, createdAt: u.created_at });

export function registerUserRoutes(app: FastifyInstance, deps: UserRouteDeps): void {
  const now = deps.now ?? (() => new Date());

  declareRoute(
    app,
    {
      method: 'POST',
      path: USERS_PATH,
      tag: 'Admin',
      summary: 'Add a user and their first API key',
      description:
        'Owners add any role; managers add members and guests. Needs a personal API key: the invitation key it mints would outlive a JWT or a dashboard session (403).',
      access: { kind: 'user' },
      body: CreateUserBody,
      responses: { 201: CreatedUser },
      errors: [403, 409],
    },
    async ({ principal: actor, body }, request, reply) => {
      if (actor.role !== 'owner' && !(actor.role === 'manager' && ROLE_RANK[body.role] < ROLE_RANK.manager)) {
        throw forbidden(`a ${actor.role} cannot add a user with the ${body.role} role`);
      }
      // The new user's invitation is a personal-scope key, revoked with the key that minted it: a JWT or a
      // dashboard session, which ends, would leave it (and the key it is exchanged for) standing.
      const refusal = mintRefusal(actor, 'personal') ?? durableRefusal(actor, 'a key for someone else');
      if (refusal) throw forbidden(`adding a user mints their invitation key: ${refusal.replace(/ \("scope": "collector"\)$/, '')}`);
      if (await deps.accounts.findUserByEmail(actor.orgId, body.email)) {
        throw new HttpError(409, `${body.email} is already a user of this organization`);
      }
      const user = await deps.accounts.createUser({
        orgId: actor.orgId,
        email: body.email,
        role: body.role,
        ...(body.firstName ? { firstName: body.firstName } : {}),
        ...(body.lastName ? { lastName: body.lastName } : {}),
      });
      // Its creator sees this key, so it is an invitation, not the user's own (see KeyKind); revoking the key
      // that minted it revokes it too, as any personal-scope key (the exchange's key is the user's own).
      const { key, info } = await deps.accounts.createKey(user, body.keyName, minter(actor), {
        invitation: true,
        mintedWith: actor.keyId,
      });
      request.log.info({ actor: actor.userId, user: user.id, role: user.role, key: info.id }, 'user created');
      reply.status(201);
      return { user: publicUser(user), apiKey: key, key: keyView(info) };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: USERS_PATH,
      freshness: 'credential',
      tag: 'Admin',
      summary: "The organization's users with their roles, last sign-in and number of active keys",
      action: 'Listing users with their roles',
      access: { kind: 'user', roles: ADMIN_ROLES },
      query: NoQuery,
      responses: { 200: UserListingList },
    },
    async ({ principal }) => ({ users: await listUsers(deps.db, principal.orgId) }),
  );

  // Owners only. ?erase=true also deletes the user's data and rebuilds the days it was on, before
  // answering: when the answer comes, no figure counts the user any more.
  declareRoute(
    app,
    {
      method: 'DELETE',
      path: USER_PATH,
      tag: 'Admin',
      summary: 'Remove a user (userId is a user id or an e-mail address): their keys and computers stop working',
      description:
        'erase=true also deletes what their agents sent, their sessions and computers, and rebuilds the days it was on before answering. 409 when the user is the last owner.',
      action: 'Removing users',
      access: { kind: 'user', roles: OWNERS },
      params: UserParams,
      query: RemoveQuery,
      responses: { 200: RemovedUser },
      errors: [409],
    },
    async ({ principal: actor, params: { userId }, query: { erase } }, request) => {
      const user = userId.includes('@')
        ? await deps.accounts.findUserByEmail(actor.orgId, userId)
        : await deps.accounts.getUser(actor.orgId, userId);
      if (!user) throw notFound(`no user ${userId.slice(0, 100)}`);
      const refusal = removalRefusal(actor);
      if (refusal) throw forbidden(refusal);
      const report = await deps.ingest.removeSender(user.org_id, user.id, () => removeUser(deps.db, user, erase === 'true'));
      deps.auth.invalidate();
      deps.changes?.changed({ kind: 'user', org: actor.orgId });
      // Fastify's logger is the server's pino logger; its type only lacks members these calls never use.
      const log = request.log as unknown as Logger;
      const rebuilt = report.erasureDays.length
        ? await deps.runBatch({ trigger: 'erase', log, days: { orgId: actor.orgId, days: report.erasureDays } })
        : undefined;
      logRemoval(log, actor.orgId, report, rebuilt?.days ?? 0, actor.userId);
      return {
        userId: report.userId,
        keysRevoked: report.keysRevoked,
        computersRevoked: report.computersRevoked,
        erased: report.erased,
        daysRebuilt: rebuilt?.days ?? 0,
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: WHOAMI_PATH,
      freshness: 'credential',
      tag: 'Admin',
      summary: 'The user, organization and role of the credential',
      access: { kind: 'user' },
      responses: { 200: WhoAmI },
    },
    async ({ principal }) => ({ userId: principal.userId, orgId: principal.orgId, email: principal.email, role: principal.role }),
  );

  // The organization's users in the reference's shape, paged by user id. Owners and managers see
  // everyone; a member sees only themself.
  declareRoute(
    app,
    {
      method: 'GET',
      path: ORGANIZATION_USERS_PATH,
      freshness: 'credential',
      tag: 'Organization',
      summary: "The organization's users (a member sees only themself)",
      action: 'Listing users',
      access: { kind: 'user', roles: PEOPLE },
      query: PageQuery,
      responses: { 200: UserList },
    },
    async ({ principal, query }) => {
      const limit = query.limit ?? 20;
      const rows = await userPage(deps.db, principal.orgId, {
        only: principal.role === 'member' ? principal.userId : null,
        cursor: query.cursor ?? null,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      return {
        users: page.map((r) => ({
          id: r.id,
          email: r.email,
          role: r.role,
          createdAt: r.created_at,
          metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : {},
          ...(r.first_name ? { firstName: r.first_name } : {}),
          ...(r.last_name ? { lastName: r.last_name } : {}),
          ...(r.last_sign_in_at ? { lastSignInAt: r.last_sign_in_at } : {}),
        })),
        pagination: { hasMore: rows.length > limit, ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}) },
      };
    },
  );

  // One person's daily rows, in the records of /api/v1/analytics/users. The analytics API is
  // organization-wide and for owners and managers only; this is how a member reads their own usage (the
  // dashboard's "My usage"), and how the dashboard shows one person's days. Owners and managers: anyone
  // in the organization. Members: themselves only (anyone else is 404, as for ids of another
  // organization). A collector key reads its own user's usage only (what a status line shows), whatever
  // the role.
  const usageDoc = {
    method: 'GET',
    path: USER_USAGE_PATH,
    freshness: 'cached',
    tag: 'Usage',
    summary: "One person's daily usage records (userId: a user id, or me); members: only their own",
    description: 'The records of /api/v1/analytics/users for one user. Another user’s id answers 404 to a member and to a collector key.',
    action: 'Reading usage',
    access: { kind: 'user', roles: PEOPLE, collectorKey: true },
    params: UsageParams,
    // Checked by the handler, after the user: the analytics API's date rules and texts, and a member
    // asking for someone else learns nothing but 404, whatever the query.
    query: UsageQuery,
    queryCheckedBy: 'handler',
    responses: { 200: UserUsage },
  } as const satisfies RouteDoc;
  declareRoute(app, usageDoc, async ({ principal, params: { userId: asked } }, request, reply) => {
    const userId = asked === 'me' ? principal.userId : asked;
    if (userId !== principal.userId && (!ADMIN_ROLES.includes(principal.role) || principal.scope === 'collector'))
      throw notFound(`No user ${asked} in this organization`);
    const user = await deps.accounts.getUser(principal.orgId, userId);
    if (!user) throw notFound(`No user ${asked} in this organization`);
    const today = now();
    // Kept per asker: "me" names another person in each one's URL.
    const of = { org: principal.orgId, viewer: principal.userId, now: today, reads: USAGE_READS };
    return sendAnswer(deps.cache, request, reply, of, async () => {
      // The same date rules as the analytics API (declareRoute refused any parameter but the two dates).
      const q = parseAnalyticsQuery('productivity', request.query, today);
      const data = userRecords(await deps.analytics.userRows({ org: principal.orgId, from: q.startDate, to: q.endDate }, [user.id]));
      return {
        data,
        meta: {
          org_id: principal.orgId,
          start_date: q.startDate,
          end_date: q.endDate,
          user_id: user.id,
          user_email: user.email,
          role: user.role,
          totals: personTotals(data),
        },
      };
    });
  });
}
