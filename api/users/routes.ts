// Users and API keys through the running server, so an operator can do admin work without stopping it
// (DuckDB allows one writing process). Rules: owners manage everyone in their organization; managers
// add members and guests and manage their keys; everyone manages their own keys. Other organizations'
// ids answer 404, never 403, so ids do not leak. Each key records who minted it and what that makes it
// (`KeyKind`): a key minted for someone else never drives that person's computers; the key handed over
// with a new user is an invitation its user exchanges once for their own (personal) key. Each key has a
// scope (`KeyScope`): a personal key is minted only with a personal key and is revoked with the key that
// minted it; a JWT or a dashboard session mints collector keys only, which are durable (docs/keys.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, HttpError, notFound, unauthorized } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { BatchOptions, BatchReport } from '../../pipeline/batch.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, type Principal, ROLE_RANK, Role, requireRole } from '../auth/principal.ts';
import { NoQuery } from '../query.ts';
import { type AccountStore, KEY_SCOPES, keyView, type User } from '../accounts/store.ts';
import { listUsers, logRemoval, ownerCount, removalRefusal, removeUser } from '../users/remove.ts';

export const CreateUserBody = z.strictObject({
  email: z.email(),
  role: Role,
  firstName: z.string().max(200).optional(),
  lastName: z.string().max(200).optional(),
  keyName: z.string().max(200).optional(),
});
export const CreateKeyBody = z
  .strictObject({
    name: z.string().max(200).optional(),
    scope: z
      .enum(KEY_SCOPES)
      .optional()
      .describe('personal (default): what the role allows, minted only with a personal API key; collector: what a developer machine needs'),
  })
  .default({});
/** A user id (usr_…), an e-mail address, or me (the caller). */
export const UserParams = z.strictObject({ userId: z.string().min(1).max(320) });
export const KeyParams = z.strictObject({ keyId: z.string().min(1).max(64) });
export const RemoveQuery = z.strictObject({ erase: z.enum(['true', 'false']).optional() });

export interface AccountRouteDeps {
  accounts: AccountStore;
  auth: Authenticator;
  db: Db;
  /** The server's batch (one at a time): an erasure rebuilds the days it touched. */
  runBatch: (options: Omit<BatchOptions, 'pricingFile'>) => Promise<BatchReport>;
  /**
   * Told after a user is removed: analytics answers and the read model hold the user's e-mail. (A new
   * user needs no such call: their id is new, so no aggregate row names them yet.)
   */
  onUserRemoved?: () => void;
}

const publicUser = (u: User) => ({ id: u.id, email: u.email, role: u.role, createdAt: u.created_at });
const minter = (actor: Principal) => ({ userId: actor.userId, credential: actor.credential });

/**
 * Why `actor` may not mint a key of `scope`, or undefined. Pure. A personal key needs a personal API key:
 * a JWT or a dashboard session is short-lived, and a key minted with it would outlive it; a collector key
 * may mint nothing (its routes stop it before this). A collector key may be minted by any of them: it
 * can do little, and is meant to last on a machine until revoked.
 */
export function mintRefusal(actor: Pick<Principal, 'via' | 'scope'>, scope: 'personal' | 'collector'): string | undefined {
  if (actor.scope === 'collector') return 'a collector key cannot mint keys';
  if (scope === 'collector') return undefined;
  if (actor.via !== 'key')
    return `minting a personal key needs a personal API key (Authorization: Bearer am_…); ${actor.via === 'jwt' ? 'a JWT' : 'a dashboard session'} mints collector keys only ("scope": "collector")`;
  return undefined;
}

/** May `actor` manage `target`'s keys? */
function mayManage(actor: Principal, target: User): boolean {
  if (actor.userId === target.id) return true;
  if (actor.role === 'owner') return true;
  return actor.role === 'manager' && ROLE_RANK[target.role] < ROLE_RANK.manager;
}

