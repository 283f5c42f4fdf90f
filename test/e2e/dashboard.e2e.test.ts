// The dashboard in real Chromium against a real server on a real DuckDB file: sign-in, the overview's
// figures against the analytics API's for the same range, the people table's paging and sorting, an
// owner editing a credit limit, a member who sees only their own usage, a guest who sees nothing,
// sign-out, no console error and no request to another origin. One browser for the file; a browser
// context (its own cookies) per person.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../api/auth/principal.ts';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { launchChromium } from '../helpers/browser.ts';
import { call, message, turn, usage, type WireRecord } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const ago = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);
// The dashboard's default range: the 30 days up to yesterday.
const FROM = ago(30);
const TO = ago(1);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let base: string;
const keys = {} as Record<Role | 'p1' | 'p2' | 'p3', { id: string; key: string; email: string }>;
const problems: string[] = [];
const contexts: BrowserContext[] = [];

async function api<T>(key: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

/** A fresh browser context signed in as `who`, with every console error and foreign request recorded. */
async function signedIn(who: keyof typeof keys, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  contexts.push(context);
  context.on('request', (r) => {
    if (!r.url().startsWith(`${base}/`) && !r.url().startsWith('blob:')) problems.push(`${who}: request to another origin ${r.url()}`);
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`${who}: console error ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${who}: page error ${e.message}`));
  await page.goto(`${base}/`);
  await page.getByLabel('API key or token').fill(keys[who].key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  return page;
}

const figure = async (page: Page, id: string) => {
  const el = page.locator(`[data-figure="${id}"]`);
  return { value: Number(await el.getAttribute('data-value')), text: (await el.locator('dd').textContent())!.trim() };
};
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'dashboard.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  base = server.url;
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Dash');
  for (const who of ['owner', 'manager', 'member', 'guest', 'p1', 'p2', 'p3'] as const) {
    const role: Role = who.startsWith('p') ? 'member' : (who as Role);
    const user = await accounts.createUser({ orgId: org.id, email: `${who}@dash.example.com`, role });
    keys[who] = { id: user.id, key: (await accounts.createKey(user)).key, email: user.email };
  }
  const store = (who: keyof typeof keys, records: WireRecord[]) => ingest.storeRecords(org.id as OrgId, keys[who].id as UserId, records);
  // Figures by hand: 7 tool calls, 6 sessions, 7 user turns, 2 commits; credits are 1.2 × (input + output) for Sonnet.
  await store('member', [
    turn(ago(1), { id: 'lap-1.a1', session_id: 'b1' }),
    turn(ago(1), { id: 'lap-1.a2', session_id: 'b1' }),
    call('Read', ago(1), { id: 'lap-1.a3', session_id: 'b1' }),
    call('Edit', ago(1), { id: 'lap-1.a4', session_id: 'b1', files: [{ ext: 'ts', op: 'edit' }] }),
    call('Bash', ago(1), { id: 'lap-1.a5', session_id: 'b1', is_shell: true, git_commit: true }),
    usage('claude-sonnet-4-5', ago(1), { input_tokens: 1000, output_tokens: 100 }, false, 'b1'),
    message(ago(1), 'b1'),
    turn(ago(2), { id: 'lap-1.b1', session_id: 'b2' }),
    call('Read', ago(2), { id: 'lap-1.b2', session_id: 'b2' }),
    usage('claude-sonnet-4-5', ago(2), { input_tokens: 200, output_tokens: 20 }, false, 'b2'),
    // Edit decisions Claude Code reported through OpenTelemetry (docs/metrics.md §11): 3 accepted, 1 rejected.
    {
      kind: 'decision',
      id: 'lap-1.otel.0',
      agent: 'claude',
      session_id: 'b1',
      ts: Date.parse(`${ago(1)}T10:00:00Z`),
      decision: 'accept',
      count: 3,
      tool_name: 'Edit',
      language: 'TypeScript',
    },
    {
      kind: 'decision',
      id: 'lap-1.otel.1',
      agent: 'claude',
      session_id: 'b1',
      ts: Date.parse(`${ago(1)}T10:00:00Z`),
      decision: 'reject',
      count: 1,
      tool_name: 'Write',
    },
  ]);
  await store('manager', [
    turn(ago(1), { id: 'desk-9.a1', session_id: 'm1', agent: 'droid' }),
    call('Bash', ago(1), { id: 'desk-9.a2', session_id: 'm1', agent: 'droid', is_shell: true, git_commit: true }),
    call('mcp__github__get_issue', ago(1), { id: 'desk-9.a3', session_id: 'm1', agent: 'droid' }),
    usage('claude-opus-4-1', ago(1), { input_tokens: 500, output_tokens: 50 }, false, 'm1'),
  ]);
  await store('p1', [
    turn(ago(5), { id: 'p1-m.a1', session_id: 'p1' }),
    call('Grep', ago(5), { id: 'p1-m.a2', session_id: 'p1' }),
    usage('claude-sonnet-4-5', ago(5), { input_tokens: 3000, output_tokens: 300 }, false, 'p1'),
  ]);
  // p2 runs Gemini CLI: the overview's usage by agent has a third agent.
  await store('p2', [
    turn(ago(2), { id: 'p2-m.a1', session_id: 'p2', agent: 'gemini' }),
    { ...usage('gemini-2.5-pro', ago(2), { input_tokens: 400, output_tokens: 40 }, false, 'p2'), agent: 'gemini' },
  ]);
  await store('p3', [turn(ago(1), { id: 'p3-m.a1', session_id: 'p3', client: 'web' })]);
  await server.services.runBatch({ trigger: 'cli', log });
  browser = await launchChromium();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await server?.close();
});

