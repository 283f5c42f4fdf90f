// The weekly digest when a week's usage has no dollar price (docs/metrics.md §8: never priced at zero
// silently; a week without usage costs $0), end to end through the real batch, store, preview route and a
// real webhook and Slack delivery on a local receiver.
//
// Hand-worked, all the member's, gpt-5-codex at the organization's $1 per million input tokens,
// qwen3-coder-plus without a price:
//   Acme, the week before (03-09 to 03-15): 1,000 input tokens of qwen3-coder-plus on 03-10 and 03-12:
//     usage, none priced: previous_cost_usd null (was $0), qwen3-coder-plus named; no change to show
//     (was "+$1.00 (nothing the week before)").
//   Acme, the week (03-16 to 03-22): 1,000,000 of gpt-5-codex on 03-17: $1.00.
//   Unpriced Co, the week: 1,000 of qwen3-coder-plus on 03-17 only: cost_usd null (was $0), named.
//   Mid-week Co: qwen3-coder-plus priced by the organization at $1 per million from Wednesday 03-18;
//     1,000,000 on 03-16 (no price then) and on 03-19 ($1.00): $1.00 and qwen3-coder-plus named (a
//     Monday-to-Sunday sum per person and model hid the unpriced Monday).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SETTINGS_PATH } from '../../api/alert-settings/schema.ts';
import { costOf, unpricedModels } from '../../api/analytics/assemble.ts';
import { AlertList } from '../../api/budgets/schema.ts';
import { DIGEST_PREVIEW_PATH, DigestEvent, DigestPreview } from '../../api/digest/schema.ts';
import { DigestStore } from '../../api/digest/store.ts';
import { PRICING_PATH } from '../../api/pricing/schema.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { waitFor } from '../helpers/processes.ts';
import { usage } from '../helpers/records.ts';
import { bearer, postRecords, putOk, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const SUNDAY = new Date('2026-03-22T12:00:00Z');
const MONDAY = new Date('2026-03-23T09:30:00Z');
let clock = SUNDAY;

const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);
let base: string;
let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let acme: Org;
let unpriced: Org;
let midweek: Org;

const qwen = (when: string, tokens: number, id: string) => ({
  ...usage('qwen3-coder-plus', when, { input_tokens: tokens }, false, id),
  agent: 'qwen',
});
const codex = (when: string, tokens: number, id: string) => ({
  ...usage('gpt-5-codex', when, { input_tokens: tokens }, false, id),
  agent: 'codex',
});
async function post(org: Org, records: unknown[]) {
  const res = await postRecords(server, org.users.member.key, records);
  expect(res.statusCode, res.body).toBe(200);
}
async function preview(org: Org) {
  const res = await server.app.inject({ method: 'GET', url: DIGEST_PREVIEW_PATH, headers: bearer(org.users.manager.key) });
  expect(res.statusCode, res.body).toBe(200);
  return DigestPreview.parse(res.json());
}

