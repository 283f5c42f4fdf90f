// The dashboard's overview in real Chromium: the time until it is complete (figures and every chart drawn)
// for ranges the server has not answered before (its analytics cache cold for them, the browser's cache
// empty), and the size of its assets as the server sends them (gzip). Used by `npm run bench` (the
// "dashboard" section) and by hand for the README's screenshots:
//   npx tsx bench/dashboard.ts --url http://127.0.0.1:8080 --key am_… [--shots docs] [--runs 5] [--end YYYY-MM-DD]
// With --shots, every page of the dashboard is shot too (DASHBOARD_PAGES), and one sheet of them all
// (docs/dashboard-pages.jpg, the README's picture); the key must be a manager's or an owner's.
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Every page of the dashboard as a manager sees it: the file name of its shot, its path and its title. */
export const DASHBOARD_PAGES = [
  { file: 'screens/overview.jpg', path: '/overview', title: 'Overview' },
  { file: 'screens/people.jpg', path: '/people', title: 'People' },
  { file: 'screens/person.jpg', path: '/people/:first', title: 'A person' },
  { file: 'screens/teams.jpg', path: '/teams', title: 'Teams' },
  { file: 'screens/adoption.jpg', path: '/adoption', title: 'Adoption' },
  { file: 'screens/code.jpg', path: '/code', title: 'Code' },
  { file: 'screens/readiness.jpg', path: '/readiness', title: 'Readiness' },
  { file: 'screens/sessions.jpg', path: '/sessions', title: 'Sessions' },
  { file: 'screens/budgets.jpg', path: '/budgets', title: 'Budgets' },
  { file: 'screens/organization.jpg', path: '/organization', title: 'Organization' },
  { file: 'screens/pipeline.jpg', path: '/pipeline', title: 'Pipeline' },
  { file: 'screens/machines.jpg', path: '/machines', title: 'Machines' },
  { file: 'screens/me.jpg', path: '/me', title: 'My usage' },
  { file: 'screens/device.jpg', path: '/device?code=:code', title: 'Enroll a machine' },
] as const;

/**
 * A shot of each page into `out`/screens (the first 1280 × 900 pixels, once its requests are done and its
 * charts drawn), and a sheet of them all into `out`, laid out and shot in the same Chromium
 * (dashboard-pages.jpg). The device page shows a code the walk asks for, as install.sh would.
 */
async function shootEveryPage(browser: Browser, base: string, key: string, out: string, range: string): Promise<void> {
  const context = await signedInContext(browser, base, key);
  const people = await context.request.get(`${base}/api/v1/analytics/users?${range.replace('from', 'startDate').replace('to', 'endDate')}`);
  const first = ((await people.json()) as { data: { user_id: string }[] }).data[0]?.user_id ?? 'me';
  const device = await context.request.post(`${base}/api/v0/auth/device`, { data: { name: 'install.sh on ana-laptop' } });
  const code = ((await device.json()) as { userCode: string }).userCode;
  const page = await context.newPage();
  mkdirSync(join(out, 'screens'), { recursive: true });
  const shots: { title: string; image: Buffer }[] = [];
  for (const p of DASHBOARD_PAGES) {
    const path = p.path.replace(':first', encodeURIComponent(first)).replace(':code', code);
    await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}${range}`);
    await page.waitForLoadState('networkidle');
    await page.waitForFunction("[...document.querySelectorAll('[data-chart]')].every((c) => c.querySelector('canvas'))");
    // JPEG: fourteen pages of text and charts, a fifth of the bytes of PNG, still sharp enough to read.
    const image = await page.screenshot({ path: join(out, p.file), type: 'jpeg', quality: 80 });
    shots.push({ title: p.title, image });
  }
  const cells = shots
    .map((s) => `<figure><img src="data:image/jpeg;base64,${s.image.toString('base64')}"><figcaption>${s.title}</figcaption></figure>`)
    .join('');
  const sheet = await context.newPage();
  await sheet.setViewportSize({ width: 1600, height: 900 });
  await sheet.setContent(
    `<style>body{margin:12px;font:15px system-ui,sans-serif;background:#fff}main{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}figure{margin:0}img{width:100%;border:1px solid #ccc}figcaption{text-align:center;padding:2px}</style><main>${cells}</main>`,
  );
  await sheet.screenshot({ path: join(out, 'dashboard-pages.jpg'), fullPage: true, type: 'jpeg', quality: 85 });
  await context.close();
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
      await shootEveryPage(browser, base, key, options.shots, range);
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