describe('dashboard in Chromium', () => {
  let manager: Page;

  it("a manager signs in and the overview shows the analytics API's figures for the default range", async () => {
    manager = await signedIn('manager');
    await manager.locator('.overview[data-ready]').waitFor();
    expect(new URL(manager.url()).pathname).toBe('/overview');
    const range = `startDate=${FROM}&endDate=${TO}`;
    const [tokens, activity, tools, productivity] = await Promise.all([
      api<{ data: { billable_tokens: number }[] }>(keys.manager.key, `/api/v1/analytics/tokens?${range}`),
      api<{ data: { sessions: number; messages: number; monthly_active_users: number }[] }>(
        keys.manager.key,
        `/api/v1/analytics/activity?${range}`,
      ),
      api<{ data: { tool_calls: number; by_tool: { tool: string; invocations: number }[] }[] }>(
        keys.manager.key,
        `/api/v1/analytics/tools?${range}`,
      ),
      api<{ data: { files_edited: number; git_commits: number }[] }>(keys.manager.key, `/api/v1/analytics/productivity?${range}`),
    ]);
    const total = <T>(rows: T[], f: (r: T) => number) => rows.reduce((a, r) => a + f(r), 0);
    const expected: Record<string, number> = {
      credits: total(tokens.data, (r) => r.billable_tokens),
      sessions: total(activity.data, (r) => r.sessions),
      messages: total(activity.data, (r) => r.messages),
      'tool-calls': total(tools.data, (r) => r.tool_calls),
      mau: activity.data.at(-1)!.monthly_active_users,
      'files-edited': total(productivity.data, (r) => r.files_edited),
      commits: total(productivity.data, (r) => r.git_commits),
    };
    // The hand-worked figures, so the comparison is not between two zeros.
    expect(expected).toMatchObject({ 'tool-calls': 7, sessions: 6, commits: 2, 'files-edited': 1, mau: 5 });
    for (const [id, value] of Object.entries(expected)) {
      const shown = await figure(manager, id);
      expect(shown.value, id).toBe(value);
      expect(shown.text, id).toBe(fmt(value));
    }
    // Top tools: Read and Bash twice each, then the others once.
    const read = manager.locator('[data-top="tools"] tr[data-name="Read"]');
    expect(await read.getAttribute('data-value')).toBe(
      String(total(tools.data, (r) => r.by_tool.find((t) => t.tool === 'Read')?.invocations ?? 0)),
    );
    expect(await read.getAttribute('data-value')).toBe('2');
    // A chart's numbers are a click away: its table has the day's value.
    const chart = manager.locator('[data-chart="tool-calls"]');
    await chart.getByRole('button', { name: 'Table' }).click();
    const dayRow = chart.locator('tbody tr', { has: manager.locator(`th:text-is("${ago(1)}")`) });
    expect((await dayRow.locator('td').textContent())!.trim()).toBe(String(tools.data.at(-1)!.tool_calls));
  });

  it("usage by agent (group_by=agent, our extension): credits and DAU per agent equal the API's", async () => {
    const range = `startDate=${FROM}&endDate=${TO}`;
    const [tokens, activity] = await Promise.all([
      api<{ data: { group_key: string; billable_tokens: number }[] }>(keys.manager.key, `/api/v1/analytics/tokens?${range}&group_by=agent`),
      api<{ data: { date: string; group_key: string; daily_active_users: number }[] }>(
        keys.manager.key,
        `/api/v1/analytics/activity?${range}&group_by=agent`,
      ),
    ]);
    // Credits per agent over the range: the list's figure is the API's sum.
    const gemini = tokens.data.filter((r) => r.group_key === 'gemini').reduce((a, r) => a + r.billable_tokens, 0);
    expect(gemini).toBeGreaterThan(0);
    const row = manager.locator('[data-top="agents"] tr[data-name="gemini"]');
    expect(await row.getAttribute('data-value')).toBe(String(gemini));
    expect((await row.locator('td').textContent())!.trim()).toBe(fmt(gemini));
    // DAU by agent, a click away: yesterday the manager ran Droid, the member and p3 Claude Code.
    const chart = manager.locator('[data-chart="dau-by-agent"]');
    await chart.getByRole('button', { name: 'Table' }).click();
    const headers = (await chart.locator('thead th').allTextContents()).map((t) => t.trim());
    const cell = async (agent: string) =>
      (await chart
        .locator('tbody tr', { has: manager.locator(`th:text-is("${ago(1)}")`) })
        .locator('td')
        .nth(headers.indexOf(agent) - 1)
        .textContent())!.trim();
    const dau = (agent: string) => activity.data.find((r) => r.date === ago(1) && r.group_key === agent)?.daily_active_users;
    expect([dau('claude'), dau('droid')]).toEqual([2, 1]);
    expect(await cell('claude')).toBe(String(dau('claude')));
    expect(await cell('droid')).toBe(String(dau('droid')));
  });

  it('edit decisions by agent: the API\'s figures, and "not reported" for an agent that reports none', async () => {
    await manager.goto(`${base}/overview`);
    await manager.locator('.overview[data-ready]').waitFor();
    const decisions = await api<{ data: unknown[] }>(
      keys.manager.key,
      `/api/v1/analytics/productivity?startDate=${FROM}&endDate=${TO}&group_by=agent`,
    );
    expect(decisions.data).toEqual([
      { date: ago(1), group_key: 'claude', edits_accepted: 3, edits_rejected: 1, edit_acceptance_rate: 0.75 },
    ]);
    const table = manager.locator('[data-testid="edit-decisions"]');
    const cells = async (agent: string) =>
      (
        await table
          .locator('tbody tr', { has: manager.locator(`th:text-is("${agent}")`) })
          .locator('td')
          .allTextContents()
      ).map((t) => t.trim());
    expect(await cells('claude')).toEqual(['3', '1', '75%']);
    expect(await cells('droid')).toEqual(['not reported', 'not reported', 'not reported']);
    expect(await cells('gemini')).toEqual(['not reported', 'not reported', 'not reported']);
    expect((await table.locator('caption').textContent())!).toContain('75%');
  });

  it("a range in the URL is the range shown, and equals the API's for it", async () => {
    await manager.goto(`${base}/overview?from=${ago(2)}&to=${ago(2)}`);
    await manager.locator('.overview[data-ready]').waitFor();
    const tools = await api<{ data: { tool_calls: number }[] }>(
      keys.manager.key,
      `/api/v1/analytics/tools?startDate=${ago(2)}&endDate=${ago(2)}`,
    );
    expect((await figure(manager, 'tool-calls')).value).toBe(tools.data[0]!.tool_calls);
    expect(tools.data[0]!.tool_calls).toBe(1);
  });

  it('the people table pages and sorts, with its state in the URL', async () => {
    await manager.goto(`${base}/people?per=2`);
    const table = manager.getByTestId('people-table');
    await table.waitFor();
    const users = await api<{ data: { user_id: string; billable_tokens: number }[] }>(
      keys.manager.key,
      `/api/v1/analytics/users?startDate=${FROM}&endDate=${TO}&limit=100`,
    );
    const credits = new Map<string, number>();
    for (const r of users.data) credits.set(r.user_id, (credits.get(r.user_id) ?? 0) + r.billable_tokens);
    expect(credits.size).toBe(5);
    await expect.poll(() => manager.getByTestId('page-status').textContent()).toBe('Page 1 of 3');
    expect(await table.locator('tbody tr').count()).toBe(2);
    // Sorted by credits, largest first, by default.
    const shownCredits = async () =>
      await table.locator('td[data-col="credits"]').evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-value'))));
    const sortedDesc = [...credits.values()].sort((a, b) => b - a);
    expect(await shownCredits()).toEqual(sortedDesc.slice(0, 2));
    await manager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => manager.getByTestId('page-status').textContent()).toBe('Page 2 of 3');
    expect(new URL(manager.url()).searchParams.get('page')).toBe('2');
    expect(await shownCredits()).toEqual(sortedDesc.slice(2, 4));
    // Clicking the sorted column turns it around, back to page 1.
    await table.locator('button[data-sort="credits"]').click();
    await expect.poll(() => manager.getByTestId('page-status').textContent()).toBe('Page 1 of 3');
    expect(await shownCredits()).toEqual([...sortedDesc].reverse().slice(0, 2));
    expect(new URL(manager.url()).searchParams.get('dir')).toBe('asc');
    expect(await table.locator('th[aria-sort="ascending"]').count()).toBe(1);
    // A person's page has their days.
    await manager.goto(`${base}/people?q=member%40`);
    await table.getByRole('link', { name: keys.member.email }).click();
    await manager.getByTestId('person-days').waitFor();
    expect(new URL(manager.url()).pathname).toBe(`/people/${keys.member.id}`);
    expect(await manager.getByTestId('person-days').locator('tbody tr').count()).toBe(2);
  });

  it('an owner edits a credit limit on the organization page', async () => {
    const owner = await signedIn('owner');
    await owner.goto(`${base}/organization`);
    const row = owner.getByTestId('limits').locator(`tr[data-email="${keys.member.email}"]`);
    await row.getByLabel(`New monthly limit for ${keys.member.email}`).fill('1234');
    await row.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => owner.getByTestId('limits-message').textContent()).toContain('Saved');
    await expect.poll(() => row.locator('[data-col="limit"]').textContent()).toBe('1,234');
    const limits = await api<{ users: { email: string; limit: number | null }[] }>(
      keys.owner.key,
      '/api/v0/organization/usage/limits/users',
    );
    expect(limits.users.find((u) => u.email === keys.member.email)!.limit).toBe(1234);
    // Roles are listed beside each user.
    expect(await owner.getByTestId('org-users').locator('tr', { hasText: keys.guest.email }).locator('td').first().textContent()).toBe(
      'guest',
    );
  });

  it("a member sees only their own usage, and the server refuses them the organization's", async () => {
    const member = await signedIn('member');
    await member.locator('[data-ready]').waitFor();
    expect(new URL(member.url()).pathname).toBe('/me');
    expect(await member.getByRole('navigation', { name: 'Pages' }).getByRole('link').allTextContents()).toEqual([
      'My usage',
      'Code',
      'Machines',
    ]);
    const users = await api<{ data: { user_id: string; billable_tokens: number; tool_calls: number }[] }>(
      keys.manager.key,
      `/api/v1/analytics/users?startDate=${FROM}&endDate=${TO}&limit=100`,
    );
    const mine = users.data.filter((r) => r.user_id === keys.member.id);
    expect((await figure(member, 'credits')).value).toBe(mine.reduce((a, r) => a + r.billable_tokens, 0));
    expect((await figure(member, 'tool-calls')).value).toBe(4);
    const text = (await member.locator('main').textContent())!;
    for (const other of ['manager', 'p1', 'p2', 'p3', 'owner'] as const) expect(text).not.toContain(keys[other].email);
    const refused = await member.context().request.get(`${base}/api/v1/analytics/activity?startDate=${FROM}&endDate=${TO}`);
    expect(refused.status()).toBe(403);
    const someoneElse = await member.context().request.get(`${base}/api/v0/usage/users/${keys.manager.id}?startDate=${FROM}&endDate=${TO}`);
    expect(someoneElse.status()).toBe(404);
    await member.goto(`${base}/overview`);
    await member.getByRole('heading', { name: 'Not available' }).waitFor();
  });

  it('a guest sees nothing but a message', async () => {
    const guest = await signedIn('guest');
    await guest.getByTestId('guest').waitFor();
    expect(await guest.getByRole('navigation', { name: 'Pages' }).getByRole('link').count()).toBe(0);
    expect((await guest.locator('main').textContent())!).not.toMatch(/\d{2,}/);
    expect((await guest.context().request.get(`${base}/api/v0/usage/users/me?startDate=${FROM}&endDate=${TO}`)).status()).toBe(403);
  });

  it('a member enrolls this machine: a collector key in the install command, listed under its machine, revoked from the page', async () => {
    const member = await signedIn('member');
    await member.goto(`${base}/machines`);
    await member.getByLabel('Machine name').fill('ana-laptop');
    await member.getByRole('button', { name: 'Enroll this machine' }).click();
    const command = (await member.getByTestId('install-command').textContent())!;
    const key = /AGENTMETER_API_KEY=(am_[A-Za-z0-9_-]+) sh$/.exec(command)?.[1];
    expect(command).toBe(`curl -fsSL ${base}/install.sh | AGENTMETER_API_KEY=${key} sh`);
    // A collector key: it sends events, and reads nothing else of the organization's.
    const send = () =>
      fetch(`${base}/api/v1/ingest/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'x-agentmeter-machine': 'abcdefabcdef0123' },
        body: `${JSON.stringify(turn(ago(1), { id: 'abcdefabcdef0123.e1', session_id: 'enrolled' }))}\n`,
      });
    expect((await send()).status).toBe(200);
    const analytics = await fetch(`${base}/api/v1/analytics/users?startDate=${FROM}&endDate=${TO}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(analytics.status).toBe(403);
    await expect
      .poll(async () => {
        await member.reload();
        return member.getByTestId('machine-keys').locator('tr', { hasText: 'ana-laptop' }).locator('th').textContent();
      })
      .toBe('abcdefabcdef');
    const row = member.getByTestId('machine-keys').locator('tr', { hasText: 'ana-laptop' });
    member.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.locator('td').last().textContent()).toMatch(/^revoked /);
    expect((await send()).status).toBe(401);
  });

  it('sign-out ends the session: the cookie no longer authenticates', async () => {
    const [cookie] = await manager.context().cookies(base);
    expect(cookie).toMatchObject({ name: 'agentmeter_session', httpOnly: true, sameSite: 'Strict' });
    await manager.getByRole('button', { name: 'Sign out' }).click();
    await manager.getByLabel('API key or token').waitFor();
    const res = await fetch(`${base}/api/v0/auth/me`, { headers: { cookie: `${cookie!.name}=${cookie!.value}` } });
    expect(res.status).toBe(401);
    // The key never reached the URL or the page's storage.
    expect(manager.url()).not.toContain('am_');
    expect(await manager.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).toBe('{}{}');
  });

  it("at a phone's width the overview fits: nothing wider than the screen but the tables' own scroll areas", async () => {
    const phone = await signedIn('manager', 375);
    await phone.locator('.overview[data-ready]').waitFor();
    await phone.waitForFunction(
      "document.querySelectorAll('[data-chart] canvas').length >= document.querySelectorAll('[data-chart]').length",
    );
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    // On a page load, the first Tab reaches the skip link.
    await phone.reload();
    await phone.locator('.overview[data-ready]').waitFor();
    await phone.keyboard.press('Tab');
    expect(await phone.evaluate('document.activeElement.textContent')).toBe('Skip to content');
  });

  it("the overview shows today's provisional tiles, and the budgets page each budget's bar and the alerts", async () => {
    const now = new Date().toISOString();
    const ingest = await fetch(`${base}/api/v1/ingest/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.member.key}`, 'content-type': 'application/x-ndjson' },
      body: `${[
        turn(now, { id: 'lap-1.t1', session_id: 't1' }),
        call('Read', now, { id: 'lap-1.t2', session_id: 't1' }),
        usage('claude-sonnet-4-5', now, { input_tokens: 1000 }, false, 't1'),
      ]
        .map((r) => JSON.stringify(r))
        .join('\n')}\n`,
    });
    expect(ingest.status).toBe(200);
    const putBudget = async (monthlyCredits: number) => {
      const res = await fetch(`${base}/api/v0/organization/budgets`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${keys.owner.key}`, 'content-type': 'application/json' },
        // And a team budget (the member's team) ten times as large: it shows, and fires nothing.
        body: JSON.stringify({
          budgets: [
            { scope: 'org', monthlyCredits, thresholds: [50, 100] },
            { scope: 'team', team: 'Core', monthlyCredits: monthlyCredits * 10, thresholds: [100] },
          ],
        }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { budgets: { usage: number }[] }).budgets[0]!.usage;
    };
    const roster = await fetch(`${base}/api/v0/organization/teams`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${keys.owner.key}`, 'content-type': 'text/csv' },
      body: `email,team,parent,from,to\n${keys.member.email},Core,,,\n`,
    });
    expect(roster.status).toBe(200);
    // The month so far depends on the day of the month the test runs: a budget it fills to 60%.
    const used = await putBudget(1e12);
    await putBudget(Math.ceil(used / 0.6));
    const today = await api<{ data: { tokens: { billable_tokens: number } } }>(keys.manager.key, '/api/v1/analytics/today');
    expect(today.data.tokens.billable_tokens).toBe(1200);
    const page = await signedIn('manager');
    await page.getByTestId('today').waitFor();
    expect(await page.getByTestId('today').textContent()).toContain('provisional');
    expect((await figure(page, 'today-credits')).value).toBe(1200);
    expect((await figure(page, 'today-active')).value).toBe(1);
    expect((await figure(page, 'today-tool-calls')).value).toBe(1);
    expect((await figure(page, 'today-sessions')).value).toBe(1);

    await expect
      .poll(async () => (await api<{ alerts: unknown[] }>(keys.manager.key, '/api/v0/organization/alerts')).alerts.length, {
        timeout: 20_000,
      })
      .toBe(1);
    await page.getByRole('link', { name: 'Budgets' }).click();
    const budget = page.locator('li[data-budget="Organization"]');
    await budget.waitFor();
    const budgets = await api<{ budgets: { percentage: number }[] }>(keys.manager.key, '/api/v0/organization/budgets');
    expect(await budget.getAttribute('data-percentage')).toBe(String(budgets.budgets[0]!.percentage));
    expect(await budget.locator('line.budget-mark').count()).toBe(2);
    const team = page.locator('li[data-budget="Team Core"]');
    expect(await team.getAttribute('data-percentage')).toBe(String(budgets.budgets[1]!.percentage));
    expect(budgets.budgets[1]!.percentage).toBeGreaterThan(0);
    expect(await page.getByTestId('alerts').locator('tbody tr').count()).toBe(1);
    expect(await page.getByTestId('alerts').locator('tbody tr td').nth(2).textContent()).toBe('50%');
    // The month-end forecast of the organization (and the team with a budget), as the API answers it.
    const forecast = await api<{ organization: { usd: { forecast: number } } }>(keys.manager.key, '/api/v0/organization/forecast');
    const orgRow = page.getByTestId('forecast').locator('tr[data-forecast="Organization"]');
    expect(await orgRow.locator('td').nth(2).textContent()).toContain(
      forecast.organization.usd.forecast.toLocaleString('en-US', { style: 'currency', currency: 'USD' }),
    );
    expect(await page.getByTestId('forecast').locator('tr[data-forecast="Team Core"]').count()).toBe(1);
    // A manager sees no form; an owner sets a person's budget in dollars with it, and it shows.
    expect(await page.getByTestId('budget-form').count()).toBe(0);
    const owner = await signedIn('owner');
    await owner.getByRole('link', { name: 'Budgets' }).click();
    const form = owner.getByTestId('budget-form');
    await form.waitFor();
    await form.locator('select[name="scope"]').selectOption('user');
    await form.locator('input[name="who"]').fill(keys.member.email);
    await form.locator('input[name="amount"]').fill('250');
    await form.locator('input[name="thresholds"]').fill('80, 100');
    await form.getByRole('button', { name: 'Save' }).click();
    const mine = owner.locator(`li[data-budget="${keys.member.email}"]`);
    await mine.waitFor();
    expect(await mine.textContent()).toContain('of $250.00');
    expect(await owner.getByTestId('budget-message').textContent()).toBe('Budget saved');
    const saved = await api<{ budgets: { scope: string; unit: string; monthlyUsd?: number; thresholds: number[] }[] }>(
      keys.manager.key,
      '/api/v0/organization/budgets',
    );
    expect(saved.budgets.map((b) => [b.scope, b.unit, b.monthlyUsd ?? null, b.thresholds])).toContainEqual(['user', 'usd', 250, [80, 100]]);
    expect(saved.budgets).toHaveLength(3);
  });

  it('no console errors and no request to another origin', () => {
    expect(problems).toEqual([]);
  });
});
