// Team names in Unicode NFC at every boundary (common/team-name.ts, docs/teams.md): "Équipe" typed with
// U+00C9 and "E" + U+0301 + "quipe", as a spreadsheet or a directory may send it, look the same and are one
// team, whichever of the roster, SCIM, an ID token's groups, a team budget or team= names it. Names holding
// control, direction or zero-width characters are refused (400) at each of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetList } from '../../api/budgets/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { groupNames, setTeamsFromClaim } from '../../api/oidc/teams.ts';
import { SCIM } from '../../api/scim/schema.ts';
import { RosterImported, RosterRefused, TeamList } from '../../api/teams/schema.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { usage } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D1 = '2026-03-02';
/** One day: the answers have one record. */
const RANGE = `startDate=${D1}&endDate=${D1}`;
/** "Équipe" with U+00C9, as typed on most keyboards. */
const COMPOSED = '\u00C9quipe';
/** "Équipe" as "E" and U+0301 COMBINING ACUTE ACCENT: another string, the same on every screen. */
const DECOMPOSED = 'E\u0301quipe';
const REFUSED = /holds no control character, line break, direction or zero-width character/;

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>> & { ana: UserId; bo: UserId };
let acme: Org;
let scimToken: string;

async function org(name: string): Promise<Org> {
  const o = await server.seedOrg(name);
  const domain = name.toLowerCase();
  const person = async (p: string) =>
    (await server.services.accounts.createUser({ orgId: o.orgId as OrgId, email: `${p}@${domain}.example.com`, role: 'member' })).id;
  return { ...o, ana: await person('ana'), bo: await person('bo') };
}
const roster = (o: Org, lines: string[]) =>
  server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(o.users.owner.key), 'content-type': 'text/csv' },
    payload: ['email,team,parent,from,to', ...lines].join('\n'),
  });
const teams = async (o: Org) => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v0/organization/teams', headers: bearer(o.users.owner.key) });
  expect(res.statusCode, res.body).toBe(200);
  return TeamList.parse(res.json()).teams;
};
const get = (o: Org, url: string) => server.app.inject({ method: 'GET', url, headers: bearer(o.users.manager.key) });
const patchBudget = (o: Org, body: unknown) =>
  server.app.inject({ method: 'PATCH', url: '/api/v0/organization/budgets', headers: bearer(o.users.owner.key), payload: body as object });
const scim = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  server.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { ...bearer(scimToken), ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await org('Acme');
  // Ana spends 10 Sonnet input tokens on D1 (12 billable); the team figures are over her as a member.
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.ana, [
    usage('claude-sonnet-4-5', `${D1}T08:00:00Z`, { input_tokens: 10 }, false, 'a1'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });
  const minted = await server.app.inject({ method: 'POST', url: '/api/v0/admin/scim/tokens', headers: bearer(acme.users.owner.key) });
  expect(minted.statusCode, minted.body).toBe(201);
  scimToken = minted.json().token;
});
afterAll(() => server.close());

