// The dashboard in real Chromium: Cursor keeps no token usage on the machine, so beside Claude Code's
// credits and dollars by agent the overview lists Cursor as "not reported", never as zero, as the analytics
// API's meta.tokens_not_reported says; an agent with usage is counted as before. A range without Cursor
// lists nothing as not reported.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { launchChromium } from '../helpers/browser.ts';
import { call, turn, usage } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const ago = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let managerKey: string;
const problems: string[] = [];

async function overview(from: string, to: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error ${e.message}`));
  await page.goto(`${server.url}/`);
  await page.getByLabel('API key or token').fill(managerKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  await page.goto(`${server.url}/overview?from=${from}&to=${to}`);
  await page.locator('.overview[data-ready]').waitFor();
  return page;
}

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'not-reported.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Mixed');
  const manager = await accounts.createUser({ orgId: org.id, email: 'lead@mixed.example.com', role: 'manager' });
  managerKey = (await accounts.createKey(manager)).key;
  const dev = await accounts.createUser({ orgId: org.id, email: 'dev@mixed.example.com', role: 'member' });
  // Yesterday: Claude Code with usage (sonnet, 1.2 × 1100 = 1320 credits) and Cursor with a turn and a call.
  // Five days ago: Claude Code only.
  await ingest.storeRecords(org.id as OrgId, dev.id as UserId, [
    turn(ago(1), { id: 'lap.c1', session_id: 'c1' }),
    usage('claude-sonnet-4-5', ago(1), { input_tokens: 1000, output_tokens: 100 }, false, 'c1'),
    turn(ago(1), { id: 'lap.k1', session_id: 'k1', agent: 'cursor' }),
    call('Shell', ago(1), { id: 'lap.k2', session_id: 'k1', agent: 'cursor', is_shell: true }),
    turn(ago(5), { id: 'lap.c2', session_id: 'c2' }),
    usage('claude-sonnet-4-5', ago(5), { input_tokens: 10, output_tokens: 0 }, false, 'c2'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('tokens an agent does not report, in Chromium', () => {
  it('lists Cursor as "not reported" beside the agents with credits and dollars', async () => {
    const range = `startDate=${ago(2)}&endDate=${ago(1)}`;
    const res = await fetch(`${server.url}/api/v1/analytics/tokens?${range}&group_by=agent`, {
      headers: { authorization: `Bearer ${managerKey}` },
    });
    const tokens = (await res.json()) as {
      data: { group_key: string; billable_tokens: number }[];
      meta: { tokens_not_reported: string[] };
    };
    expect(tokens.data.map((r) => [r.group_key, r.billable_tokens])).toEqual([['claude', 1320]]);
    expect(tokens.meta.tokens_not_reported).toEqual(['cursor']);

    const page = await overview(ago(2), ago(1));
    for (const list of ['agents', 'agents-dollars']) {
      const cursor = page.locator(`[data-top="${list}"] tr[data-name="cursor"]`);
      expect(await cursor.getAttribute('data-value'), list).toBe('not reported');
      expect((await cursor.locator('td').textContent())!.trim(), list).toBe('not reported');
    }
    const claude = page.locator('[data-top="agents"] tr[data-name="claude"]');
    expect(await claude.getAttribute('data-value')).toBe('1320');
    expect((await claude.locator('td').textContent())!.trim()).toBe('1,320');
    await page.context().close();
  });

  it('lists nothing as not reported in a range Cursor was not used in', async () => {
    const page = await overview(ago(6), ago(4));
    expect(await page.locator('[data-top="agents"] tr[data-name="claude"]').getAttribute('data-value')).toBe('12');
    expect(await page.locator('[data-value="not reported"]').count()).toBe(0);
    await page.context().close();
    expect(problems).toEqual([]);
  });
});
