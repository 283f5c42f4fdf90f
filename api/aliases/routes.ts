// A user's other addresses (docs/metrics.md §5 "Landed"): owners list, add and remove them (a code host's
// no-reply address, so that a squash merge it authored lands for the user); a collector reads its own
// user's addresses to know which commits are theirs. The server takes a landed commit only from a key of
// the user who owns its author address (api/ingest/store.ts).

import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError, notFound } from '../../common/errors.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Changes } from '../answers/changes.ts';
import { OWNERS, PEOPLE } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import {
  Address,
  ALIAS_PATH,
  ALIASES_PATH,
  AliasBody,
  AliasItemParams,
  AliasList,
  AliasParams,
  MY_ADDRESSES_PATH,
  MyAddresses,
} from './schema.ts';
import { AliasStore } from './store.ts';

export function registerAliasRoutes(
  app: FastifyInstance,
  deps: { db: Db; accounts: AccountStore; changes?: Pick<Changes, 'changed'> | undefined },
): void {
  const store = new AliasStore(deps.db);
  const userOf = async (orgId: string, userId: string) => {
    const user = userId.includes('@') ? await deps.accounts.findUserByEmail(orgId, userId) : await deps.accounts.getUser(orgId, userId);
    if (!user) throw notFound(`no user ${userId.slice(0, 100)}`);
    return user;
  };

  declareRoute(
    app,
    {
      method: 'GET',
      path: ALIASES_PATH,
      freshness: 'setting',
      tag: 'Admin',
      summary: "A user's other addresses (userId is a user id or an e-mail address)",
      description: 'Commits authored by one of these addresses land for the user.',
      action: 'Reading aliases',
      access: { kind: 'user', roles: OWNERS },
      params: AliasParams,
      responses: { 200: AliasList },
    },
    async ({ principal, params }): Promise<AliasList> => {
      const user = await userOf(principal.orgId, params.userId);
      return { data: await store.list(principal.orgId, user.id), meta: { user_id: user.id } };
    },
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: ALIASES_PATH,
      tag: 'Admin',
      summary: 'Give a user another address: commits it authored land for them',
      description: "409 when the address is another user's e-mail or alias. Adding an address the user has already answers 200.",
      action: 'Adding aliases',
      access: { kind: 'user', roles: OWNERS },
      params: AliasParams,
      body: AliasBody,
      responses: { 200: AliasList, 201: AliasList },
      errors: [409],
    },
    async ({ principal, params, body }, request, reply): Promise<AliasList> => {
      const user = await userOf(principal.orgId, params.userId);
      const result = await store.add(principal.orgId, user.id, body.email, 'owner');
      // A member's pull requests are those of their addresses.
      deps.changes?.changed({ kind: 'user', org: principal.orgId });
      if (result === 'taken') throw new HttpError(409, `${body.email} is another user's address in this organization`);
      if (result === 'added') {
        request.log.info({ actor: principal.userId, user: user.id }, 'alias added');
        reply.status(201);
      }
      return { data: await store.list(principal.orgId, user.id), meta: { user_id: user.id } };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: ALIAS_PATH,
      tag: 'Admin',
      summary: "Remove one of a user's other addresses",
      description: 'Commits already stored stay; new ones of that address are refused.',
      action: 'Removing aliases',
      access: { kind: 'user', roles: OWNERS },
      params: AliasItemParams,
      responses: { 200: AliasList },
    },
    async ({ principal, params }, request): Promise<AliasList> => {
      const user = await userOf(principal.orgId, params.userId);
      const email = Address.safeParse(params.email);
      if (!email.success || !(await store.remove(principal.orgId, user.id, email.data)))
        throw notFound(`${params.email.slice(0, 320)} is not an alias of ${user.email}`);
      deps.changes?.changed({ kind: 'user', org: principal.orgId });
      request.log.info({ actor: principal.userId, user: user.id }, 'alias removed');
      return { data: await store.list(principal.orgId, user.id), meta: { user_id: user.id } };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: MY_ADDRESSES_PATH,
      freshness: 'setting',
      tag: 'Analytics',
      summary: "The caller's addresses: their e-mail and aliases (commits of these authors land for them)",
      description:
        "Open to a collector-scoped key: the collector ships only the commits of these addresses; answers only about the credential's own user.",
      action: 'Your addresses',
      access: { kind: 'user', roles: PEOPLE, collectorKey: true },
      responses: { 200: MyAddresses },
    },
    async ({ principal }): Promise<MyAddresses> => ({ data: { addresses: await store.addresses(principal.orgId, principal.userId) } }),
  );
}
