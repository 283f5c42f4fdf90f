// Digests an older server stored, read by this one. Before a week's dollars could be null (2323332), a
// digest's body held cost_usd, previous_cost_usd and change_usd as plain numbers, without
// previous_unpriced_models; before e089d7a it had no unpriced_models either. Those rows stay in the
// digests table: they are inserted here as such a server wrote them (SQL, not the store), and must still
// list, through GET /api/v0/organization/alerts and `agentmeter alerts list`, with their dollars, and still
// read back as the webhook event a pending delivery sends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertList } from '../../api/budgets/schema.ts';
import { DigestEvent } from '../../api/digest/schema.ts';
import { DigestStore } from '../../api/digest/store.ts';
import { runCliAsync } from '../helpers/processes.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

// The body of 861d8d9's DigestFigures: every dollar a number, no model named.
const OLDEST = {
  week: { from: '2026-03-02', to: '2026-03-08' },
  cost_usd: 12.5,
  previous_cost_usd: 10,
  change_usd: 2.5,
  change_pct: 25,
  top_teams: [{ team: 'Platform', cost_usd: 12.5 }],
  top_people: [{ email: 'member@acme.example.com', cost_usd: 12.5 }],
  top_models: [{ model: 'gpt-5-codex', cost_usd: 12.5 }],
  landed: { lines_added: 100, agent_lines: 40, agent_share: 0.4 },
  anomalies: [],
  budgets_at_risk: [],
  forecast_date: '2026-03-09',
};
// The body of e089d7a's: the week's unpriced models named, dollars still numbers (a week before
// without a price read $0 then), no previous_unpriced_models.
const BEFORE_NULLABLE = {
  ...OLDEST,
  week: { from: '2026-03-09', to: '2026-03-15' },
  cost_usd: 3.25,
  unpriced_models: ['qwen3-coder-plus'],
  previous_cost_usd: 0,
  change_usd: 3.25,
  change_pct: null,
  top_teams: [],
  top_people: [{ email: 'member@acme.example.com', cost_usd: 3.25 }],
  top_models: [{ model: 'gpt-5-codex', cost_usd: 3.25 }],
  forecast_date: '2026-03-16',
};

// The statements of migration 090's digests table and 030's alert_deliveries, as the older server ran them.
const INSERT_DIGEST = `INSERT INTO digests VALUES ($id, $org, CAST($week AS DATE), CAST($body AS JSON), CAST($sent_at AS TIMESTAMP))`;
const INSERT_DELIVERY = `INSERT INTO alert_deliveries VALUES ($alert, 0, $org, 'webhook', 'https://hooks.example.com/digest', 'whsec-old-0123456789',
  'delivered', 1, NULL, NULL, CAST($sent_at AS TIMESTAMP))`;

let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let globex: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer({ now: () => new Date('2026-03-20T12:00:00Z') });
  acme = await server.seedOrg('Acme');
  globex = await server.seedOrg('Globex');
  for (const [id, body, sentAt] of [
    ['dig_oldest0000000000000000000000', OLDEST, '2026-03-09T09:00:00.000Z'],
    ['dig_beforenullable00000000000000', BEFORE_NULLABLE, '2026-03-16T09:00:00.000Z'],
  ] as const) {
    await server.db.run(INSERT_DIGEST, { id, org: acme.orgId, week: body.week.from, body: JSON.stringify(body), sent_at: sentAt });
    await server.db.run(INSERT_DELIVERY, { alert: id, org: acme.orgId, sent_at: sentAt });
  }
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe('digests stored before a week’s dollars could be null', () => {
  it('the alerts route lists them with their dollars, newest week first; another organization sees none', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/api/v0/organization/alerts', headers: bearer(acme.users.manager.key) });
    expect(res.statusCode, res.body).toBe(200);
    const list = AlertList.parse(res.json());
    expect(list.digests.map((d) => [d.id, d.week, d.cost_usd, d.sent_at, d.deliveries.map((x) => [x.type, x.state])])).toEqual([
      ['dig_beforenullable00000000000000', BEFORE_NULLABLE.week, 3.25, '2026-03-16T09:00:00.000Z', [['webhook', 'delivered']]],
      ['dig_oldest0000000000000000000000', OLDEST.week, 12.5, '2026-03-09T09:00:00.000Z', [['webhook', 'delivered']]],
    ]);
    const month = await server.app.inject({
      method: 'GET',
      url: '/api/v0/organization/alerts?month=2026-03',
      headers: bearer(acme.users.manager.key),
    });
    expect(AlertList.parse(month.json()).digests).toHaveLength(2);
    const other = await server.app.inject({ method: 'GET', url: '/api/v0/organization/alerts', headers: bearer(globex.users.owner.key) });
    expect(AlertList.parse(other.json()).digests).toEqual([]);
  });

  it('`agentmeter alerts list` prints their dollars', async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const list = await runCliAsync(['alerts', 'list', '--server', address, '--key', acme.users.manager.key]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout.split('\n').filter((l) => l.includes('\tdigest\t'))).toEqual([
      '2026-03-16T09:00:00.000Z\tdigest\t2026-03-09 to 2026-03-15: $3.25\twebhook delivered',
      '2026-03-09T09:00:00.000Z\tdigest\t2026-03-02 to 2026-03-08: $12.50\twebhook delivered',
    ]);
    const json = await runCliAsync(['alerts', 'list', '--json', '--server', address, '--key', acme.users.manager.key]);
    expect(json.status, json.stderr).toBe(0);
    expect(AlertList.parse(JSON.parse(json.stdout)).digests.map((d) => d.cost_usd)).toEqual([3.25, 12.5]);
  }, 60_000);

  it('each reads back as the webhook event of today’s schema, its old figures kept', async () => {
    const store = new DigestStore(server.db);
    const oldest = DigestEvent.parse(await store.event('dig_oldest0000000000000000000000'));
    expect(oldest).toMatchObject({ ...OLDEST, type: 'digest.weekly', org_id: acme.orgId });
    expect(oldest.unpriced_models).toBeUndefined();
    const before = DigestEvent.parse(await store.event('dig_beforenullable00000000000000'));
    expect(before).toMatchObject({ cost_usd: 3.25, unpriced_models: ['qwen3-coder-plus'], previous_cost_usd: 0, change_pct: null });
    expect(before.previous_unpriced_models).toBeUndefined();
  });
});
