// The Budgets page's anomaly alerts and digest preview in real Chromium against a real server on a fixed
// clock (Sunday 2026-03-22 12:00 UTC): an owner sets the anomaly and digest destinations in the page's form;
// the member's $25 Sunday (3 × their $2 median is $6, the floor $20) fires one anomaly, delivered to a local
// receiver; the page then lists it and previews Monday's digest with the server's own figures. Another
// organization's week before had usage without a price: its preview shows no change, never one from $0.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { launchChromium } from '../helpers/browser.ts';
import { waitFor } from '../helpers/processes.ts';
import { usage, type WireRecord } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const SUNDAY = new Date('2026-03-22T12:00:00Z');
const SECRET = 'whsec-dashboard-0123456789';
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let hooks: string;
const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);
const keys = {} as Record<'owner' | 'manager' | 'member', { id: string; key: string }>;
const problems: string[] = [];

// claude-opus-4-5: 200k input tokens = $1.
const dollars = (day: string, usd: number): WireRecord[] =>
  Array.from({ length: usd }, () => usage('claude-opus-4-5-20251101', `${day}T10:00:00Z`, { input_tokens: 200_000 }));

async function api<T>(key: string, path: string): Promise<T> {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function signedIn(who: keyof typeof keys, key = keys[who].key): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  // The browser's clock is the server's: the pages ask for the days before the server's today.
  await context.clock.setFixedTime(SUNDAY);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${who}: console error ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${who}: page error ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${who}: ${r.status()} ${r.url()}`);
  });
  await page.goto(`${server.url}/`);
  await page.getByLabel('API key or token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  return page;
}

beforeAll(async () => {
  hooks = receiver.url;
  const db = await openDb(join(tempDir(), 'alerts-dash.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({
    db,
    log,
    host: '127.0.0.1',
    port: 0,
    handleSignals: false,
    decodeWorkers: 0,
    now: () => SUNDAY,
    alerts: { allowPrivate: true, settleMs: 20, retryDelayMs: 50, maxAttempts: 3 },
  });
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Alerts');
  for (const who of ['owner', 'manager', 'member'] as const) {
    const user = await accounts.createUser({ orgId: org.id, email: `${who}@alerts.example.com`, role: who });
    keys[who] = { id: user.id, key: (await accounts.createKey(user)).key };
  }
  // The member: $2 on 7 days, then $25 today (Sunday). The manager: $4 on Thursday.
  await ingest.storeRecords(org.id as OrgId, keys.member.id as UserId, [
    ...['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-16', '2026-03-17', '2026-03-18'].flatMap((d) => dollars(d, 2)),
    ...dollars('2026-03-22', 25),
  ]);
  await ingest.storeRecords(org.id as OrgId, keys.manager.id as UserId, dollars('2026-03-19', 4));
  server.services.live.touch(org.id);
  await server.services.runBatch({ trigger: 'cli', log });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Budgets page: anomalies and the weekly digest in Chromium', () => {
  it('an owner sets the destinations; the anomaly is listed and the digest previewed as the API answers', async () => {
    const page = await signedIn('owner');
    await page.getByRole('link', { name: 'Budgets' }).click();
    await page.locator('[data-ready]').waitFor();
    // No anomaly yet: the settings are the defaults until the owner saves them.
    expect(await page.getByTestId('digest-settings').textContent()).toContain('off');
    const form = page.getByTestId('alert-settings-form');
    await form.locator('input[name="floor"]').fill('20');
    await form.locator('input[name="anomalyWebhook"]').fill(`${hooks}/anomalies`);
    await form.locator('input[name="anomalySecret"]').fill(SECRET);
    await form.locator('input[name="digestSlack"]').fill(`${hooks}/slack/T000/B000/XXXX`);
    await form.getByRole('button', { name: 'Save alert settings' }).click();
    await expect.poll(() => page.getByTestId('alert-settings-message').textContent()).toBe('Settings saved');
    await waitFor(() => received.some((r) => r.path === '/anomalies'), 30_000, 'the anomaly delivery');
    await server.services.alerts.idle();
    expect(received.filter((r) => r.path === '/anomalies')).toHaveLength(1);

    await page.reload();
    await page.getByRole('link', { name: 'Budgets' }).click();
    await page.locator('[data-ready]').waitFor();
    const row = page.locator('[data-testid="anomalies"] tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getAttribute('data-anomaly')).toBe('member@alerts.example.com');
    expect(await row.getAttribute('data-cost')).toBe('25');
    expect(await row.textContent()).toContain('webhook: delivered');
    // A destination is shown as scheme and host only: the path may be its secret.
    expect(await page.getByTestId('anomaly-settings').textContent()).toContain(`above $20.00; sent to webhook ${new URL(hooks).origin}/…`);
    const shown = await page.content();
    for (const hidden of [`${hooks}/anomalies`, 'XXXX', 'T000']) expect(shown).not.toContain(hidden);
    expect(await page.getByTestId('digest-settings').textContent()).toContain('next 2026-03-23 09:00 UTC');

    // The preview is the server's builder: the week so far (the batch's days, $2 × 3 + $4) and the anomaly.
    const preview = await api<{ digest: { cost_usd: number; week: { from: string } } }>(
      keys.manager.key,
      '/api/v0/organization/digest/preview',
    );
    expect(preview.digest).toMatchObject({ cost_usd: 10, week: { from: '2026-03-16' } });
    const section = page.getByTestId('digest-preview');
    expect(Number(await section.getAttribute('data-cost'))).toBe(preview.digest.cost_usd);
    const text = await section.textContent();
    expect(text).toContain('2026-03-16 to 2026-03-22; sent 2026-03-23 09:00 UTC, the week so far');
    expect(text).toContain('member@alerts.example.com: $6.00');
    expect(text).toContain('manager@alerts.example.com: $4.00');
    expect(await page.getByTestId('digest-anomalies').textContent()).toContain(
      '2026-03-22 member@alerts.example.com: $25.00 (median $2.00)',
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it('a manager sees the anomaly and the preview, without the settings form', async () => {
    const page = await signedIn('manager');
    await page.getByRole('link', { name: 'Budgets' }).click();
    await page.locator('[data-ready]').waitFor();
    expect(await page.locator('[data-testid="anomalies"] tbody tr').count()).toBe(1);
    await page.getByTestId('digest-preview').waitFor();
    expect(await page.getByTestId('alert-settings-form').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('a week before whose usage had no price: the preview shows no change, not one from $0', async () => {
    // Another organization: 1,000 tokens of qwen3-coder-plus (no price) on 03-10, the week before; $1 of
    // opus on 03-17. The week before's dollars are null (docs/metrics.md §8), so there is no change.
    const { accounts, ingest } = server.services;
    const org = await accounts.createOrg('Unpriced');
    const user = await accounts.createUser({ orgId: org.id, email: 'manager@unpriced.example.com', role: 'manager' });
    const key = (await accounts.createKey(user)).key;
    await ingest.storeRecords(org.id as OrgId, user.id as UserId, [
      { ...usage('qwen3-coder-plus', '2026-03-10T10:00:00Z', { input_tokens: 1000 }), agent: 'qwen' },
      ...dollars('2026-03-17', 1),
    ]);
    await server.services.runBatch({ trigger: 'cli', log });
    const page = await signedIn('manager', key);
    await page.getByRole('link', { name: 'Budgets' }).click();
    await page.locator('[data-ready]').waitFor();
    const section = page.getByTestId('digest-preview');
    await section.waitFor();
    expect(await section.getAttribute('data-cost')).toBe('1');
    const text = await section.textContent();
    expect(text).toContain("$1.00, no change to show: the week before's usage (qwen3-coder-plus) had no price;");
    expect(text).not.toContain('nothing');
    expect(problems).toEqual([]);
  }, 60_000);
});
