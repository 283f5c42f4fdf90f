// Landed commits on the server (docs/metrics.md §5, issues #30 and #28 item 9): a commit is taken only from a
// key of the user who owns its author address (their e-mail, or an alias an owner gave them); when several
// machines of the author report it the record with the most agent lines stands; repository names pass the
// readiness reports' rules; a commit is listed and counted in /today's `code` as soon as the server has
// it, today included; the OpenAPI text of group_by=repo says what is returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AliasStore } from '../../api/aliases/store.ts';
import { CommitPage } from '../../api/code/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit } from '../../common/wire.ts';
import { at, call } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T12:00:00Z');
const TODAY = '2026-03-20';
const D1 = '2026-03-10';
const log = createLogger({ name: 'test', level: 'silent' });
const SHOP = repoId('https://github.com/acme/shop.git');

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
const MEMBER = 'member@impact.example.com';
const OWNER = 'owner@impact.example.com';

const hex = (c: string) => c.repeat(40);
function commit(
  sha: string,
  when: string,
  author: string,
  agent: number,
  session = 's1',
  o: Partial<WireLandedCommit> = {},
): WireLandedCommit {
  return {
    kind: 'commit',
    id: `${SHOP}:${sha}`,
    repo_id: SHOP,
    repo: 'github.com/acme/shop',
    commit: sha,
    ts: at(when),
    author,
    lines_added: 10,
    lines_deleted: 1,
    agent_lines: agent,
    by_agent: agent ? [{ agent: 'claude', model: 'claude-sonnet-4-5', lines: agent }] : [],
    by_session: agent ? [{ agent: 'claude', session_id: session, lines: agent }] : [],
    ...o,
  };
}

async function post(key: string, records: unknown[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { received: number; stored: number; duplicates: number; rejected: { index: number; reason: string }[] };
}
async function request(method: 'GET' | 'POST' | 'DELETE', url: string, key: string, status: number, payload?: unknown) {
  const res = await server.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload: payload as object } : {}) });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}
const commits = async (key: string, from = D1, to = TODAY) =>
  CommitPage.parse(await request('GET', `/api/v0/code/commits?startDate=${from}&endDate=${to}&limit=100`, key, 200)).data;

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Impact');
  other = await server.seedOrg('Other');
});
afterAll(async () => {
  await server?.close();
});

