// The dashboard's overview in real Chromium: the time until it is complete (figures and every chart drawn)
// for ranges the server has not answered before (its analytics cache cold for them, the browser's cache
// empty), and the size of its assets as the server sends them (gzip). Used by `npm run bench` (the
// "dashboard" section) and by hand for the README's screenshots:
//   npx tsx bench/dashboard.ts --url http://127.0.0.1:8080 --key am_… [--shots docs] [--runs 5] [--end YYYY-MM-DD]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/helpers/browser.ts';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'web', 'dist');
const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Bytes of the built dashboard as the server sends it: index.html and every asset, gzip level 9. */
export function assetBytes(dir = DIST): { files: number; raw: number; gzip: number } {
  let files = 0;
  let raw = 0;
  let gzip = 0;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        files += 1;
        raw += body.length;
        gzip += gzipSync(body, { level: 9 }).length;
      }
    }
  };
  walk(dir);
  return { files, raw, gzip };
}

async function signedInContext(browser: Browser, base: string, key: string, width = 1280): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const res = await context.request.post(`${base}/api/v0/auth/session`, {
    headers: { 'x-agentmeter-dashboard': '1' },
    data: { credential: key },
  });
  if (res.status() !== 201) throw new Error(`sign-in failed: ${res.status()} ${await res.text()}`);
  return context;
}

/** Milliseconds from navigation start until the overview shows its figures and has drawn every chart. */
async function overviewComplete(context: BrowserContext, url: string): Promise<number> {
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('.overview[data-ready]').waitFor({ timeout: 60_000 });
  // A string: this file is type-checked without the DOM library.
  await page.waitForFunction(
    "document.querySelectorAll('[data-chart]').length > 0 && document.querySelectorAll('[data-chart] canvas').length >= document.querySelectorAll('[data-chart]').length",
  );
  const ms = await page.evaluate(() => performance.now());
  await page.close();
  return ms;
}

export interface DashboardResult {
  completeMs: number[];
  assets: { files: number; raw: number; gzip: number };
}

/**
 * `runs` cold loads of the overview, each for a 30-day range not asked before (ending `end`, then a day
 * earlier each run) in a fresh browser context; with `shots`, screenshots of the overview and the people
 * page (1280 px) and of the overview at a phone's width (375 px) into that folder.
 */
export async function measureDashboard(
  base: string,
  key: string,
  options: { runs?: number; end?: string; shots?: string } = {},
): Promise<DashboardResult> {
  const browser = await launchChromium();
  try {
    const end = Date.parse(`${options.end ?? isoDay(Date.now() - DAY)}T00:00:00Z`);
    const completeMs: number[] = [];
    for (let i = 0; i < (options.runs ?? 5); i++) {
      const to = isoDay(end - i * DAY);
      const from = isoDay(end - (i + 29) * DAY);
      const context = await signedInContext(browser, base, key);
      completeMs.push(await overviewComplete(context, `${base}/overview?from=${from}&to=${to}`));
      await context.close();
    }
    if (options.shots) {
      const range = `from=${isoDay(end - 29 * DAY)}&to=${isoDay(end)}`;
      const context = await signedInContext(browser, base, key);
      const page = await context.newPage();
      await page.goto(`${base}/overview?${range}`);
      await page.locator('.overview[data-ready]').waitFor({ timeout: 60_000 });
      await page.screenshot({ path: join(options.shots, 'dashboard-overview.png'), fullPage: true });
      await page.goto(`${base}/people?${range}`);
      await page.getByTestId('people-table').waitFor({ timeout: 60_000 });
      await page.screenshot({ path: join(options.shots, 'dashboard-people.png'), fullPage: true });
      await context.close();
      const phone = await signedInContext(browser, base, key, 375);
      const small = await phone.newPage();
      await small.goto(`${base}/overview?${range}`);
      await small.locator('.overview[data-ready]').waitFor({ timeout: 60_000 });
      await small.screenshot({ path: join(options.shots, 'dashboard-phone.png'), fullPage: false });
      await phone.close();
    }
    return { completeMs, assets: assetBytes() };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === import.meta.filename) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const url = arg('url');
  const key = arg('key');
  if (!url || !key) throw new Error('usage: tsx bench/dashboard.ts --url URL --key KEY [--shots DIR] [--runs N] [--end YYYY-MM-DD]');
  const result = await measureDashboard(url, key, {
    runs: Number(arg('runs') ?? '5'),
    ...(arg('end') ? { end: arg('end')! } : {}),
    ...(arg('shots') ? { shots: arg('shots')! } : {}),
  });
  const sorted = [...result.completeMs].sort((a, b) => a - b);
  console.log(
    `overview complete (cold): ${sorted.map((ms) => Math.round(ms)).join(', ')} ms; median ${Math.round(sorted[Math.floor(sorted.length / 2)]!)} ms`,
  );
  console.log(
    `assets: ${result.assets.files} files, ${(result.assets.raw / 1024).toFixed(1)} KiB, ${(result.assets.gzip / 1024).toFixed(1)} KiB gzip`,
  );
}
