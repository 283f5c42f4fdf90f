// The SCIM 2.0 service a directory provisions people (and teams) through, under /scim/v2, and the owners'
// routes that mint and revoke the directory's token (/api/v0/admin/scim/tokens). The /scim/v2 routes take
// ONLY a SCIM token (api/scim/tokens.ts): they are public to the API's own authentication and check the
// token themselves, so an API key, a JWT or a dashboard cookie is refused there, as a SCIM token is
// everywhere else. Every answer is application/scim+json, errors included (RFC 7644 §3.12).

import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, HttpError, notFound } from '../../common/errors.ts';
import { isUserId, type OrgId } from '../../common/ids.ts';
import { describeZodError } from '../../common/wire.ts';
import type { AccountStore } from '../accounts/store.ts';
import { Address } from '../aliases/schema.ts';
import { AliasStore } from '../aliases/store.ts';
import type { Changes } from '../answers/changes.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { OWNERS } from '../auth/principal.ts';
import { boundDetail } from '../http/errors.ts';
import { durableRefusal } from '../keys/minting.ts';
import { declareRoute } from '../openapi/declare.ts';
import { UserParams } from '../users/schema.ts';
import { paging, parseEqFilter } from './filter.ts';
import { type ScimGroupRow, ScimGroupStore } from './groups.ts';
import { applyGroupPatch, applyUserPatch, type UserFields } from './patch.ts';
import { confirmRename, holdRename, pendingRenames, renamedUserId } from './renames.ts';
import { groupResource, listResponse, resourceTypes, schemas, serviceProviderConfig, userResource } from './resources.ts';
import {
  CONFIRM_RENAME_PATH,
  ConfirmedRename,
  CreatedScimToken,
  GroupBody,
  IdParams,
  ListQuery,
  MAX_RESULTS,
  PatchBody,
  PENDING_RENAMES_PATH,
  PendingRenameList,
  RevokedScimToken,
  SCIM_CONTENT_TYPE,
  SCIM_TOKEN_PATH,
  SCIM_TOKENS_PATH,
  ScimError,
  ScimTokenList,
  scimErrorBody,
  TokenBody,
  TokenParams,
  UserBody,
} from './schema.ts';
import { fieldsOf, type ScimUserRow, ScimUserStore, USER_FILTERS } from './store.ts';
import { SCIM_TOKEN_PREFIX, ScimTokenStore } from './tokens.ts';

export const SCIM_BASE = '/scim/v2';
const TOUCH_INTERVAL_MS = 60_000;

export interface ScimDeps {
  db: Db;
  accounts: AccountStore;
  auth: Authenticator;
  /** Told when a person's credentials were revoked (deactivated or deleted): answers name them. */
  changes?: Pick<Changes, 'changed'>;
  /** The server's clock (tests pin it): the UTC day a membership change applies from. */
  now?: () => Date;
}

/** What a SCIM route knows of its caller: the organization the token belongs to. */
export interface ScimCaller {
  orgId: OrgId;
  tokenId: string;
}

const callers = new WeakMap<FastifyRequest, ScimCaller>();
export const scimCaller = (request: FastifyRequest): ScimCaller => {
  const caller = callers.get(request);
  if (!caller) throw new ScimError(401, 'SCIM token missing');
  return caller;
};

/** The base URL of this server's SCIM service, as the directory reached it (meta.location). */
export const scimBase = (request: FastifyRequest) => `${request.protocol}://${request.host}${SCIM_BASE}`;

/** SCIM error bodies for everything a /scim/v2 route throws (Fastify's own 4xx errors included). */
function scimErrorHandler(error: FastifyError | Error, request: FastifyRequest, reply: import('fastify').FastifyReply): void {
  let status = 500;
  let detail = 'An internal error occurred; the request id identifies it in the server log.';
  let scimType: ScimError['scimType'];
  if (error instanceof ScimError) {
    status = error.status;
    detail = error.message;
    scimType = error.scimType;
  } else if (error instanceof HttpError) {
    status = error.status;
    detail = error.message;
  } else if (error instanceof z.ZodError) {
    status = 400;
    detail = describeZodError(error);
    scimType = 'invalidValue';
  } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    detail = error.message;
    if (status === 400) scimType = 'invalidSyntax';
  }
  if (status >= 500) request.log.error({ err: error }, 'scim request failed');
  else request.log.info({ status, detail, scimType }, 'scim request refused');
  void reply
    .status(status)
    .type(SCIM_CONTENT_TYPE)
    .send(scimErrorBody(status, status < 500 ? boundDetail(detail) : detail, scimType));
}

