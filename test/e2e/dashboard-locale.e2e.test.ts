// The dashboard never goes blank: in Chromium under the POSIX locale (LANG=C.UTF-8 makes Chromium report
// `en-US@posix`, which Intl refuses) it signs in and draws the overview with its charts, and when a page
// cannot be drawn (an answer it cannot read) or the scripts fail outside any page, the page says what
// happened and what to do. The built dashboard (web/dist) against a real server on a real DuckDB file.
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
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let ownerKey: string;

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'locale.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Posix');
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@posix.example.com', role: 'owner' });
  ownerKey = (await accounts.createKey(owner)).key;
  await ingest.storeRecords(org.id as OrgId, owner.id as UserId, [
    turn(yesterday, { id: 'px-1.a1', session_id: 's1' }),
    call('Read', yesterday, { id: 'px-1.a2', session_id: 's1' }),
    usage('claude-sonnet-4-5', yesterday, { input_tokens: 1000, output_tokens: 100 }, false, 's1'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log });
  browser = await launchChromium(['--lang=en-US@posix']);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A page in a new context (no locale given: the browser's own), with its page errors collected. */
async function open(errors: string[]): Promise<Page> {
  const context = await browser.newContext({ timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.getByLabel('API key or token').fill(ownerKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
}

describe('dashboard under the POSIX locale', () => {
  it('the browser reports en-US@posix, and the dashboard signs in and draws the overview with its charts', async () => {
    const errors: string[] = [];
    const page = await open(errors);
    // Before any of the dashboard's code: the tag as the browser reports it, which Intl refuses.
    expect(await page.evaluate('navigator.language')).toBe('en-US@posix');
    expect(
      await page.evaluate(
        '(() => { try { new Intl.NumberFormat(navigator.language); return "accepted"; } catch (e) { return e.name; } })()',
      ),
    ).toBe('RangeError');
    await signIn(page);
    await page.locator('[data-figure]').first().waitFor();
    await page.locator('.uplot').first().waitFor();
    // The page's libraries see the repaired tag.
    expect(await page.evaluate('navigator.language')).toBe('en-US');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a page that cannot be drawn shows what happened and what to do, and the navigation stays', async () => {
    const errors: string[] = [];
    const page = await open(errors);
    // Answers the overview cannot read (no rows where it expects a list): drawing it throws.
    await page.route('**/api/v1/analytics/**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: '{"data":null}' }),
    );
    await signIn(page);
    const failure = page.getByTestId('failure');
    await failure.waitFor();
    expect(await failure.locator('h1').textContent()).toBe('The dashboard could not show this page');
    expect(await failure.textContent()).toContain('Reload the page.');
    // The shell (who is signed in, the navigation) is still there: only the page was replaced.
    expect(await page.getByRole('navigation', { name: 'Pages' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('an error outside any page, with nothing drawn, replaces the blank page with the message', async () => {
    const page = await open([]);
    await page.goto(`${server.url}/`);
    await page.getByLabel('API key or token').waitFor();
    // A string: the browser runs it (the test's own types have no DOM).
    const text = await page.evaluate(`(() => {
      document.getElementById('app').replaceChildren();
      window.dispatchEvent(new ErrorEvent('error', { error: new RangeError('Invalid language tag: en-US@posix') }));
      return document.getElementById('app').textContent;
    })()`);
    expect(text).toContain('The dashboard could not show this page');
    expect(text).toContain('RangeError: Invalid language tag: en-US@posix');
    expect(text).toContain('developer console');
    await page.context().close();
  });
});
