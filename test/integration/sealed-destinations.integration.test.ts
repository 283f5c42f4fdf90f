// Alert destinations sealed at rest (api/budgets/sealed-destinations.ts, common/sealing.ts): the rows of the
// DuckDB file, read with DuckDB itself after the server stopped, hold no webhook or Slack URL and no signing
// secret (budgets, alert settings, deliveries), yet a delivery still reaches a local receiver, signed with
// the secret as given. Migration 121 seals the rows a server stored in clear before, and the server that
// starts on them delivers a delivery left pending.
import { createHmac } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SETTINGS_PATH } from '../../api/alert-settings/schema.ts';
import { AlertSettingsStore } from '../../api/alert-settings/store.ts';
import { BudgetList } from '../../api/budgets/schema.ts';
import { BudgetStore } from '../../api/budgets/store.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { keyFileFor } from '../../common/sealing.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { waitFor } from '../helpers/processes.ts';
import { usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const ALERTS = { allowPrivate: true, maxAttempts: 3, retryDelayMs: 50, settleMs: 20 };
const SECRET = 'whsec-budget-0123456789abcdef';
const ANOMALY_SECRET = 'whsec-anomaly-0123456789abcdef';
const OLD_SECRET = 'whsec-stored-in-clear-0123456789';
/** The secrets a path or query holds: Discord's token, Slack's, a query token, and the old ones. */
const TOKENS = {
  discord: 'dIsCoRd-ToKeN-0123456789abcdefghijklmnop',
  slack: 'sLaCkSeCrEtBudget0123456789',
  digest: 'sLaCkSeCrEtDigest0123456789',
  anomaly: 'aNoMaLyPaThToKeN0123456789',
  query: 'qUeRyToKeN0123456789',
  old: 'oLdClEaRpAtH0123456789',
  oldSlack: 'oLdClEaRsLaCk0123456789',
};
const NEVER_STORED = [...Object.values(TOKENS), SECRET, ANOMALY_SECRET, OLD_SECRET, '/api/webhooks/', '/services/'];

const dbPath = join(tempDir(), 'sealed.duckdb');
const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);
let server: TestServer | undefined;

const signedBy = (secret: string, r: Delivery) =>
  r.headers['x-agentmeter-signature'] === `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`;

/** Every row of the tables that keep destinations, as JSON text, read by DuckDB itself from the file. */
async function storedRows(): Promise<Record<string, string[]>> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const table of ['budgets', 'alert_settings', 'alert_deliveries'])
      out[table] = (await conn.runAndReadAll(`SELECT * FROM ${table}`)).getRowObjectsJson().map((r) => JSON.stringify(r));
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

function expectSealed(rows: Record<string, string[]>): void {
  for (const [table, texts] of Object.entries(rows))
    for (const text of texts) for (const clear of NEVER_STORED) expect(text, `${table}: ${text}`).not.toContain(clear);
}

afterAll(async () => {
  await server?.close();
});

