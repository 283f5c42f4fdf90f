// Anomaly alerts and the Monday digest (docs/metrics.md §9) end to end on fixed clocks, a real DuckDB file and a
// real local HTTP receiver: exactly one anomaly alert and one digest are delivered (signed webhooks, a Slack
// body), nothing twice on a rerun, a second tick or a restart, and the digest goes out at the first start
// after Monday 09:00 when the server was down then. A second organization's team (one member with the same
// days) gets a team anomaly beside its member's, listed and sent nowhere (no destination chosen).
//
// claude-opus-4-5 costs $5 per million input tokens: 200k input tokens = $1 (one record each).
//   member:  $2 on 03-10, 03-11, 03-12, 03-13 (the week before: $8) and 03-16, 03-17, 03-18; $25 on Sunday 03-22
//   manager: $4 on 03-19 (the manager is team Platform's one member)
//   owner:   $30 on 03-22, their first day of use
// Sunday 03-22 12:00 UTC: the member's $25 is above 3 × their median day of $2 (7 days with usage in the 28
// before) and the $20 floor: one anomaly. The owner's $30 has no history: none (at least 7 days are needed).
// Monday 03-23 09:30 (the server down at 09:00), the digest of 03-16 to 03-22:
//   cost 6 + 4 + 25 + 30 = $65; the week before $8: +$57, +712.5%
//   people: member $31, owner $30, manager $4; teams: Platform $4; models: opus $65
//   landed: the member's commit of 03-18, 40 agent lines of 100: share 0.4
//   budgets at risk: the organization's $100: month to date $73, the last 7 days (03-16..03-22) $65,
//   8 days left after 03-23: 73 + 8 × 65/7 = 147.2857
import { createHmac, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SETTINGS_PATH, AlertSettingsView } from '../../api/alert-settings/schema.ts';
import { AnomalyEvent } from '../../api/anomalies/schema.ts';
import { AlertList } from '../../api/budgets/schema.ts';
import { DIGEST_PREVIEW_PATH, DigestEvent, DigestPreview } from '../../api/digest/schema.ts';
import { repoId } from '../../common/repo-id.ts';
import { INGEST_PATH, type WireLandedCommit, type WireRecord } from '../../common/wire.ts';
import { runCliAsync, waitFor } from '../helpers/processes.ts';
import { at, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const SUNDAY = new Date('2026-03-22T12:00:00Z');
const MONDAY = new Date('2026-03-23T09:30:00Z');
const SECRET = 'whsec-anomaly-0123456789';
// Anomalies compared at most every 300 ms per organization: a check asked for sooner is deferred, not lost.
const INTERVAL_MS = 300;
const ALERTS = { allowPrivate: true, maxAttempts: 3, retryDelayMs: 50, settleMs: 20, anomalyIntervalMs: INTERVAL_MS };
const pastInterval = () => new Promise((r) => setTimeout(r, INTERVAL_MS + 100));
const dbPath = join(tempDir(), 'anomalies.duckdb');

const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);
let base: string;
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const dollars = (day: string, usd: number): WireRecord[] =>
  Array.from({ length: usd }, () => usage('claude-opus-4-5-20251101', `${day}T10:00:00Z`, { input_tokens: 200_000 }));

function commit(when: string, lines: number, agentLines: number): WireLandedCommit {
  const repo = repoId('https://github.com/acme/app.git');
  return {
    kind: 'commit',
    id: `${repo}:${'a'.repeat(40)}`,
    repo_id: repo,
    repo: 'github.com/acme/app',
    commit: 'a'.repeat(40),
    ts: at(when),
    author: 'member@acme.example.com',
    lines_added: lines,
    lines_deleted: 0,
    agent_lines: agentLines,
    by_agent: [{ agent: 'claude', model: 'claude-opus-4-5-20251101', lines: agentLines }],
  };
}