/** A user id from the path; another form names no user (404, as another organization's id does). */
async function foundUser(users: ScimUserStore, orgId: string, id: string): Promise<ScimUserRow> {
  const row = isUserId(id) ? await users.get(orgId, id) : undefined;
  if (!row) throw new ScimError(404, `no User ${id}`);
  return row;
}

/**
 * The directory's other e-mails of a User body (`emails[].value` other than `userName`), lower case, or
 * undefined when the body has no `emails`: they become the user's aliases (docs/metrics.md §5).
 */
function extraEmails(body: UserBody): string[] | undefined {
  const emails = (body as { emails?: unknown }).emails;
  if (!Array.isArray(emails)) return undefined;
  const out = new Set<string>();
  for (const e of emails) {
    const value = Address.safeParse((e as { value?: unknown } | null)?.value);
    if (value.success && value.data !== body.userName.toLowerCase()) out.add(value.data);
  }
  return [...out].slice(0, 20);
}

const bodyFields = (body: UserBody, active: boolean): UserFields => ({
  userName: body.userName.toLowerCase(),
  externalId: body.externalId ?? null,
  displayName: body.displayName ?? null,
  givenName: body.name?.givenName ?? null,
  familyName: body.name?.familyName ?? null,
  active: body.active ?? active,
});

