// Team names in Unicode NFC at every boundary (common/team-name.ts, docs/teams.md): "Équipe" typed with
// U+00C9 and "E" + U+0301 + "quipe", as a spreadsheet or a directory may send it, look the same and are one
// team, whichever of the roster, SCIM, an ID token's groups, a team budget or team= names it. Names holding
// control, direction or zero-width characters are refused (400) at each of them. Migration 119 brings the
// names stored before to the rule and renames, never merges, two teams that would then share a name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetList } from '../../api/budgets/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { groupNames, setTeamsFromClaim } from '../../api/oidc/teams.ts';
import { SCIM } from '../../api/scim/schema.ts';
import { RosterImported, RosterRefused, TeamList } from '../../api/teams/schema.ts';
import { migrate } from '../../common/db/duckdb.ts';
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
const REFUSED = /holds no control character, line break, direction override or invisible space/;

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
      `bo@acme.example.com,Web,${COMPOSED}\u00AD,,`,
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

describe('migration 119: names stored before the rule', () => {
  let old: Org;
  const ids = { decomposed: 'team_00000000000000a1', composed: 'team_00000000000000a2', cafe: 'team_00000000000000a3' };
  const more = { zeroWidth: 'team_00000000000000a4', ops: 'team_00000000000000a5', blank: 'team_00000000000000a6' };

  beforeAll(async () => {
    old = await org('Old');
    // As the store kept them before (name trimmed, key lower-cased). The decomposed Équipe is the older
    // one and has Ana; the composed one Bo. "Ops" + U+200B looks like "Ops".
    const rows: [string, string, string][] = [
      [ids.decomposed, DECOMPOSED, '2026-01-01'],
      [ids.composed, COMPOSED, '2026-02-01'],
      [ids.cafe, 'Cafe\u0301', '2026-01-01'],
      [more.zeroWidth, 'Ops\u200B', '2026-01-01'],
      [more.ops, 'Ops', '2026-02-01'],
      [more.blank, '\u200B\u200D', '2026-01-01'],
    ];
    for (const [team, name, created] of rows)
      await server.db.run(
        'INSERT INTO teams (org_id, team_id, name, name_key, parent_id, created_at) VALUES ($org, $team, $name, $key, NULL, CAST($created AS TIMESTAMPTZ))',
        { org: old.orgId, team, name, key: name.trim().toLowerCase(), created },
      );
    const member =
      "INSERT INTO team_members (org_id, team_id, user_id, first_day, last_day) VALUES ($org, $team, $user, DATE '1970-01-01', NULL)";
    await server.db.run(member, { org: old.orgId, team: ids.decomposed, user: old.ana });
    await server.db.run(member, { org: old.orgId, team: ids.composed, user: old.bo });
    await server.db.run(member, { org: old.orgId, team: ids.cafe, user: old.ana });
    // Café's budget, an alert it fired this month, and its anomalies on two days; on the first of them a
    // deleted team once named "café" fired one too (anomalies keep the key they fired under).
    await server.db.run(
      `INSERT INTO budgets (org_id, scope, target, position, team, user_id, monthly_credits, thresholds, destinations, updated_at, updated_by)
       VALUES ($org, 'team', 'cafe\u0301', 0, 'Cafe\u0301', NULL, 1000, [50, 100], '[]', now()::TIMESTAMP, 'test')`,
      { org: old.orgId },
    );
    await server.db.run(
      `INSERT INTO budget_alerts (id, org_id, scope, target, month, threshold, usage, credit_limit, budget, fired_at)
       VALUES ('alr_old', $org, 'team', 'cafe\u0301', '2026-03', 50, 600, 1000, '{}', TIMESTAMP '2026-03-10 08:00')`,
      { org: old.orgId },
    );
    const anomaly = `INSERT INTO anomaly_alerts (id, org_id, scope, target, day, subject, cost_usd, median_usd, floor_usd, days_with_usage, fired_at)
       VALUES ($id, $org, 'team', $target, CAST($day AS DATE), 'x', 50, 5, 20, 10, TIMESTAMP '2026-03-10 08:00')`;
    await server.db.run(anomaly, { id: 'anm_old1', org: old.orgId, target: 'cafe\u0301', day: '2026-03-09' });
    await server.db.run(anomaly, { id: 'anm_old2', org: old.orgId, target: 'cafe\u0301', day: '2026-03-10' });
    await server.db.run(anomaly, { id: 'anm_gone', org: old.orgId, target: 'caf\u00E9', day: '2026-03-09' });

    await server.services.ingest.storeRecords(old.orgId as OrgId, old.ana, [
      usage('claude-sonnet-4-5', `${D1}T08:00:00Z`, { input_tokens: 10 }, false, 'o1'),
    ]);
    await server.services.ingest.storeRecords(old.orgId as OrgId, old.bo, [
      usage('claude-sonnet-4-5', `${D1}T08:00:00Z`, { input_tokens: 20 }, false, 'o2'),
    ]);
    await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });

    await server.db.run('DELETE FROM schema_migrations WHERE version = 119');
    expect(await migrate(server.db)).toEqual(['119_team_names_nfc.ts']);
  });

  it('stores each name in NFC without unshown characters; a name that would collide gets a visible suffix, not a merge', async () => {
    const listed = await teams(old);
    expect(listed.map((t) => [t.name, t.members.map((m) => m.email)])).toEqual([
      ['Caf\u00E9', ['ana@old.example.com']],
      ['Ops', []],
      ['Ops (2)', []],
      [more.blank, []],
      // The composed Équipe was already in the rule and keeps the name; the decomposed one keeps its members.
      [COMPOSED, ['bo@old.example.com']],
      [`${COMPOSED} (2)`, ['ana@old.example.com']],
    ]);
    const stored = await server.db.all<{ team_id: string; name: string; name_key: string }>(
      'SELECT team_id, name, name_key FROM teams WHERE org_id = $org ORDER BY team_id',
      { org: old.orgId },
    );
    expect(stored.find((t) => t.team_id === ids.decomposed)).toMatchObject({ name: `${COMPOSED} (2)`, name_key: '\u00E9quipe (2)' });
    expect(stored.find((t) => t.team_id === more.zeroWidth)).toMatchObject({ name: 'Ops (2)', name_key: 'ops (2)' });
    expect(stored.find((t) => t.team_id === ids.cafe)).toMatchObject({ name: 'Caf\u00E9', name_key: 'caf\u00E9' });
  });

  it("moves the team's budget, its alert and its anomalies to the new key; team= finds both Équipes apart", async () => {
    const budgets = await server.app.inject({ method: 'GET', url: '/api/v0/organization/budgets', headers: bearer(old.users.owner.key) });
    expect(BudgetList.parse(budgets.json()).budgets.map((b) => [b.team, b.monthlyCredits])).toEqual([['Caf\u00E9', 1000]]);
    expect(await server.db.all('SELECT target FROM budget_alerts WHERE id = $id', { id: 'alr_old' })).toEqual([{ target: 'caf\u00E9' }]);
    expect(
      await server.db.all("SELECT id, target FROM anomaly_alerts WHERE org_id = $org AND id LIKE 'anm_old%' ORDER BY id", {
        org: old.orgId,
      }),
    ).toEqual([
      // 03-09: the deleted team's anomaly holds the key that day, so this one keeps its old key.
      { id: 'anm_old1', target: 'cafe\u0301' },
      { id: 'anm_old2', target: 'caf\u00E9' },
    ]);
    // Bo (the composed Équipe) spent 24 billable on D1, Ana (the decomposed one, now "Équipe (2)") 12.
    const billable = async (name: string) => {
      const res = await get(old, `/api/v1/analytics/tokens?${RANGE}&team=${encodeURIComponent(name)}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.map((r: { billable_tokens: number }) => r.billable_tokens);
    };
    expect(await billable(COMPOSED)).toEqual([24]);
    expect(await billable(DECOMPOSED)).toEqual([24]);
    expect(await billable(`${DECOMPOSED} (2)`)).toEqual([12]);
  });
});

describe('names spelled with joiners and direction marks', () => {
  it('a Persian team of the roster is found by the groups claim, with or without its non-joiner; no second team', async () => {
    const fa = await org('Farsi');
    const persian = 'نرم\u200Cافزار';
    const res = await roster(fa, [`ana@farsi.example.com,${persian},,,`, `bo@farsi.example.com,👩\u200D💻 Devs,,,`]);
    expect(res.statusCode, res.body).toBe(200);
    expect((await teams(fa)).map((t) => t.name).sort()).toEqual(['👩\u200D💻 Devs', persian].sort());
    // Sign-in: the claim names the team as the directory spells it, and once without the non-joiner.
    for (const spelled of [persian, 'نرمافزار']) {
      const names = groupNames([spelled]);
      await setTeamsFromClaim(server.db, fa.orgId, fa.users.member.id, names!, '2026-03-20');
      const listed = await teams(fa);
      expect(listed).toHaveLength(2);
      expect(listed.find((t) => t.name === persian)?.members.map((m) => m.email)).toContain('member@farsi.example.com');
    }
  });
});
