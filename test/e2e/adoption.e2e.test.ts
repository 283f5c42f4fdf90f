// The Adoption page in Chromium against a real server: its figures are the API's, the person who never
// sent an event is listed, and the CSV it downloads has one line per person on the roster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Adoption } from '../../api/adoption/schema.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { launchChromium } from '../helpers/browser.ts';
import { type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { turn } from '../helpers/records.ts';
import { ndjson } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
let server: ServerProcess;
let browser: Browser;
let owner: string;

beforeAll(async () => {
  const db = join(dir, 'agentmeter.duckdb');
  const acme = await seedAccount(db, 'owner', 'owner@acme.example.com');
  owner = acme.key;
  const { key: member } = await seedAccount(db, 'member', 'ana@acme.example.com', acme.org);
  await seedAccount(db, 'member', 'ben@acme.example.com', acme.org);
  server = await startServerProcess(db);
  const today = new Date().toISOString().slice(0, 10);
  const shipped = await fetch(`${server.url}${INGEST_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${member}`, 'content-type': 'application/x-ndjson' },
    body: ndjson([turn(`${today}T00:00:01Z`)]),
  });
  expect(shipped.status).toBeLessThan(300);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the Adoption page', { timeout: 120_000 }, () => {
  it('shows the API’s figures, lists who never activated, and downloads the CSV', async () => {
    const res = await fetch(`${server.url}/api/v0/organization/adoption`, { headers: { authorization: `Bearer ${owner}` } });
    const api = Adoption.parse(await res.json());
    expect(api.totals).toMatchObject({ people: 3, activated: 1, active7: 1, neverActivated: 2 });
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', acceptDownloads: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => (m.type() === 'error' ? problems.push(m.text()) : undefined));
    await page.goto(`${server.url}/adoption`);
    await page.getByLabel('API key or token').fill(owner);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-ready="true"]').waitFor();
    for (const [id, value] of [
      ['roster', api.totals.people],
      ['activated', api.totals.activated],
      ['active-7', api.totals.active7],
      ['active-28', api.totals.active28],
      ['never', api.totals.neverActivated],
      ['quiet', api.totals.quiet],
    ] as const)
      expect(Number(await page.locator(`[data-figure="${id}"]`).getAttribute('data-value')), id).toBe(value);
    const never = await page.getByTestId('adoption-never').locator('tbody th').allTextContents();
    expect(never).toEqual(['ben@acme.example.com', 'owner@acme.example.com']);
    expect(await page.getByTestId('adoption-agents').locator('tbody tr').first().textContent()).toBe('claude111');
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download CSV/ }).click()]);
    const csv = readFileSync((await file.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(csv).toHaveLength(4);
    expect(csv[0]).toMatch(/^user_id,email,role,/);
    expect(problems).toEqual([]);
    await context.close();
  });
});