export function registerScimRoutes(app: FastifyInstance, deps: ScimDeps): void {
  const tokens = new ScimTokenStore(deps.db);
  const users = new ScimUserStore(deps.db, deps.accounts);
  const aliases = new AliasStore(deps.db);
  const groups = new ScimGroupStore(deps.db);
  const touched = new Map<string, number>();
  const today = () => (deps.now ?? (() => new Date()))().toISOString().slice(0, 10);

  registerTokenRoutes(app, tokens);
  registerRenameRoutes(app, deps.db, deps.auth, deps.changes);

  app.register(
    async (scim) => {
      // Directories send application/scim+json; it is JSON.
      scim.addContentTypeParser('application/scim+json', { parseAs: 'string' }, scim.getDefaultJsonParser('error', 'error'));
      scim.setErrorHandler(scimErrorHandler);
      scim.setNotFoundHandler((request, reply) =>
        scimErrorHandler(new ScimError(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}`), request, reply),
      );
      scim.addHook('onRequest', async (request, reply) => {
        void reply.type(SCIM_CONTENT_TYPE);
        const header = request.headers.authorization;
        const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
        if (!match) throw new ScimError(401, 'send "Authorization: Bearer <SCIM token>" (agentmeter scim token create)');
        const token = match[1]!;
        const found = await tokens.lookup(token);
        if (!found)
          throw new ScimError(
            401,
            token.startsWith(SCIM_TOKEN_PREFIX)
              ? 'SCIM token unknown or revoked'
              : 'only a SCIM token (amscim_…) is accepted here; an API key or JWT is not a SCIM token',
          );
        callers.set(request, found);
        // last_used_at at most once a minute per token: a directory's sync must not turn reads into writes.
        if (Date.now() - (touched.get(found.tokenId) ?? 0) >= TOUCH_INTERVAL_MS) {
          touched.set(found.tokenId, Date.now());
          tokens.touch(found.tokenId).catch((error) => request.log.warn({ error: String(error) }, 'could not record SCIM token use'));
        }
      });
      const pub = { config: { public: true } };

      scim.get('/ServiceProviderConfig', pub, async (request) => serviceProviderConfig(scimBase(request)));
      scim.get('/ResourceTypes', pub, async (request) => {
        const types = resourceTypes(scimBase(request));
        return listResponse(types, types.length, 1);
      });
      scim.get('/Schemas', pub, async (request) => {
        const all = schemas(scimBase(request));
        return listResponse(all, all.length, 1);
      });

      scim.get('/Users', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const query = ListQuery.parse(request.query ?? {});
        const page = paging(query.startIndex, query.count, MAX_RESULTS);
        const filter = query.filter ? parseEqFilter(query.filter, Object.keys(USER_FILTERS)) : undefined;
        const { total, rows } = await users.list(
          orgId,
          filter ? { where: USER_FILTERS[filter.attribute]!, value: filter.value } : undefined,
          page.startIndex,
          page.count,
        );
        const base = scimBase(request);
        return listResponse(
          rows.map((r) => userResource(r, base)),
          total,
          page.startIndex,
        );
      });

      scim.get('/Users/:id', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        return userResource(await foundUser(users, orgId, id), scimBase(request));
      });

      scim.post('/Users', pub, async (request, reply) => {
        const { orgId } = scimCaller(request);
        const body = UserBody.parse(request.body);
        const fields = bodyFields(body, true);
        if (await users.byEmail(orgId, fields.userName))
          throw new ScimError(
            409,
            `${fields.userName} is already a user of this organization (filter userName eq to find them)`,
            'uniqueness',
          );
        const row = await users.create(orgId, fields);
        const extra = extraEmails(body);
        if (extra) {
          await aliases.setDirectory(orgId, row.id, extra);
          deps.changes?.changed({ kind: 'user', org: orgId });
        }
        request.log.info({ user: row.id, active: row.active }, 'scim user created');
        return reply
          .status(201)
          .header('location', `${scimBase(request)}/Users/${row.id}`)
          .send(userResource(row, scimBase(request)));
      });

      const write = async (request: FastifyRequest, before: ScimUserRow, fields: UserFields) => {
        const { orgId } = scimCaller(request);
        if (fields.userName !== before.email) {
          const taken = await users.byEmail(orgId, fields.userName);
          if (taken && taken.id !== before.id)
            throw new ScimError(409, `${fields.userName} is already another user of this organization`, 'uniqueness');
          // An owner's e-mail is who signs in as them: a rename waits for an owner (api/scim/renames.ts).
          if (before.role === 'owner') {
            await holdRename(deps.db, orgId, before.id, fields.userName);
            request.log.warn({ user: before.id }, 'scim rename of an owner held until an owner confirms it');
            throw new ScimError(
              403,
              `renaming an owner needs an owner's confirmation: the rename of ${before.email} to ${fields.userName} is held until an owner runs "agentmeter users confirm-rename ${before.id}" (or POST /api/v0/admin/users/${before.id}/confirm-rename with their personal API key); the next sync then succeeds`,
              'mutability',
            );
          }
        }
        const { row, revoked } = await users.update(orgId, before, fields);
        // Answers carry the e-mail: a rename makes them stale too.
        if (!revoked && row.email !== before.email) deps.changes?.changed({ kind: 'user', org: orgId });
        if (revoked) {
          deps.auth.invalidate();
          deps.changes?.changed({ kind: 'user', org: orgId });
          request.log.info({ user: row.id }, 'scim user deactivated: keys, computer tokens and dashboard sessions revoked');
        }
        return userResource(row, scimBase(request));
      };

      scim.put('/Users/:id', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        const before = await foundUser(users, orgId, id);
        // A replace without `active` keeps the person as they are (Okta sends it; some directories do not).
        const body = UserBody.parse(request.body);
        const answer = await write(request, before, bodyFields(body, before.active));
        const extra = extraEmails(body);
        if (extra) {
          await aliases.setDirectory(orgId, before.id, extra);
          deps.changes?.changed({ kind: 'user', org: orgId });
        }
        return answer;
      });

      scim.patch('/Users/:id', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        const before = await foundUser(users, orgId, id);
        const { Operations } = PatchBody.parse(request.body);
        const { fields, ignored } = applyUserPatch(fieldsOf(before), Operations);
        if (ignored.length) request.log.info({ user: id, ignored }, 'scim patch: attributes agentmeter does not keep were ignored');
        return write(request, before, fields);
      });

      scim.delete('/Users/:id', pub, async (request, reply) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        const before = await foundUser(users, orgId, id);
        const report = await users.remove(orgId, before);
        deps.auth.invalidate();
        deps.changes?.changed({ kind: 'user', org: orgId });
        request.log.info(
          { user: id, keysRevoked: report.keysRevoked, computersRevoked: report.computersRevoked },
          'scim user deleted (usage kept)',
        );
        return reply.status(204).send();
      });

      const foundGroup = async (orgId: string, id: string): Promise<ScimGroupRow> => {
        const row = await groups.get(orgId, id, today());
        if (!row) throw new ScimError(404, `no Group ${id}`);
        return row;
      };
      const withMembers = (request: FastifyRequest) =>
        !/(^|,)\s*members\s*(,|$)/i.test(String((request.query as Record<string, unknown> | undefined)?.['excludedAttributes'] ?? ''));

      scim.get('/Groups', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const query = ListQuery.parse(request.query ?? {});
        const page = paging(query.startIndex, query.count, MAX_RESULTS);
        const filter = query.filter ? parseEqFilter(query.filter, ['displayname', 'id']) : undefined;
        const { total, rows } = await groups.list(orgId, filter, today(), page.startIndex, page.count);
        const base = scimBase(request);
        return listResponse(
          rows.map((r) => groupResource(r, base, withMembers(request))),
          total,
          page.startIndex,
        );
      });

      scim.get('/Groups/:id', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        return groupResource(await foundGroup(orgId, id), scimBase(request), withMembers(request));
      });

      scim.post('/Groups', pub, async (request, reply) => {
        const { orgId } = scimCaller(request);
        const body = GroupBody.parse(request.body);
        const row = await groups.create(orgId, body.displayName, [...new Set((body.members ?? []).map((m) => m.value))], today());
        request.log.info({ team: row.team.id, members: row.members.length }, 'scim group created');
        return reply
          .status(201)
          .header('location', `${scimBase(request)}/Groups/${row.team.id}`)
          .send(groupResource(row, scimBase(request)));
      });

      scim.put('/Groups/:id', pub, async (request) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        const before = await foundGroup(orgId, id);
        const body = GroupBody.parse(request.body);
        const row = await groups.update(orgId, before, body.displayName, [...new Set((body.members ?? []).map((m) => m.value))], today());
        request.log.info({ team: id, members: row.members.length }, 'scim group replaced');
        return groupResource(row, scimBase(request));
      });

      scim.patch('/Groups/:id', pub, async (request, reply) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        const before = await foundGroup(orgId, id);
        const { Operations } = PatchBody.parse(request.body);
        const { fields, ignored } = applyGroupPatch(
          { displayName: before.team.name, externalId: null, members: before.members.map((m) => m.value) },
          Operations,
        );
        if (ignored.length) request.log.info({ team: id, ignored }, 'scim patch: attributes agentmeter does not keep were ignored');
        const row = await groups.update(orgId, before, fields.displayName, fields.members, today());
        request.log.info({ team: id, members: row.members.length }, 'scim group patched');
        // Members are asked for only when the directory wants them back (RFC 7644 §3.5.2: 200 or 204).
        return reply.status(200).send(groupResource(row, scimBase(request), withMembers(request)));
      });

      scim.delete('/Groups/:id', pub, async (request, reply) => {
        const { orgId } = scimCaller(request);
        const { id } = IdParams.parse(request.params);
        await foundGroup(orgId, id);
        await groups.remove(orgId, id);
        request.log.info({ team: id }, 'scim group deleted');
        return reply.status(204).send();
      });
    },
    { prefix: SCIM_BASE },
  );
}

