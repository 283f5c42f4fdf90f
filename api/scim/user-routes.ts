// /scim/v2/Users: a directory lists, creates, replaces, patches and deletes the organization's people.
// Deactivating or deleting a person revokes their credentials at once; renaming an owner is held for an
// owner's confirmation (renames.ts); the directory's other e-mails become the person's aliases.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { isUserId, type OrgId, type UserId } from '../../common/ids.ts';
import { UNSHOWN_CHARACTER } from '../../common/unshown.ts';
import type { AccountStore } from '../accounts/store.ts';
import { Address } from '../aliases/schema.ts';
import { AliasStore, refuseAnAlias } from '../aliases/store.ts';
import type { Changes } from '../answers/changes.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { IngestStore } from '../ingest/store.ts';
import { scimBase, scimCaller } from './caller.ts';
import { paging, parseEqFilter } from './filter.ts';
import { applyUserPatch, type UserFields } from './patch.ts';
import { holdRename } from './renames.ts';
import { listResponse, userResource } from './resources.ts';
import { IdParams, ListQuery, MAX_RESULTS, PatchBody, ScimError, UserBody } from './schema.ts';
import { fieldsOf, type ScimUserRow, ScimUserStore, USER_FILTERS } from './store.ts';

/**
 * What a User filter's value may not hold: ids are agentmeter's own, printable ASCII. E-mail addresses are
 * stored as the directory, the identity provider or an operator gave them, and an externalId is the
 * directory's own, so any value may find one of those.
 */
const USER_FILTER_RULES = {
  id: { refuses: UNSHOWN_CHARACTER, what: 'a user id' },
};
export interface ScimUserDeps {
  db: Db;
  accounts: AccountStore;
  auth: Authenticator;
  /** Told when a person was renamed, got other e-mails, or lost their credentials: answers name them. */
  changes?: Pick<Changes, 'changed'> | undefined;
  /** A deletion runs while no batch is written, and the person's batches are refused after it. */
  ingest: Pick<IngestStore, 'removeSender'>;
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

/** The /Users routes on the SCIM instance (its prefix, error handler and token check are routes.ts's). */
export function registerScimUserRoutes(scim: FastifyInstance, { db, accounts, auth, changes, ingest }: ScimUserDeps): void {
  const users = new ScimUserStore(db, accounts);
  const aliases = new AliasStore(db);
  const pub = { config: { public: true } };

  scim.get('/Users', pub, async (request) => {
    const { orgId } = scimCaller(request);
    const query = ListQuery.parse(request.query ?? {});
    const page = paging(query.startIndex, query.count, MAX_RESULTS);
    const filter = query.filter ? parseEqFilter(query.filter, Object.keys(USER_FILTERS), USER_FILTER_RULES) : undefined;
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
      throw new ScimError(409, `${fields.userName} is already a user of this organization (filter userName eq to find them)`, 'uniqueness');
    // An address that is another user's alias: 409 uniqueness from the store (AliasTakenError).
    const row = await users.create(orgId, fields);
    const extra = extraEmails(body);
    if (extra) {
      await aliases.setDirectory(orgId, row.id, extra);
      changes?.changed({ kind: 'user', org: orgId });
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
      // Asked here too, before an owner's rename is held for a confirmation it could never get; the store
      // asks again in the rename's own transaction.
      await refuseAnAlias(db, orgId, fields.userName, before.id);
      // An owner's e-mail is who signs in as them: a rename waits for an owner (api/scim/renames.ts).
      if (before.role === 'owner') {
        await holdRename(db, orgId, before.id, fields.userName);
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
    if (!revoked && row.email !== before.email) changes?.changed({ kind: 'user', org: orgId });
    if (revoked) {
      auth.invalidate();
      changes?.changed({ kind: 'user', org: orgId });
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
      changes?.changed({ kind: 'user', org: orgId });
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
    const report = await ingest.removeSender(orgId as OrgId, before.id as UserId, () => users.remove(orgId, before));
    auth.invalidate();
    changes?.changed({ kind: 'user', org: orgId });
    request.log.info(
      { user: id, keysRevoked: report.keysRevoked, computersRevoked: report.computersRevoked },
      'scim user deleted (usage kept)',
    );
    return reply.status(204).send();
  });
}