describe('alert destinations at rest', () => {
  let base: string;
  let org: Awaited<ReturnType<TestServer['seedOrg']>>;

  beforeAll(async () => {
    base = receiver.url;
    server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
    org = await server.seedOrg('Acme');
  });

  it('are stored sealed in budgets, alert settings and deliveries, and a delivery still reaches the receiver signed', async () => {
    const s = server!;
    /** The organization's budget of 1,000 credits, alerting at 50%, with these destinations. */
    const putBudget = (destinations: object[]) =>
      s.app.inject({
        method: 'PUT',
        url: '/api/v0/organization/budgets',
        headers: bearer(org.users.owner.key),
        payload: { budgets: [{ scope: 'org', monthlyCredits: 1000, thresholds: [50], destinations }] },
      });
    const put = await putBudget([
      { type: 'webhook', url: `${base}/api/webhooks/1234567890/${TOKENS.discord}`, secret: SECRET },
      { type: 'slack', url: `${base}/services/T000/B000/${TOKENS.slack}` },
    ]);
    expect(put.statusCode, put.body).toBe(200);
    const settings = await s.app.inject({
      method: 'PATCH',
      url: ALERT_SETTINGS_PATH,
      headers: bearer(org.users.owner.key),
      payload: {
        anomalies: {
          destinations: [{ type: 'webhook', url: `${base}/hooks/${TOKENS.anomaly}?token=${TOKENS.query}`, secret: ANOMALY_SECRET }],
        },
        digest: { destinations: [{ type: 'slack', url: `${base}/services/T111/B111/${TOKENS.digest}` }] },
      },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    // 1000 input tokens of sonnet 4.5 (× 1.2): 1200 credits, past the 50% threshold.
    const ingest = await s.app.inject({
      method: 'POST',
      url: INGEST_PATH,
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipNdjson([usage('claude-sonnet-4-5', '2026-03-20T09:00:00Z', { input_tokens: 1000 })]),
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    await waitFor(() => received.length >= 2, 30_000, 'the budget alert at both destinations');
    await s.services.alerts.idle();
    const hook = received.find((r) => r.path === `/api/webhooks/1234567890/${TOKENS.discord}`);
    expect(hook && signedBy(SECRET, hook)).toBe(true);
    expect(received.map((r) => r.path)).toContain(`/services/T000/B000/${TOKENS.slack}`);
    // A list put back as shown keeps the URLs (opened to match, sealed again).
    const shown = BudgetList.parse(put.json()).budgets[0]!;
    const again = await putBudget(shown.destinations.map(({ type, url }) => ({ type, url })));
    expect(again.statusCode, again.body).toBe(200);
    const budgets = new BudgetStore(s.db);
    const [budget] = await budgets.list(org.orgId);
    expect(budgets.seal.open(budget!.destinations)).toEqual([
      { type: 'webhook', url: `${base}/api/webhooks/1234567890/${TOKENS.discord}`, secret: SECRET },
      { type: 'slack', url: `${base}/services/T000/B000/${TOKENS.slack}` },
    ]);

    await s.close();
    server = undefined;
    const rows = await storedRows();
    expect(rows['budgets']).toHaveLength(1);
    expect(rows['alert_settings']).toHaveLength(1);
    expect(rows['alert_deliveries']).toHaveLength(2);
    expectSealed(rows);
    // What is read is the destinations' text: their origins are there, in clear, and the URLs sealed.
    expect(rows['budgets']![0]).toContain(base);
    expect(rows['alert_deliveries']!.every((r) => /"url":"v1\./.test(r))).toBe(true);
    // The key beside the database, private.
    expect(statSync(keyFileFor(dbPath)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('migration 121 seals rows stored in clear, and the server starting on them delivers what was pending', async () => {
    const db = await openDb(dbPath);
    const clear = (path: string, secret?: string) => [{ type: 'webhook', url: `${base}${path}`, ...(secret ? { secret } : {}) }];
    // As a server before 121 stored them: a budget, the settings and a pending delivery of a fired alert.
    await db.run(`UPDATE budgets SET destinations = CAST($d AS JSON), thresholds = [100], monthly_credits = 1000000 WHERE org_id = $org`, {
      org: org.orgId,
      d: JSON.stringify(clear(`/old/${TOKENS.old}`, OLD_SECRET)),
    });
    // The anomaly destinations stay as the first test sealed them: a second run must leave them so.
    await db.run('UPDATE alert_settings SET digest_destinations = CAST($d AS JSON) WHERE org_id = $org', {
      org: org.orgId,
      d: JSON.stringify([{ type: 'slack', url: `${base}/services/T2/B2/${TOKENS.oldSlack}` }]),
    });
    await db.run(
      `INSERT INTO budget_alerts (id, org_id, scope, target, month, threshold, usage, credit_limit, budget, fired_at)
       VALUES ('alr_storedinclear', $org, 'org', 'org', '2026-03', 75, 800, 1000, '{"scope":"org","monthlyCredits":1000}', TIMESTAMP '2026-03-20 09:00')`,
      { org: org.orgId },
    );
    await db.run(
      `INSERT INTO alert_deliveries VALUES ('alr_storedinclear', 0, $org, 'webhook', $url, $secret, 'pending', 0, TIMESTAMP '2026-03-20 09:00', NULL, NULL)`,
      { org: org.orgId, url: `${base}/old/${TOKENS.old}`, secret: OLD_SECRET },
    );
    // The delivered ones stay sealed. Without its record, 121 runs again on sealed and clear rows alike.
    await db.run('DELETE FROM schema_migrations WHERE version = 121');
    await db.close();

    const before = received.length;
    server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
    await waitFor(() => received.length > before, 30_000, 'the pending delivery');
    await server.services.alerts.idle();
    const sent = received.at(-1)!;
    expect(sent.path).toBe(`/old/${TOKENS.old}`);
    expect(sent.headers['x-agentmeter-event-id']).toBe('alr_storedinclear');
    expect(signedBy(OLD_SECRET, sent)).toBe(true);
    const answered = await server.app.inject({ method: 'GET', url: ALERT_SETTINGS_PATH, headers: bearer(org.users.manager.key) });
    expect(answered.json().digest.destinations).toEqual([{ type: 'slack', url: `${base}/…` }]);
    const settings = new AlertSettingsStore(server.db);
    // Sealed once, not twice: opened, they are the URLs and secrets as given.
    expect(settings.seal.open((await settings.get(org.orgId)).anomalyDestinations)).toEqual([
      { type: 'webhook', url: `${base}/hooks/${TOKENS.anomaly}?token=${TOKENS.query}`, secret: ANOMALY_SECRET },
    ]);
    const deliveries = await server.db.all<{ url: string; secret: string | null }>(
      'SELECT url, secret FROM alert_deliveries ORDER BY alert_id',
    );
    expect(deliveries.map((d) => settings.seal.openDelivery(d).url).every((url) => url.startsWith(`${base}/`))).toBe(true);
    await server.close();
    server = undefined;
    const rows = await storedRows();
    expect(rows['alert_deliveries']).toHaveLength(3);
    expectSealed(rows);
  }, 60_000);

  it('without the key file, a destination given back as shown is refused, saying the stored ones cannot be opened', async () => {
    server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
    const answered = await server.app.inject({ method: 'GET', url: ALERT_SETTINGS_PATH, headers: bearer(org.users.manager.key) });
    const shown = answered.json().digest.destinations as { type: string; url: string }[];
    expect(shown).toEqual([{ type: 'slack', url: `${base}/…` }]);
    rmSync(keyFileFor(dbPath));
    const put = await server.app.inject({
      method: 'PATCH',
      url: ALERT_SETTINGS_PATH,
      headers: bearer(org.users.owner.key),
      payload: { digest: { destinations: shown } },
    });
    expect(put.statusCode).toBe(400);
    expect(put.json().detail).toMatch(
      /digest\.destinations\[0\]\.url: is a URL as shown .*, but the stored destinations cannot be opened \(the key file beside the database \(\.oidc-key\) is missing: set the alert destinations again\); give the full URL/,
    );
  }, 60_000);
});