/** Owners see the directory's renames of owners held for them, and confirm one with their own key. */
function registerRenameRoutes(app: FastifyInstance, db: Db, auth: Authenticator, changes: ScimDeps['changes']): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: PENDING_RENAMES_PATH,
      tag: 'SCIM',
      summary: "The directory's renames of owners waiting for an owner to confirm them",
      action: 'Listing held renames',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: PendingRenameList },
    },
    async ({ principal: actor }) => ({ renames: await pendingRenames(db, actor.orgId) }),
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: CONFIRM_RENAME_PATH,
      tag: 'SCIM',
      summary: "Confirm the directory's rename of an owner (userId is a user id or their current e-mail address)",
      description:
        "An owner's new e-mail address is who signs in as them, so it needs an owner's own personal API key (a JWT, a dashboard session or a key someone else minted gets 403). 404 when no rename of the user is held; 409 when the new address is another user's.",
      action: 'Confirming a directory rename of an owner',
      access: { kind: 'user', roles: OWNERS },
      params: UserParams,
      responses: { 200: ConfirmedRename },
      errors: [403, 404, 409],
    },
    async ({ principal: actor, params: { userId } }, request) => {
      const refusal = durableRefusal(actor, 'Confirming a directory rename of an owner', 'the new address signs in as that owner');
      if (refusal) throw forbidden(refusal);
      const id = await renamedUserId(db, actor.orgId, userId);
      if (!id) throw notFound(`no user ${userId.slice(0, 100)}`);
      const rename = await confirmRename(db, actor.orgId, id);
      // Cached principals and answers carry the old e-mail.
      auth.invalidate();
      changes?.changed({ kind: 'user', org: actor.orgId });
      request.log.info({ actor: actor.userId, user: rename.userId }, 'directory rename of an owner confirmed');
      return { rename };
    },
  );
}