export function registerAccountRoutes(app: FastifyInstance, deps: AccountRouteDeps): void {
  const who = (request: FastifyRequest) => deps.auth.authenticate(request);

  // "me": the caller (install.sh mints the machine's collector key so, knowing no user id).
  const targetUser = async (actor: Principal, userId: string): Promise<User> => {
    const user =
      userId === 'me'
        ? await deps.accounts.getUser(actor.orgId, actor.userId)
        : userId.includes('@')
          ? await deps.accounts.findUserByEmail(actor.orgId, userId)
          : await deps.accounts.getUser(actor.orgId, userId);
    if (!user) throw notFound(`no user ${userId}`);
    if (!mayManage(actor, user)) throw forbidden(`a ${actor.role} cannot manage the keys of a ${user.role}`);
    return user;
  };

  app.post('/api/v0/admin/users', async (request, reply) => {
    const actor = await who(request);
    const body = CreateUserBody.parse(request.body);
    if (actor.role !== 'owner' && !(actor.role === 'manager' && ROLE_RANK[body.role] < ROLE_RANK.manager)) {
      throw forbidden(`a ${actor.role} cannot add a user with the ${body.role} role`);
    }
    // The new user's invitation is a personal-scope key, revoked with the key that minted it: a JWT or a
    // dashboard session, which ends, would leave it (and the key it is exchanged for) standing.
    const refusal = mintRefusal(actor, 'personal');
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
    const { key, info } = await deps.accounts.createKey(user, body.keyName, minter(actor), { invitation: true, mintedWith: actor.keyId });
    request.log.info({ actor: actor.userId, user: user.id, role: user.role, key: info.id }, 'user created');
    return reply.status(201).send({ user: publicUser(user), apiKey: key, key: keyView(info) });
  });

  app.get('/api/v0/admin/users/:userId/keys', async (request) => {
    const actor = await who(request);
    const { userId } = UserParams.parse(request.params);
    const user = await targetUser(actor, userId);
    return { keys: (await deps.accounts.listKeys(actor.orgId, user.id)).map(keyView) };
  });

  app.post('/api/v0/admin/users/:userId/keys', async (request, reply) => {
    const actor = await who(request);
    const { userId } = UserParams.parse(request.params);
    const body = CreateKeyBody.parse(request.body ?? {});
    const user = await targetUser(actor, userId);
    const scope = body.scope ?? 'personal';
    if (user.id === actor.userId && actor.credential === 'invitation' && actor.keyId && scope === 'personal') {
      // The user exchanges their invitation for their own key; the invitation stops working at once.
      const exchanged = await deps.accounts.exchangeInvitation(user, actor.keyId, body.name);
      deps.auth.invalidate();
      if (!exchanged) throw unauthorized('This invitation key was already exchanged for a personal key or revoked');
      request.log.info({ actor: actor.userId, user: user.id, key: exchanged.info.id, invitation: actor.keyId }, 'invitation exchanged');
      return reply.status(201).send({ apiKey: exchanged.key, key: keyView(exchanged.info) });
    }
    const refusal = mintRefusal(actor, scope);
    if (refusal) throw forbidden(refusal);
    // A personal key ends with the key that minted it; a collector key stands on its own until revoked.
    const { key, info } = await deps.accounts.createKey(user, body.name, minter(actor), {
      scope,
      mintedWith: scope === 'personal' ? actor.keyId : undefined,
    });
    request.log.info({ actor: actor.userId, user: user.id, key: info.id, kind: info.kind, scope }, 'api key created');
    return reply.status(201).send({ apiKey: key, key: keyView(info) });
  });

  app.delete('/api/v0/admin/keys/:keyId', async (request) => {
    const actor = await who(request);
    const { keyId } = KeyParams.parse(request.params);
    const info = await deps.accounts.getKey(actor.orgId, keyId);
    if (!info) throw notFound(`no API key ${keyId}`);
    await targetUser(actor, info.user_id);
    const revoked = await deps.accounts.revokeKey(actor.orgId, keyId);
    deps.auth.invalidate();
    request.log.info({ actor: actor.userId, key: keyId, revoked }, 'api key revoked');
    return { key: keyView((await deps.accounts.getKey(actor.orgId, keyId))!), revoked };
  });

  app.get('/api/v0/admin/users', async (request) => {
    const actor = await who(request);
    requireRole(actor, ADMIN_ROLES, 'Listing users with their roles');
    NoQuery.parse(request.query ?? {});
    return { users: await listUsers(deps.db, actor.orgId) };
  });

  // Owners only (see removalRefusal). ?erase=true also deletes the user's data and rebuilds the days it
  // was on, before answering: when the answer comes, no figure counts the user any more.
  app.delete('/api/v0/admin/users/:userId', async (request) => {
    const actor = await who(request);
    const { userId } = UserParams.parse(request.params);
    const { erase } = RemoveQuery.parse(request.query ?? {});
    if (actor.role !== 'owner') throw forbidden(removalRefusal(actor, { role: 'guest' }, 2)!);
    const user = userId.includes('@')
      ? await deps.accounts.findUserByEmail(actor.orgId, userId)
      : await deps.accounts.getUser(actor.orgId, userId);
    if (!user) throw notFound(`no user ${userId.slice(0, 100)}`);
    const refusal = removalRefusal(actor, user, await ownerCount(deps.db, actor.orgId));
    if (refusal) throw new HttpError(409, refusal);
    const report = await removeUser(deps.db, user, erase === 'true');
    deps.auth.invalidate();
    deps.onUserRemoved?.();
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
  });

  app.get('/api/v0/admin/whoami', async (request) => {
    const actor = await who(request);
    return { userId: actor.userId, orgId: actor.orgId, email: actor.email, role: actor.role };
  });
}
