// /scim/v2/Groups: a directory's groups are the organization's teams, with dated memberships from the
// UTC day of the change (api/teams/).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { MISLEADING_CHARACTER, UNSHOWN_CHARACTER } from '../../common/unshown.ts';
import { scimBase, scimCaller } from './caller.ts';
import { paging, parseEqFilter } from './filter.ts';
import { type ScimGroupRow, ScimGroupStore } from './groups.ts';
import { applyGroupPatch } from './patch.ts';
import { groupResource, listResponse } from './resources.ts';
import { GroupBody, IdParams, ListQuery, MAX_RESULTS, PatchBody, ScimError } from './schema.ts';

/** What a Group filter's value may not hold: a team name's refused characters (common/team-name.ts), an id's. */
const GROUP_FILTER_RULES = {
  displayname: { refuses: MISLEADING_CHARACTER, what: 'a team name' },
  id: { refuses: UNSHOWN_CHARACTER, what: 'a team id' },
};

/** The /Groups routes on the SCIM instance; `today` is the server's UTC day, when a membership change applies. */
export function registerScimGroupRoutes(scim: FastifyInstance, db: Db, today: () => string): void {
  const groups = new ScimGroupStore(db);
  const pub = { config: { public: true } };

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
    const filter = query.filter ? parseEqFilter(query.filter, ['displayname', 'id'], GROUP_FILTER_RULES) : undefined;
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
}
