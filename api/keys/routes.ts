// The API-key routes: list, mint and revoke a user's keys through the running server. Everyone manages
// their own keys; owners everyone's; managers members' and guests' (minting.ts, mayManage). Other
// organizations' ids answer 404, never 403, so ids do not leak. Each key records who minted it and what
// that makes it (KeyKind): a key minted for someone else never drives that person's computers; the key
// handed over with a new user is an invitation its user exchanges once here for their own (personal) key.
// Each key has a scope (KeyScope): a personal key is minted only with a personal key and is revoked with
// the key that minted it; a JWT or a dashboard session mints collector keys for its own user only, which
// are durable, unless minted with a key someone else minted for its user (delegated, invitation), which
// its minter holds too: they end with it; a key for someone else needs a personal API key (docs/keys.md).
import type { FastifyInstance } from 'fastify';
import { forbidden, HttpError, notFound, unauthorized } from '../../common/errors.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { UserParams } from '../users/schema.ts';
import type { User } from '../users/store.ts';
import { durableRefusal, mayManage, minter, mintRefusal } from './minting.ts';
import { CreatedKey, CreateKeyBody, KEY_PATH, KeyList, KeyParams, RevokedKey, USER_KEYS_PATH } from './schema.ts';
import { keyView } from './store.ts';

export interface KeyRouteDeps {
  accounts: AccountStore;
  /** Told when a key stops working (an exchanged invitation, a revoked key): its cached principal goes. */
  auth: Pick<Authenticator, 'invalidate'>;
}

export function registerKeyRoutes(app: FastifyInstance, deps: KeyRouteDeps): void {
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

  declareRoute(
    app,
    {
      method: 'GET',
      path: USER_KEYS_PATH,
      freshness: 'credential',
      tag: 'Admin',
      summary: "List a user's API keys (userId is a user id, an e-mail address, or me)",
      access: { kind: 'user' },
      params: UserParams,
      responses: { 200: KeyList },
      errors: [403],
    },
    async ({ principal, params }) => {
      const user = await targetUser(principal, params.userId);
      return { keys: (await deps.accounts.listKeys(principal.orgId, user.id)).map(keyView) };
    },
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: USER_KEYS_PATH,
      tag: 'Admin',
      summary: 'Create an API key for a user (userId is a user id, an e-mail address, or me)',
      description:
        'scope personal (the default) needs a personal API key as the credential, and the new key is revoked with that key; ' +
        'a JWT or a dashboard session mints collector keys for its own user only (403 otherwise), which last until revoked ' +
        '(but one minted with a delegated or invitation key, or a session signed in with one, is revoked with that key). ' +
        'A key for someone else, of either scope, needs your own personal API key. A collector key mints nothing. ' +
        '409 when the user is deactivated by the directory.',
      access: { kind: 'user' },
      params: UserParams,
      body: CreateKeyBody,
      bodyOptional: true,
      responses: { 201: CreatedKey },
      errors: [403, 409],
    },
    async ({ principal: actor, params, body }, request, reply) => {
      const user = await targetUser(actor, params.userId);
      const scope = body.scope ?? 'personal';
      if (user.id === actor.userId && actor.credential === 'invitation' && actor.keyId && scope === 'personal') {
        // The user exchanges their invitation for their own key; the invitation stops working at once.
        const exchanged = await deps.accounts.exchangeInvitation(user, actor.keyId, body.name);
        deps.auth.invalidate();
        if (!exchanged) throw unauthorized('This invitation key was already exchanged for a personal key or revoked');
        request.log.info({ actor: actor.userId, user: user.id, key: exchanged.info.id, invitation: actor.keyId }, 'invitation exchanged');
        reply.status(201);
        return { apiKey: exchanged.key, key: keyView(exchanged.info) };
      }
      const refusal =
        mintRefusal(actor, scope) ?? (user.id === actor.userId ? undefined : durableRefusal(actor, 'Minting a key for someone else'));
      if (refusal) throw forbidden(refusal);
      // A deactivated person's keys refuse until the directory reactivates them: minting one would only mislead.
      if (await deps.accounts.deactivated(actor.orgId, user.id))
        throw new HttpError(409, `${user.email} is deactivated by the organization directory (SCIM); a key for them would not work`);
      // A personal key ends with the key that minted it; a collector key stands on its own until revoked,
      // unless the credential stands on a key someone else minted for this user (its minter holds it too).
      const { key, info } = await deps.accounts.createKey(user, body.name, minter(actor), {
        scope,
        mintedWith: scope === 'personal' ? actor.keyId : actor.heldWith,
      });
      request.log.info({ actor: actor.userId, user: user.id, key: info.id, kind: info.kind, scope }, 'api key created');
      reply.status(201);
      return { apiKey: key, key: keyView(info) };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: KEY_PATH,
      tag: 'Admin',
      summary: 'Revoke an API key',
      description:
        'The personal keys minted with it are revoked with it (collector keys stay, unless it is a delegated or invitation key), and the SCIM tokens and computers\u2019 tokens minted with any of them. The machines page revokes collector keys here.',
      access: { kind: 'user' },
      params: KeyParams,
      responses: { 200: RevokedKey },
      errors: [403],
    },
    async ({ principal: actor, params: { keyId } }, request) => {
      const info = await deps.accounts.getKey(actor.orgId, keyId);
      if (!info) throw notFound(`no API key ${keyId}`);
      await targetUser(actor, info.user_id);
      const revoked = await deps.accounts.revokeKey(actor.orgId, keyId);
      deps.auth.invalidate();
      request.log.info({ actor: actor.userId, key: keyId, revoked }, 'api key revoked');
      return { key: keyView((await deps.accounts.getKey(actor.orgId, keyId))!), revoked };
    },
  );
}