/** Owners mint, list and revoke their organization's SCIM tokens. */
function registerTokenRoutes(app: FastifyInstance, tokens: ScimTokenStore): void {
  declareRoute(
    app,
    {
      method: 'POST',
      path: SCIM_TOKENS_PATH,
      tag: 'SCIM',
      summary: 'Mint a SCIM token for a directory (Okta, Microsoft Entra ID); the token is in this answer only',
      description:
        'The token (amscim_…) is accepted only on /scim/v2/* (docs/scim.md), and an API key is never accepted there. Stored as a SHA-256 hash. ' +
        'Needs your own personal API key: a JWT, a dashboard session or a key someone else minted gets 403.',
      action: 'Minting a SCIM token',
      access: { kind: 'user', roles: OWNERS },
      body: TokenBody,
      bodyOptional: true,
      responses: { 201: CreatedScimToken },
      errors: [403],
    },
    async ({ principal: actor, body }, request, reply) => {
      // The token lasts until revoked, whoever minted it: a cookie or a JWT that ends must not leave one behind.
      const refusal = durableRefusal(actor, 'Minting a SCIM token');
      if (refusal) throw forbidden(refusal);
      const { token, view } = await tokens.create(actor.orgId, body.name, actor.userId, actor.keyId ?? null);
      request.log.info({ actor: actor.userId, scimToken: view.id }, 'scim token created');
      reply.status(201).header('cache-control', 'no-store');
      return { token, scimToken: view };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: SCIM_TOKENS_PATH,
      tag: 'SCIM',
      summary: "The organization's SCIM tokens (never the tokens themselves)",
      action: 'Listing SCIM tokens',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ScimTokenList },
    },
    async ({ principal: actor }): Promise<ScimTokenList> => ({ tokens: await tokens.list(actor.orgId) }),
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: SCIM_TOKEN_PATH,
      tag: 'SCIM',
      summary: 'Revoke a SCIM token; the directory using it is refused at once',
      action: 'Revoking a SCIM token',
      access: { kind: 'user', roles: OWNERS },
      params: TokenParams,
      responses: { 200: RevokedScimToken },
    },
    async ({ principal: actor, params: { tokenId } }, request): Promise<RevokedScimToken> => {
      if (!(await tokens.get(actor.orgId, tokenId))) throw notFound(`no SCIM token ${tokenId}`);
      const revoked = await tokens.revoke(actor.orgId, tokenId);
      request.log.info({ actor: actor.userId, scimToken: tokenId, revoked }, 'scim token revoked');
      return { scimToken: (await tokens.get(actor.orgId, tokenId))!, revoked };
    },
  );
}