describe('who may report a landed commit', () => {
  it("refuses a member's record of a colleague's commit, and takes the author's own", async () => {
    const claim = await post(org.users.member.key, [commit(hex('a'), `${D1}T10:00:00Z`, OWNER, 0)]);
    expect(claim.stored).toBe(0);
    expect(claim.rejected).toEqual([expect.objectContaining({ index: 0, reason: expect.stringMatching(/author address is not yours/) })]);
    const own = await post(org.users.owner.key, [commit(hex('a'), `${D1}T10:00:00Z`, OWNER, 7)]);
    expect(own).toMatchObject({ stored: 1, rejected: [] });
    const listed = (await commits(org.users.owner.key)).find((c) => c.commit === hex('a'));
    expect(listed).toMatchObject({ user_id: org.users.owner.id, author: OWNER, agent_lines: 7 });
    // Another organization's owner with the same address form cannot put it into this organization.
    const elsewhere = await post(other.users.owner.key, [commit(hex('a'), `${D1}T10:00:00Z`, OWNER, 9)]);
    expect(elsewhere.rejected).toHaveLength(1);
  });

  it("refuses a colleague's copy of a commit the owner holds, under the colleague's own address, with more agent lines", async () => {
    expect(await post(org.users.owner.key, [commit(hex('9'), `${D1}T10:30:00Z`, OWNER, 3)])).toMatchObject({ stored: 1, rejected: [] });
    const taken = await post(org.users.member.key, [commit(hex('9'), `${D1}T10:30:00Z`, MEMBER, 10, 's7')]);
    expect(taken).toMatchObject({ stored: 0, duplicates: 0 });
    expect(taken.rejected).toEqual([
      expect.objectContaining({ index: 0, reason: expect.stringMatching(/another user of the organization holds this commit/) }),
    ]);
    const listed = (await commits(org.users.owner.key)).find((c) => c.commit === hex('9'));
    expect(listed).toMatchObject({ user_id: org.users.owner.id, author: OWNER, agent_lines: 3 });
    // The holder's own machines still replace it with a record of more agent lines.
    expect(await post(org.users.owner.key, [commit(hex('9'), `${D1}T10:30:00Z`, OWNER, 5)])).toMatchObject({ stored: 1, rejected: [] });
  });

  it("gives a removed user's commit to its address's new owner when they report it", async () => {
    // An organization of its own: the other tests count this one's commits and addresses.
    const team = await server.seedOrg('Leavers');
    const LEAVER = 'leaver@leavers.example.com';
    const leaver = await server.services.accounts.createUser({ orgId: team.orgId as never, email: LEAVER, role: 'member' });
    const leaverKey = (await server.services.accounts.createKey(leaver)).key;
    expect(await post(leaverKey, [commit(hex('7'), `${D1}T09:00:00Z`, LEAVER, 6)])).toMatchObject({ stored: 1, rejected: [] });
    // Removed without erasure: the commit stays, held by a user who is gone. The address goes to the member.
    await request('DELETE', `/api/v0/admin/users/${leaver.id}`, team.users.owner.key, 200);
    await request('POST', `/api/v0/admin/users/${team.users.member.id}/aliases`, team.users.owner.key, 201, { email: LEAVER });
    const retaken = await post(team.users.member.key, [commit(hex('7'), `${D1}T09:00:00Z`, LEAVER, 2, 's9')]);
    expect(retaken).toMatchObject({ stored: 1, rejected: [] });
    const listed = (await commits(team.users.owner.key)).filter((c) => c.commit === hex('7'));
    expect(listed).toEqual([expect.objectContaining({ user_id: team.users.member.id, author: LEAVER, agent_lines: 2 })]);
    // Held again, by a present user: a colleague's copy is refused as before.
    const owner = await post(team.users.owner.key, [commit(hex('7'), `${D1}T09:00:00Z`, 'owner@leavers.example.com', 9)]);
    expect(owner.rejected).toHaveLength(1);
  });

  it('takes the commits of an alias an owner gave (a code host no-reply address), and no longer once removed', async () => {
    const noreply = '12345+member@users.noreply.github.com';
    const url = `/api/v0/admin/users/${org.users.member.id}/aliases`;
    // Only an owner gives aliases; an address of another user is refused.
    await request('POST', url, org.users.manager.key, 403, { email: noreply });
    await request('POST', url, org.users.owner.key, 409, { email: OWNER.toUpperCase() });
    const added = await request('POST', url, org.users.owner.key, 201, { email: `  ${noreply.toUpperCase()} ` });
    expect(added.data.map((a: { email: string }) => a.email)).toEqual([noreply]);
    await request('POST', `/api/v0/admin/users/${org.users.owner.id}/aliases`, org.users.owner.key, 409, { email: noreply });
    // The member's collector learns its addresses.
    expect((await request('GET', '/api/v0/me/addresses', org.users.member.key, 200)).data.addresses).toEqual([MEMBER, noreply]);
    // A squash merge GitHub authored with the no-reply address lands for the member.
    expect(await post(org.users.member.key, [commit(hex('b'), `${D1}T11:00:00Z`, noreply, 4)])).toMatchObject({ stored: 1 });
    expect((await commits(org.users.member.key)).map((c) => c.commit)).toContain(hex('b'));
    await request('DELETE', `${url}/${encodeURIComponent(noreply)}`, org.users.owner.key, 200);
    expect((await post(org.users.member.key, [commit(hex('c'), `${D1}T12:00:00Z`, noreply, 4)])).rejected).toHaveLength(1);
    await request('DELETE', `${url}/${encodeURIComponent(noreply)}`, org.users.owner.key, 404);
  });

  it("takes the directory's extra e-mails (SCIM emails) as the user's aliases", async () => {
    const minted = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/scim/tokens',
      headers: bearer(org.users.owner.key),
      payload: {},
    });
    const token = minted.json().token as string;
    const scim = (method: 'POST' | 'PUT', url: string, body: unknown) =>
      server.app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: { ...bearer(token), 'content-type': 'application/scim+json' },
        payload: JSON.stringify(body),
      });
    const user = (emails: string[]) => ({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'dee@impact.example.com',
      emails: emails.map((value, i) => ({ value, primary: i === 0 })),
    });
    const created = await scim('POST', '/Users', user(['dee@impact.example.com', 'Dee@Users.NoReply.GitHub.com', MEMBER]));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const listed = await request('GET', `/api/v0/admin/users/${id}/aliases`, org.users.owner.key, 200);
    // The member's address stays the member's.
    expect(listed.data).toEqual([expect.objectContaining({ email: 'dee@users.noreply.github.com', source: 'directory' })]);
    expect((await scim('PUT', `/Users/${id}`, user(['dee@impact.example.com']))).statusCode).toBe(200);
    expect((await request('GET', `/api/v0/admin/users/${id}/aliases`, org.users.owner.key, 200)).data).toEqual([]);
  });

  it('gives an address to one user when an alias and a new user ask for it at the same moment', async () => {
    const race = await server.seedOrg('Race');
    const aliases = new AliasStore(server.db);
    const email = 'racer@race.example.com';
    // The new user's check runs first, the alias's whole transaction next, then the new user's write.
    const [user, alias] = await Promise.allSettled([
      server.services.accounts.createUser({ orgId: race.orgId as never, email, role: 'member' }),
      aliases.add(race.orgId, race.users.member.id, email, 'owner'),
    ]);
    expect(user.status === 'fulfilled' && alias.status === 'fulfilled' && alias.value === 'added', 'both took the address').toBe(false);
    const held = await server.db.all(
      `SELECT email FROM (SELECT email FROM user_aliases WHERE org_id = $org UNION ALL SELECT lower(email) FROM users WHERE org_id = $org)
       GROUP BY email HAVING count(*) > 1`,
      { org: race.orgId },
    );
    expect(held).toEqual([]);
  });

  it("never makes a user's alias another user's e-mail: adding a user, the directory's new user or rename (409)", async () => {
    const alias = '777+member@users.noreply.github.com';
    await request('POST', `/api/v0/admin/users/${org.users.member.id}/aliases`, org.users.owner.key, 201, { email: alias });
    const added = await request('POST', '/api/v0/admin/users', org.users.owner.key, 409, { email: alias.toUpperCase(), role: 'member' });
    expect(added.detail).toMatch(/another user's alias/);
    const token = (await request('POST', '/api/v0/admin/scim/tokens', org.users.owner.key, 201, {})).token as string;
    const scim = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      server.app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: { ...bearer(token), 'content-type': 'application/scim+json' },
        payload: JSON.stringify(body),
      });
    const created = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: alias });
    expect(created.statusCode).toBe(409);
    expect(created.json()).toMatchObject({ scimType: 'uniqueness' });
    const other = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'gil@impact.example.com',
    });
    expect(other.statusCode, other.body).toBe(201);
    const renamed = await scim('PATCH', `/Users/${other.json().id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'userName', value: alias }],
    });
    expect(renamed.statusCode).toBe(409);
    // Nobody but the member has the address.
    const owners = await server.db.all(
      `SELECT id FROM users WHERE org_id = $org AND email = $alias UNION ALL SELECT user_id FROM user_aliases WHERE org_id = $org AND email = $alias`,
      { org: org.orgId, alias },
    );
    expect(owners).toEqual([{ id: org.users.member.id }]);
  });

  it('refuses repository names the readiness reports refuse: file://, local paths, credentials, control characters', async () => {
    const names = [
      'file:///home/dev/shop',
      '/home/dev/shop',
      '~/src/shop',
      'tok:secret@github.com/acme/shop',
      'github.com/acme/sh\u0007op',
      'https://github.com/acme/shop',
    ];
    const res = await post(
      org.users.member.key,
      names.map((repo, i) => commit(hex(String(i)), `${D1}T09:00:00Z`, MEMBER, 0, 's1', { repo })),
    );
    expect(res.stored).toBe(0);
    expect(res.rejected.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('several machines of the author', () => {
  it('keeps the record with the most agent lines, whichever arrives first (never a sum)', async () => {
    // The second machine, without the ledger, reports first.
    await post(org.users.member.key, [commit(hex('d'), `${D1}T13:00:00Z`, MEMBER, 0)]);
    await post(org.users.member.key, [commit(hex('d'), `${D1}T13:00:00Z`, MEMBER, 6, 's9')]);
    await post(org.users.member.key, [commit(hex('d'), `${D1}T13:00:00Z`, MEMBER, 3, 's8')]);
    // Two in one batch: the larger stands too.
    await post(org.users.member.key, [commit(hex('e'), `${D1}T14:00:00Z`, MEMBER, 2), commit(hex('e'), `${D1}T14:00:00Z`, MEMBER, 5)]);
    const listed = await commits(org.users.member.key);
    expect(listed.find((c) => c.commit === hex('d'))).toMatchObject({
      agent_lines: 6,
      by_session: [{ agent: 'claude', session_id: 's9', lines: 6 }],
    });
    expect(listed.find((c) => c.commit === hex('e'))).toMatchObject({ agent_lines: 5 });
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    const day = await request('GET', `/api/v1/analytics/code?startDate=${D1}&endDate=${D1}`, org.users.member.key, 200);
    // The member's commits of D1: b (4), d (6), e (5).
    expect(day.data[0].landed).toMatchObject({ commits: 3, agent_lines_added: 15 });
  });
});

describe('today', () => {
  it('lists commits through today, and says so of an endDate after it (400)', async () => {
    const key = org.users.owner.key;
    await request('GET', `/api/v0/code/commits?startDate=${D1}&endDate=${TODAY}`, key, 200);
    const after = await request('GET', `/api/v0/code/commits?startDate=${D1}&endDate=2026-03-21`, key, 400);
    expect(after.detail).toBe('endDate must be today (2026-03-20 UTC) or earlier');
    const prs = await request('GET', `/api/v0/code/pull_requests?startDate=${D1}&endDate=2026-03-21`, key, 400);
    expect(prs.detail).toBe('endDate must be today (2026-03-20 UTC) or earlier');
    // The daily figures still end yesterday.
    const daily = await request('GET', `/api/v1/analytics/code?startDate=${D1}&endDate=${TODAY}`, key, 400);
    expect(daily.detail).toMatch(/^endDate must be before today \(2026-03-20 UTC\)/);
  });

  it('lists a commit and counts it in /today as soon as the server has it', async () => {
    await post(org.users.member.key, [
      call('Edit', `${TODAY}T09:00:00Z`, {
        edits: [{ ext: 'ts', lines_added: 8, lines_deleted: 0, repo_id: SHOP, repo: 'github.com/acme/shop' }],
      }),
      // A file whose extension names no known language (the collector ships ext ''): language `other`.
      call('Edit', `${TODAY}T09:05:00Z`, { edits: [{ ext: '', lines_added: 2, lines_deleted: 1 }] }),
      commit(hex('f'), `${TODAY}T10:00:00Z`, MEMBER, 6),
    ]);
    expect((await commits(org.users.member.key, TODAY, TODAY)).map((c) => c.commit)).toEqual([hex('f')]);
    const today = await request('GET', '/api/v1/analytics/today', org.users.manager.key, 200);
    expect(today.data.code).toMatchObject({
      date: TODAY,
      edits: {
        lines_added: 10,
        by_language: [
          { language: 'TypeScript', lines_added: 8, lines_deleted: 0 },
          { language: 'other', lines_added: 2, lines_deleted: 1 },
        ],
      },
      landed: { commits: 1, lines_added: 10, agent_lines_added: 6, agent_share: 0.6 },
    });
    // A member's /today counts their own only; another organization sees none of it.
    expect((await request('GET', '/api/v1/analytics/today', org.users.owner.key, 200)).data.code.landed.commits).toBe(1);
    expect((await request('GET', '/api/v1/analytics/today', other.users.owner.key, 200)).data.code.landed.commits).toBe(0);
    // Tomorrow is still refused.
    await request('GET', '/api/v0/code/commits?startDate=2026-03-21&endDate=2026-03-21', org.users.member.key, 400);
  });
});

describe('the OpenAPI description of group_by=repo', () => {
  it('says edit_lines_added is the edits of that repository, which is what is returned', async () => {
    const doc = JSON.stringify((await server.app.inject({ method: 'GET', url: '/openapi.json' })).json());
    expect(doc).not.toMatch(/0 for group_by=repo/);
    expect(doc).toMatch(/for group_by=repo, those of files inside a work tree of that repository/);
    await post(org.users.member.key, [
      call('Edit', `${D1}T08:00:00Z`, {
        edits: [{ ext: 'ts', lines_added: 3, lines_deleted: 0, repo_id: SHOP, repo: 'github.com/acme/shop' }],
      }),
    ]);
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    const grouped = await request('GET', `/api/v1/analytics/code?startDate=${D1}&endDate=${D1}&group_by=repo`, org.users.owner.key, 200);
    expect(grouped.data).toEqual([expect.objectContaining({ group_key: 'github.com/acme/shop', edit_lines_added: 3 })]);
  });
});
