// A person whose usage has no price (docs/metrics.md §8: never priced at zero silently): the person page
// shows their cost as "no price", as the API's null says, not as $0.00. Real Chromium against a real server
// on a real DuckDB file.
//
// Hand-worked: the member used 1,000 input tokens of qwen3-coder-plus (no price in the table, none of the
// organization's) yesterday: /api/v0/usage/users/{id} meta.totals.cost_usd is null, billable_tokens 400
// (its credit multiplier is 0.4: 0.4 × 1,000). The organization's only usage, so the overview's cost of
// yesterday has no dollars either; 10 tokens of it today leave today's cost without dollars too.
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { launchChromium } from '../helpers/browser.ts';
import { turn, usage } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const YESTERDAY = new Date(today - DAY).toISOString().slice(0, 10);
const TODAY = new Date(today).toISOString().slice(0, 10);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let context: BrowserContext | undefined;
const keys: Record<'manager' | 'member', { id: string; key: string }> = {} as never;

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'person-unpriced.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Unpriced');
  for (const who of ['manager', 'member'] as const) {
    const user = await accounts.createUser({ orgId: org.id, email: `${who}@unpriced.example.com`, role: who });
    keys[who] = { id: user.id, key: (await accounts.createKey(user)).key };
  }
  await ingest.storeRecords(org.id as OrgId, keys.member.id as UserId, [
    turn(YESTERDAY, { id: 'u-1.a1', session_id: 'q1', agent: 'qwen' }),
    { ...usage('qwen3-coder-plus', YESTERDAY, { input_tokens: 1000, output_tokens: 0 }, false, 'q1'), agent: 'qwen' },
    { ...usage('qwen3-coder-plus', TODAY, { input_tokens: 10, output_tokens: 0 }, false, 'q2'), agent: 'qwen' },
  ]);
  await server.services.runBatch({ trigger: 'cli', log });
  browser = await launchChromium();
});

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

describe('the person page of someone whose usage has no price', () => {
  it('shows the cost as no price, not $0.00', async () => {
    const range = `startDate=${YESTERDAY}&endDate=${YESTERDAY}`;
    const res = await fetch(`${server.url}/api/v0/usage/users/${keys.member.id}?${range}`, {
      headers: { authorization: `Bearer ${keys.manager.key}` },
    });
    expect(res.status).toBe(200);
    const totals = ((await res.json()) as { meta: { totals: { cost_usd: number | null; billable_tokens: number } } }).meta.totals;
    expect(totals).toMatchObject({ cost_usd: null, billable_tokens: 400 });

    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key or token').fill(keys.manager.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    await page.goto(`${server.url}/people/${keys.member.id}?from=${YESTERDAY}&to=${YESTERDAY}`);
    await page.locator('[data-ready]').waitFor();
    const cost = page.locator('[data-figure="cost"]');
    expect((await cost.locator('dd').textContent())!.trim()).toBe('—');
    expect(await cost.getAttribute('data-value')).toBe('null');
    expect((await page.locator('[data-figure="credits"]').getAttribute('data-value'))!).toBe('400');

    // The overview: the range's cost and today's, no dollars (never $0.00), the model named.
    await page.goto(`${server.url}/overview?from=${YESTERDAY}&to=${YESTERDAY}`);
    await page.locator('[data-ready]').waitFor();
    const total = page.locator('.overview [data-figure="cost"]');
    expect(await total.getAttribute('data-value')).toBe('null');
    expect((await total.locator('dd').textContent())!.trim()).toBe('— no price (qwen3-coder-plus)');
    // Qwen Code's dollars: "no price", not $0; and no line at 0 for its model.
    const qwen = page.locator('[data-top="agents-dollars"] tr[data-name="qwen"]');
    expect(await qwen.getAttribute('data-value')).toBe('no price');
    expect((await qwen.locator('td').textContent())!.trim()).toBe('no price');
    const todayCost = page.locator('[data-figure="today-cost"]');
    await todayCost.waitFor();
    expect(await todayCost.getAttribute('data-value')).toBe('null');
    expect((await todayCost.locator('dd').textContent())!.trim()).toBe('— no price (qwen3-coder-plus)');
  });
});