describe('one team whichever way its name is composed', () => {
  it('the strings differ, their NFC does not (what the tests below rely on)', () => {
    expect(DECOMPOSED).not.toBe(COMPOSED);
    expect(DECOMPOSED.normalize('NFC')).toBe(COMPOSED);
  });

  it('a roster naming the team decomposed, then composed (and as a parent), makes one team named in NFC', async () => {
    const first = await roster(acme, [`ana@acme.example.com,${DECOMPOSED},,,`]);
    expect(first.statusCode, first.body).toBe(200);
    expect(RosterImported.parse(first.json()).created).toEqual([COMPOSED]);

    // Both spellings in one file, and the decomposed one as another team's parent: still the one team.
    const second = await roster(acme, [
      `ana@acme.example.com,${COMPOSED},,,`,
      `bo@acme.example.com,${DECOMPOSED.toLowerCase()},,,`,
      `bo@acme.example.com,Web,${DECOMPOSED},,`,
    ]);
    expect(second.statusCode, second.body).toBe(200);
    expect(RosterImported.parse(second.json())).toEqual({ created: ['Web'], teams: 2, memberships: 3 });
    expect((await teams(acme)).map((t) => [t.name, t.parent, t.members.map((m) => m.email)])).toEqual([
      ['Web', COMPOSED, ['bo@acme.example.com']],
      [COMPOSED, null, ['ana@acme.example.com', 'bo@acme.example.com']],
    ]);
  });

  it('team= finds the team with either spelling, and group_by=team keys it by its NFC name', async () => {
    const answers = [];
    for (const name of [COMPOSED, DECOMPOSED, DECOMPOSED.toLowerCase()]) {
      const res = await get(acme, `/api/v1/analytics/tokens?${RANGE}&team=${encodeURIComponent(name)}`);
      expect(res.statusCode, `${JSON.stringify(name)}: ${res.body}`).toBe(200);
      answers.push(res.json().data);
    }
    expect(answers[0]).toEqual([expect.objectContaining({ date: D1, billable_tokens: 12, input_tokens: 10 })]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // /today reads team= through its own schema.
    const today = await get(acme, `/api/v1/analytics/today?team=${encodeURIComponent(DECOMPOSED)}`);
    expect(today.statusCode, today.body).toBe(200);
    const grouped = await get(acme, `/api/v1/analytics/tokens?${RANGE}&group_by=team`);
    expect(grouped.json().data.map((r: { group_key: string }) => r.group_key)).toEqual([COMPOSED]);
  });

  it('SCIM: a filter with the decomposed displayName finds the team, a create with it is the same name (409)', async () => {
    const [team] = (await teams(acme)).filter((t) => t.name === COMPOSED);
    expect(team).toBeDefined();
    const found = await scim('GET', `/Groups?filter=${encodeURIComponent(`displayName eq "${DECOMPOSED}"`)}`);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json().totalResults).toBe(1);
    expect(found.json().Resources[0].displayName).toBe(COMPOSED);
    const again = await scim('POST', '/Groups', { schemas: [SCIM.group], displayName: DECOMPOSED });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().scimType).toBe('uniqueness');

    // A group created decomposed is stored in NFC: the roster's composed name is that team.
    const cafe = await scim('POST', '/Groups', { schemas: [SCIM.group], displayName: 'Cafe\u0301' });
    expect(cafe.statusCode, cafe.body).toBe(201);
    expect(cafe.json().displayName).toBe('Caf\u00E9');
    expect(RosterImported.parse((await roster(acme, ['ana@acme.example.com,Caf\u00E9,,,'])).json()).created).toEqual([]);
    // A rename through PATCH is stored in NFC too.
    const renamed = await scim('PATCH', `/Groups/${cafe.json().id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Cafe\u0301 Cre\u0300me' }],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().displayName).toBe('Caf\u00E9 Cr\u00E8me');
    expect((await teams(acme)).map((t) => t.name)).toEqual(['Caf\u00E9 Cr\u00E8me', 'Web', COMPOSED]);
  });

  it('an ID token groups claim with the decomposed name makes its person a member of the team, no new team', async () => {
    const names = groupNames([DECOMPOSED.toLowerCase()]);
    expect(names).toEqual([COMPOSED.toLowerCase()]);
    await setTeamsFromClaim(server.db, acme.orgId, acme.users.member.id, names!, '2026-03-20');
    const listed = await teams(acme);
    expect(listed.map((t) => t.name)).toEqual(['Caf\u00E9 Cr\u00E8me', 'Web', COMPOSED]);
    expect(listed.find((t) => t.name === COMPOSED)?.members.map((m) => m.email)).toContain('member@acme.example.com');
  });

  it('a team budget names the team with either spelling: set decomposed, replaced composed, removed decomposed', async () => {
    const set = await patchBudget(acme, { budget: { scope: 'team', team: DECOMPOSED, monthlyCredits: 1000 } });
    expect(set.statusCode, set.body).toBe(200);
    expect(BudgetList.parse(set.json()).budgets.map((b) => [b.team, b.monthlyCredits])).toEqual([[COMPOSED, 1000]]);
    const replaced = await patchBudget(acme, { budget: { scope: 'team', team: COMPOSED.toLowerCase(), monthlyCredits: 2000 } });
    expect(BudgetList.parse(replaced.json()).budgets.map((b) => [b.team, b.monthlyCredits])).toEqual([[COMPOSED, 2000]]);
    const removed = await patchBudget(acme, { remove: { scope: 'team', team: DECOMPOSED } });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(BudgetList.parse(removed.json()).budgets).toEqual([]);
  });
});

describe('names that would show as something else are refused at every boundary', () => {
  // A zero-width space, a right-to-left override, a left-to-right isolate, a C1 control, a line separator.
  const BAD = ['Ops\u200B', 'Pay\u202Eroll', 'Plat\u2066form', 'Ops\u0085', 'Ops\u2028Team'];

  it('the roster: 400 naming each line, the team or the parent, nothing imported', async () => {
    const res = await roster(acme, [
      ...BAD.map((name) => `ana@acme.example.com,${name},,,`),
      `bo@acme.example.com,Web,${COMPOSED}\u200D,,`,
    ]);
    expect(res.statusCode, res.body).toBe(400);
    const body = RosterRefused.parse(res.json());
    expect(body.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    for (const e of body.errors.slice(0, 5)) expect(e.reason).toMatch(/^a team name holds no control character/);
    expect(body.errors[5]?.reason).toMatch(/^a parent name holds no control character/);
    expect((await teams(acme)).map((t) => t.name)).toEqual(['Caf\u00E9 Cr\u00E8me', 'Web', COMPOSED]);
  });

  it('team=, a team budget: 400 with the error body saying why', async () => {
    for (const name of BAD) {
      const res = await get(acme, `/api/v1/analytics/tokens?${RANGE}&team=${encodeURIComponent(name)}`);
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(ErrorBodySchema.parse(res.json()).detail).toMatch(REFUSED);
      const budget = await patchBudget(acme, { budget: { scope: 'team', team: name, monthlyCredits: 10 } });
      expect(budget.statusCode, JSON.stringify(name)).toBe(400);
      expect(ErrorBodySchema.parse(budget.json()).detail).toMatch(REFUSED);
    }
    // Letters of any script and emoji are names like any other.
    const ok = await roster(acme, ['ana@acme.example.com,Zoë’s — 東京 🚀,,,']);
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('SCIM: a create or a rename with such a displayName is 400 invalidValue', async () => {
    for (const name of BAD) {
      const res = await scim('POST', '/Groups', { schemas: [SCIM.group], displayName: name });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(res.json().scimType).toBe('invalidValue');
      expect(res.json().detail).toMatch(REFUSED);
    }
    const [group] = (await scim('GET', '/Groups')).json().Resources as { id: string }[];
    const patched = await scim('PATCH', `/Groups/${group!.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'replace', value: { displayName: 'Pay\u202Eroll' } }],
    });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().detail).toMatch(REFUSED);
  });
});