/** What docs/budgets.md tells a receiver to check: the HMAC of "<t>.<body>" with the secret. */
function signedBy(secret: string, r: Delivery): boolean {
  const parts = Object.fromEntries(
    String(r.headers['x-agentmeter-signature-v1'] ?? '')
      .split(',')
      .map((p) => p.split('=', 2) as [string, string]),
  );
  if (!parts['t'] || !parts['v1']) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${parts['t']}.${r.body}`).digest('hex'));
  const given = Buffer.from(parts['v1']);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function post(key: string, records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
}
const call = (key: string, method: 'GET' | 'PATCH' | 'PUT', url: string, payload?: object) =>
  server.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });
const alertList = async (key = acme.users.manager.key) => AlertList.parse((await call(key, 'GET', '/api/v0/organization/alerts')).json());
const at_ = (path: string) => received.filter((r) => r.path.startsWith(path));

beforeAll(async () => {
  base = receiver.url;
  server = await testServer({ now: () => SUNDAY, alerts: ALERTS, dbPath });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe('anomaly alerts and the weekly digest', () => {
  it('settings: owners set them (400 with the documented body on bad input), managers read, others 403', async () => {
    const body = {
      anomalies: { destinations: [{ type: 'webhook', url: `${base}/anomalies`, secret: SECRET }] },
      digest: {
        destinations: [
          { type: 'webhook', url: `${base}/digest?token=abc`, secret: SECRET },
          { type: 'slack', url: `${base}/slack/T000/B000/XXXX` },
        ],
      },
    };
    for (const role of ['manager', 'member', 'guest'] as const)
      expect((await call(acme.users[role].key, 'PATCH', ALERT_SETTINGS_PATH, body)).statusCode, role).toBe(403);
    for (const role of ['member', 'guest'] as const)
      expect((await call(acme.users[role].key, 'GET', ALERT_SETTINGS_PATH)).statusCode).toBe(403);
    for (const bad of [
      { anomalies: { floorUsd: -1 } },
      {},
      { digest: { destinations: [{ type: 'webhook', url: 'ftp://example.com/x' }] } },
      { anomalies: { destinations: [{ type: 'webhook', url: `${base}/x`, secret: 'short' }] } },
    ]) {
      const res = await call(acme.users.owner.key, 'PATCH', ALERT_SETTINGS_PATH, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(Object.keys(res.json()).sort()).toEqual(['detail', 'requestId', 'status', 'title']);
    }
    const team = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/teams',
      headers: { ...bearer(acme.users.owner.key), 'content-type': 'text/csv' },
      payload: 'email,team,parent,from,to\nmanager@acme.example.com,Platform,,,\n',
    });
    expect(team.statusCode, team.body).toBe(200);
    const budget = await call(acme.users.owner.key, 'PUT', '/api/v0/organization/budgets', {
      budgets: [{ scope: 'org', monthlyUsd: 100 }],
    });
    expect(budget.statusCode, budget.body).toBe(200);
    const res = await call(acme.users.owner.key, 'PATCH', ALERT_SETTINGS_PATH, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(SECRET);
    // Shown as scheme and host only: neither a path nor a query, whatever secret they hold.
    for (const hidden of ['XXXX', 'T000', 'token=abc', '/digest', '/anomalies']) expect(res.body).not.toContain(hidden);
    expect(AlertSettingsView.parse(res.json())).toEqual({
      anomalies: {
        floorUsd: 20,
        multiple: 3,
        historyDays: 28,
        minDaysWithUsage: 7,
        destinations: [{ type: 'webhook', url: `${base}/…`, secret: 'set' }],
      },
      // Turned on on Sunday: the first digest is Monday's, not the week before it was asked for.
      digest: {
        destinations: [
          { type: 'webhook', url: `${base}/…`, secret: 'set' },
          { type: 'slack', url: `${base}/…` },
        ],
        next: '2026-03-23T09:00:00.000Z',
      },
    });
    // Another organization sees its own: the defaults.
    const theirs = AlertSettingsView.parse((await call(other.users.owner.key, 'GET', ALERT_SETTINGS_PATH)).json());
    expect(theirs.anomalies).toMatchObject({ floorUsd: 20, destinations: [] });
    expect(theirs.digest).toEqual({ destinations: [], next: null });
  });

  it('one anomaly for the member’s $25 Sunday, none for the owner’s first day, delivered signed once', async () => {
    await post(acme.users.member.key, [
      ...['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-16', '2026-03-17', '2026-03-18'].flatMap((d) => dollars(d, 2)),
      ...dollars('2026-03-22', 25),
      commit('2026-03-18T15:00:00Z', 100, 40),
    ]);
    await post(acme.users.manager.key, dollars('2026-03-19', 4));
    await post(acme.users.owner.key, dollars('2026-03-22', 30));
    await waitFor(() => at_('/anomalies').length > 0, 30_000, 'the anomaly delivery');
    // Past the interval, every record posted has been compared (the owner's day too); then a rerun and a
    // tick: nothing new.
    await pastInterval();
    await server.services.alerts.idle();
    await server.services.alerts.evaluate(acme.orgId);
    await server.services.alerts.tick();
    await server.services.alerts.idle();
    expect(at_('/anomalies')).toHaveLength(1);
    const [delivery] = at_('/anomalies');
    expect(signedBy(SECRET, delivery!)).toBe(true);
    const event = AnomalyEvent.parse(JSON.parse(delivery!.body));
    expect(delivery!.headers['x-agentmeter-event-id']).toBe(event.id);
    expect(event).toMatchObject({
      type: 'cost.anomaly',
      org_id: acme.orgId,
      scope: 'user',
      email: 'member@acme.example.com',
      day: '2026-03-22',
      cost_usd: 25,
      median_usd: 2,
      multiple: 3,
      floor_usd: 20,
      days_with_usage: 7,
    });
    const list = await alertList();
    expect(list.anomalies.map((a) => [a.email, a.day, a.cost_usd, a.deliveries.map((d) => d.state)])).toEqual([
      ['member@acme.example.com', '2026-03-22', 25, ['delivered']],
    ]);
    // No digest on Sunday; nothing of Acme's in another organization's list.
    expect(at_('/digest')).toHaveLength(0);
    expect(list.digests).toEqual([]);
    expect((await alertList(other.users.manager.key)).anomalies).toEqual([]);
    // The preview: Monday's digest, the week so far.
    const preview = DigestPreview.parse((await call(acme.users.manager.key, 'GET', DIGEST_PREVIEW_PATH)).json());
    expect(preview).toMatchObject({ sends_at: '2026-03-23T09:00:00.000Z', complete: false, destinations: 2 });
    expect(preview.digest.week).toEqual({ from: '2026-03-16', to: '2026-03-22' });
    expect(preview.digest.anomalies).toEqual([
      { scope: 'user', email: 'member@acme.example.com', day: '2026-03-22', cost_usd: 25, median_usd: 2 },
    ]);
  }, 60_000);

  it("a team's day is its members': one anomaly for the team and one for its member, listed, sent nowhere", async () => {
    const squad = await server.seedOrg('Squad');
    const roster = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/teams',
      headers: { ...bearer(squad.users.owner.key), 'content-type': 'text/csv' },
      payload: 'email,team,parent,from,to\nmember@squad.example.com,Web,,,\n',
    });
    expect(roster.statusCode, roster.body).toBe(200);
    // The same days as Acme's member: $2 on 7 days, $25 on Sunday; no destination chosen.
    await post(squad.users.member.key, [
      ...['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-16', '2026-03-17', '2026-03-18'].flatMap((d) => dollars(d, 2)),
      ...dollars('2026-03-22', 25),
    ]);
    const mine = async () => (await alertList(squad.users.manager.key)).anomalies;
    await waitFor(async () => (await mine()).length === 2, 30_000, "the squad's anomalies");
    await server.services.alerts.idle();
    expect((await mine()).map((a) => [a.scope, a.email ?? a.team, a.day, a.cost_usd, a.median_usd, a.deliveries]).sort()).toEqual([
      ['team', 'Web', '2026-03-22', 25, 2, []],
      ['user', 'member@squad.example.com', '2026-03-22', 25, 2, []],
    ]);
    // Acme's receiver got nothing more; Acme's list has only its own.
    expect(at_('/anomalies')).toHaveLength(1);
    expect((await alertList()).anomalies).toHaveLength(1);
  }, 60_000);

  it('the digest goes out once at the first start after Monday 09:00, to the webhook signed and to Slack', async () => {
    await server.close();
    server = await testServer({ now: () => MONDAY, alerts: ALERTS, dbPath });
    await waitFor(() => at_('/digest').length > 0 && at_('/slack').length > 0, 60_000, 'the digest deliveries');
    await server.services.alerts.idle();
    await server.services.alerts.tick();
    await server.services.alerts.evaluate(acme.orgId);
    await server.services.alerts.idle();
    expect(at_('/digest')).toHaveLength(1);
    expect(at_('/slack')).toHaveLength(1);
    expect(at_('/anomalies')).toHaveLength(1);
    const [hook] = at_('/digest');
    expect(signedBy(SECRET, hook!)).toBe(true);
    const digest = DigestEvent.parse(JSON.parse(hook!.body));
    expect(hook!.headers['x-agentmeter-event-id']).toBe(digest.id);
    expect(digest).toMatchObject({
      type: 'digest.weekly',
      org_id: acme.orgId,
      week: { from: '2026-03-16', to: '2026-03-22' },
      cost_usd: 65,
      previous_cost_usd: 8,
      change_usd: 57,
      change_pct: 712.5,
      top_teams: [{ team: 'Platform', cost_usd: 4 }],
      top_people: [
        { email: 'member@acme.example.com', cost_usd: 31 },
        { email: 'owner@acme.example.com', cost_usd: 30 },
        { email: 'manager@acme.example.com', cost_usd: 4 },
      ],
      landed: { lines_added: 100, agent_lines: 40, agent_share: 0.4 },
      anomalies: [{ scope: 'user', email: 'member@acme.example.com', day: '2026-03-22', cost_usd: 25, median_usd: 2 }],
      budgets_at_risk: [{ scope: 'org', unit: 'usd', limit: 100, forecast: 147.2857 }],
      forecast_date: '2026-03-23',
    });
    expect(digest.top_models).toEqual([{ model: expect.stringContaining('claude-opus-4-5'), cost_usd: 65 }]);
    const slack = JSON.parse(at_('/slack')[0]!.body) as { text: string; blocks: unknown[] };
    expect(slack.text).toBe('agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $65.00, +$57.00 (+712.5%) vs the week before.');
    expect(JSON.stringify(slack.blocks)).toContain('1. member@acme.example.com: $31.00');
    const list = await alertList();
    expect(list.digests.map((d) => [d.week.from, d.cost_usd, d.deliveries.map((x) => x.state)])).toEqual([
      ['2026-03-16', 65, ['delivered', 'delivered']],
    ]);
    // The next one is next Monday's.
    const preview = DigestPreview.parse((await call(acme.users.manager.key, 'GET', DIGEST_PREVIEW_PATH)).json());
    expect(preview).toMatchObject({
      sends_at: '2026-03-30T09:00:00.000Z',
      complete: false,
      digest: { week: { from: '2026-03-23', to: '2026-03-29' } },
    });
  }, 90_000);

  it('a restart sends nothing again', async () => {
    await server.close();
    server = await testServer({ now: () => new Date('2026-03-23T10:00:00Z'), alerts: ALERTS, dbPath });
    await server.services.alerts.start();
    await server.services.alerts.tick();
    await server.services.alerts.idle();
    expect(at_('/digest')).toHaveLength(1);
    expect(at_('/slack')).toHaveLength(1);
    expect(at_('/anomalies')).toHaveLength(1);
    const list = await alertList();
    expect([list.anomalies.length, list.digests.length]).toEqual([1, 1]);
  }, 60_000);

  it('the CLI: agentmeter alerts settings, anomalies, digest, list and preview through the running server', async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const cli = (args: string[], key = acme.users.owner.key) => runCliAsync([...args, '--server', address, '--key', key]);
    const floor = await cli(['alerts', 'anomalies', '--floor', '25', '--json']);
    expect(floor.status, floor.stderr).toBe(0);
    // The floor changed, the destinations were kept.
    expect(AlertSettingsView.parse(JSON.parse(floor.stdout)).anomalies).toMatchObject({
      floorUsd: 25,
      destinations: [{ type: 'webhook', url: `${base}/…`, secret: 'set' }],
    });
    const refused = await cli(['alerts', 'digest', '--off'], acme.users.manager.key);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('403');
    const settings = await cli(['alerts', 'settings'], acme.users.manager.key);
    expect(settings.stdout).toContain('above 3x the median of the days with usage of the 28 before (7 at least) and above $25.00');
    expect(settings.stdout).toContain(`digest: Mondays 09:00 UTC to webhook ${base}/…, slack ${base}/…;`);
    for (const hidden of ['XXXX', 'T000', 'token=abc', '/digest', '/anomalies']) expect(settings.stdout).not.toContain(hidden);
    const list = await cli(['alerts', 'list'], acme.users.manager.key);
    expect(list.stdout).toContain('anomaly\tmember@acme.example.com $25.00 on 2026-03-22 (median $2.00)\twebhook delivered');
    expect(list.stdout).toContain('digest\t2026-03-16 to 2026-03-22: $65.00\twebhook delivered, slack delivered');
    const preview = await cli(['alerts', 'preview'], acme.users.manager.key);
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('sent 2026-03-30T09:00:00.000Z to 2 destination(s); the week so far');
    expect(preview.stdout).toContain('agentmeter weekly digest, 2026-03-23 to 2026-03-29 (UTC)');
    const off = await cli(['alerts', 'digest', '--off']);
    expect(off.stdout).toContain('digest: off (no destination)');
  }, 90_000);
});
