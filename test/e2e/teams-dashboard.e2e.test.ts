// The dashboard's teams in real Chromium against a real server: the team picker on the overview and
// people pages sets team= in the URL and the figures become the API's for that team; the Teams page shows
// each team's members and figures (the sums of the API's group_by=team rows). No console error.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import { launchChromium } from '../helpers/browser.ts';
import { at, call, turn, usage } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const ago = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let base: string;
const keys: Record<string, string> = {};
const problems: string[] = [];

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${keys['manager']}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'teams-dash.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  base = server.url;
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Teams');
  const ids: Record<string, string> = {};
  for (const who of ['owner', 'manager', 'ana', 'bo', 'cy'] as const) {
    const role = who === 'owner' || who === 'manager' ? who : 'member';
    const user = await accounts.createUser({ orgId: org.id, email: `${who}@teams.example.com`, role });
    ids[who] = user.id;
    keys[who] = (await accounts.createKey(user)).key;
  }
  const store = (who: string, records: Parameters<typeof ingest.storeRecords>[2]) =>
    ingest.storeRecords(org.id as OrgId, ids[who] as UserId, records);
  // Web {ana, bo}: 3 + 1 tool calls; Data {cy}: 5 tool calls. Credits: 1.2 × input (Sonnet).
  await store('ana', [
    turn(ago(1), { session_id: 'a' }),
    call('Read', ago(1), { session_id: 'a' }),
    call('Read', ago(1), { session_id: 'a' }),
    call('Bash', ago(1), { session_id: 'a', is_shell: true, git_commit: true }),
    usage('claude-sonnet-4-5', ago(1), { input_tokens: 1000 }, false, 'a'),
    // A landed commit of 10 lines, 7 by Claude Code.
    {
      kind: 'commit',
      id: `${repoId('https://github.com/acme/web.git')}:${'e'.repeat(40)}`,
      repo_id: repoId('https://github.com/acme/web.git'),
      repo: 'github.com/acme/web',
      commit: 'e'.repeat(40),
      ts: at(ago(1)),
      author: 'ana@teams.example.com',
      lines_added: 10,
      lines_deleted: 0,
      agent_lines: 7,
      by_agent: [{ agent: 'claude', model: 'claude-sonnet-4-5', lines: 7 }],
    },
  ]);
  await store('bo', [call('Edit', ago(2), { session_id: 'b', files: [{ ext: 'ts', op: 'edit' }] })]);
  await store(
    'cy',
    [1, 2, 3, 4, 5].map(() => call('Grep', ago(1), { session_id: 'c' })),
  );
  await server.services.runBatch({ trigger: 'cli', log });
  const roster = [
    'email,team,parent,from,to',
    'ana@teams.example.com,Web,Engineering,,',
    'bo@teams.example.com,Web,Engineering,,',
    'cy@teams.example.com,Data,Engineering,,',
  ].join('\n');
  const put = await fetch(`${base}/api/v0/organization/teams`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${keys['owner']}`, 'content-type': 'text/csv' },
    body: roster,
  });
  expect(put.status).toBe(200);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signedIn(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error ${e.message}`));
  await page.goto(`${base}/`);
  await page.getByLabel('API key or token').fill(keys['manager'] as string);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  return page;
}

const figure = async (page: Page, id: string) => Number(await page.locator(`[data-figure="${id}"]`).getAttribute('data-value'));