beforeAll(async () => {
  base = receiver.url;
  server = await testServer({ now: () => clock, alerts: { allowPrivate: true, maxAttempts: 2, retryDelayMs: 50, settleMs: 20 } });
  acme = await server.seedOrg('Acme');
  unpriced = await server.seedOrg('Unpriced Co');
  midweek = await server.seedOrg('Midweek Co');
  const price = { inputMtok: 1, outputMtok: 0 };
  await putOk(server, acme.users.owner.key, PRICING_PATH, { model: 'gpt-5-codex', effectiveFrom: '2026-03-01', ...price });
  await putOk(server, midweek.users.owner.key, PRICING_PATH, { model: 'qwen3-coder-plus', effectiveFrom: '2026-03-18', ...price });
  await post(acme, [
    qwen('2026-03-10T10:00:00Z', 1000, 'q1'),
    qwen('2026-03-12T10:00:00Z', 1000, 'q2'),
    codex('2026-03-17T10:00:00Z', 1_000_000, 'c1'),
  ]);
  await post(unpriced, [qwen('2026-03-17T10:00:00Z', 1000, 'q1')]);
  await post(midweek, [qwen('2026-03-16T10:00:00Z', 1_000_000, 'q1'), qwen('2026-03-19T10:00:00Z', 1_000_000, 'q2')]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: SUNDAY });
  const settings = await server.app.inject({
    method: 'PATCH',
    url: ALERT_SETTINGS_PATH,
    headers: bearer(acme.users.owner.key),
    payload: {
      digest: {
        destinations: [
          { type: 'webhook', url: `${base}/digest`, secret: 'whsec-digest-0123456789' },
          { type: 'slack', url: `${base}/slack/T000/B000/XXXX` },
        ],
      },
    },
  });
  expect(settings.statusCode, settings.body).toBe(200);
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe('the weekly digest of weeks whose usage has no price', () => {
  it('the preview: a week before whose usage had no price has no dollars and no change', async () => {
    const { digest } = await preview(acme);
    expect(digest.week).toEqual({ from: '2026-03-16', to: '2026-03-22' });
    expect(digest).toMatchObject({
      cost_usd: 1,
      unpriced_models: [],
      previous_cost_usd: null,
      previous_unpriced_models: ['qwen3-coder-plus'],
      change_usd: null,
      change_pct: null,
    });
  });

  it('the preview: a week whose usage had no price has no dollars, as the week before by the same rule', async () => {
    expect((await preview(unpriced)).digest).toMatchObject({
      cost_usd: null,
      unpriced_models: ['qwen3-coder-plus'],
      previous_cost_usd: 0,
      change_usd: null,
      change_pct: null,
      top_models: [],
    });
  });

  it('the preview: a model priced from mid-week is named, its unpriced days adding nothing', async () => {
    expect((await preview(midweek)).digest).toMatchObject({
      cost_usd: 1,
      unpriced_models: ['qwen3-coder-plus'],
      top_models: [{ model: 'qwen3-coder-plus', cost_usd: 1 }],
    });
  });

  it('the digest sent on Monday carries the null, and its messages say there is no change to show', async () => {
    clock = MONDAY;
    await server.services.alerts.tick();
    await waitFor(() => received.length >= 2, 30_000, 'the digest deliveries');
    await server.services.alerts.idle();
    const hook = received.find((r) => r.path === '/digest');
    const event = DigestEvent.parse(JSON.parse(hook!.body));
    expect(event).toMatchObject({
      type: 'digest.weekly',
      week: { from: '2026-03-16', to: '2026-03-22' },
      cost_usd: 1,
      previous_cost_usd: null,
      previous_unpriced_models: ['qwen3-coder-plus'],
      change_usd: null,
      change_pct: null,
    });
    // The stored digest's row, read back as a delivery reads it.
    expect(await new DigestStore(server.db).event(event.id)).toMatchObject({ previous_cost_usd: null, change_usd: null, change_pct: null });
    const list = AlertList.parse(
      (await server.app.inject({ method: 'GET', url: '/api/v0/organization/alerts', headers: bearer(acme.users.manager.key) })).json(),
    );
    expect(list.digests.map((d) => [d.week.from, d.cost_usd])).toEqual([['2026-03-16', 1]]);
    const slack = JSON.parse(received.find((r) => r.path.startsWith('/slack'))!.body) as { text: string };
    expect(slack.text).toBe(
      "agentmeter weekly digest, 2026-03-16 to 2026-03-22 (UTC): $1.00, no change to show: the week before's usage (qwen3-coder-plus) had no price.",
    );
  }, 60_000);
});

describe("a day's model priced for one agent's records and not another's", () => {
  it('keeps the priced dollars and names the model, in the week and the week before', async () => {
    const db = await openDb(join(tempDir(), 'digest-rows.duckdb'));
    try {
      // One person, one day, one model: $5 through one agent, no price through the other.
      const row = `INSERT INTO agg_tokens_day VALUES ('org_rows', CAST($day AS DATE), 'usr_1', $agent, 'mixed-model', false, 10, 1, 0, 0, 11, $cost)`;
      for (const day of ['2026-03-10', '2026-03-17']) {
        await db.run(row, { day, agent: 'claude', cost: 5 });
        await db.run(row, { day, agent: 'droid', cost: null });
      }
      const store = new DigestStore(db);
      const week = await store.tokens('org_rows', '2026-03-16', '2026-03-22');
      const previous = await store.previous('org_rows', '2026-03-09', '2026-03-15');
      // A priced row and an unpriced one: costOf sums the $5 and unpricedModels names the model.
      const costs = (rows: { cost_usd: number | null }[]) => rows.map((r) => r.cost_usd).sort();
      expect(costs(week)).toEqual([5, null]);
      expect(costs(previous)).toEqual([5, null]);
      expect(unpricedModels(week)).toEqual(['mixed-model']);
      expect([costOf(week), costOf(previous)]).toEqual([5, 5]);
    } finally {
      await db.close();
    }
  });
});