describe('teams in the dashboard', { timeout: 120_000 }, () => {
  it('the team picker sets team= in the URL; the overview and people pages show that team', async () => {
    const page = await signedIn();
    await page.locator('.overview[data-ready="true"]').waitFor();
    expect(await figure(page, 'tool-calls')).toBe(9); // 3 + 1 + 5
    await page.getByTestId('team-picker').selectOption('Web');
    await page.waitForURL(/team=Web/);
    await page.getByRole('heading', { name: 'Overview: Web' }).waitFor();
    await page.locator('.overview[data-ready="true"]').waitFor();
    const range = `startDate=${ago(30)}&endDate=${ago(1)}`;
    const tools = await api<{ data: { tool_calls: number }[] }>(`/api/v1/analytics/tools?${range}&team=Web`);
    const webCalls = tools.data.reduce((a, r) => a + r.tool_calls, 0);
    expect(webCalls).toBe(4);
    expect(await figure(page, 'tool-calls')).toBe(webCalls);
    // The parent covers both teams.
    await page.getByTestId('team-picker').selectOption('Engineering');
    await page.waitForURL(/team=Engineering/);
    await page.getByRole('heading', { name: 'Overview: Engineering' }).waitFor();
    await page.locator('.overview[data-ready="true"]').waitFor();
    expect(await figure(page, 'tool-calls')).toBe(9);
    // The team goes with the range to the people page, which lists that team's people only.
    await page.getByTestId('team-picker').selectOption('Data');
    await page.waitForURL(/team=Data/);
    await page.getByRole('link', { name: 'People' }).click();
    await page.waitForURL(/\/people\?.*team=Data/);
    await page.getByTestId('people-table').waitFor();
    expect(await page.locator('[data-testid="people-table"] tbody tr').allTextContents()).toEqual([
      expect.stringContaining('cy@teams.example.com'),
    ]);
    await page.getByTestId('team-picker').selectOption('');
    await page.waitForURL((url) => !url.search.includes('team='));
    await page.locator('[data-testid="people-table"] tbody tr').nth(2).waitFor();
    expect(await page.locator('[data-testid="people-table"] tbody tr').count()).toBe(3);
  });

  it("the Teams page shows each team's members and figures, equal to the API's group_by=team", async () => {
    const page = await signedIn();
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByTestId('teams-table').waitFor();
    const cell = (team: string, col: string) => page.locator(`tr[data-team="${team}"] [data-col="${col}"]`);
    expect(await cell('Web', 'members').textContent()).toBe('ana@teams.example.com, bo@teams.example.com');
    expect(await cell('Data', 'members').textContent()).toBe('cy@teams.example.com');
    expect(await cell('Engineering', 'members').textContent()).toBe('—');
    const range = `startDate=${ago(30)}&endDate=${ago(1)}&group_by=team`;
    const tokens = await api<{ data: { group_key: string; billable_tokens: number }[] }>(`/api/v1/analytics/tokens?${range}`);
    const webCredits = tokens.data.filter((r) => r.group_key === 'Web').reduce((a, r) => a + r.billable_tokens, 0);
    expect(webCredits).toBe(1200);
    expect(Number(await cell('Web', 'credits').getAttribute('data-value'))).toBe(webCredits);
    expect(Number(await cell('Web', 'toolCalls').getAttribute('data-value'))).toBe(4);
    expect(Number(await cell('Data', 'toolCalls').getAttribute('data-value'))).toBe(5);
    expect(Number(await cell('Web', 'commits').getAttribute('data-value'))).toBe(1);
    expect(Number(await cell('Web', 'filesEdited').getAttribute('data-value'))).toBe(1);
    const code = await api<{ data: { group_key: string; landed_agent_lines: number }[] }>(`/api/v1/analytics/code?${range}`);
    expect(code.data.filter((r) => r.group_key === 'Web').reduce((a, r) => a + r.landed_agent_lines, 0)).toBe(7);
    expect(Number(await cell('Web', 'agentLines').getAttribute('data-value'))).toBe(7);
    expect(Number(await cell('Data', 'agentLines').getAttribute('data-value'))).toBe(0);
    // A team's name leads to the overview of that team.
    await page.locator('tr[data-team="Data"] th a').click();
    await page.waitForURL(/\/overview\?.*team=Data/);
    await page.locator('.overview[data-ready="true"]').waitFor();
    expect(await figure(page, 'tool-calls')).toBe(5);
  });

  it('no console errors', () => {
    expect(problems).toEqual([]);
  });
});
