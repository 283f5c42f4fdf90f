// The dashboard's Code page in real Chromium against a real server: its figures, funnel, breakdowns and
// landed commits equal /api/v1/analytics/code and /api/v0/code/commits for the same range; a member sees
// their own; no console error.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PullRequestStore } from '../../api/pull-requests/store.ts';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { importRosterText } from '../../api/teams/service.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit } from '../../common/wire.ts';
import { launchChromium } from '../helpers/browser.ts';
import { at, call, type WireRecord } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const ago = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);
const FROM = ago(30);
const TO = ago(1);

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let base: string;
const keys = {} as Record<'manager' | 'member' | 'guest', { id: string; key: string }>;
const problems: string[] = [];

function commit(
  url: string,
  sha: string,
  when: string,
  lines: number,
  by: WireLandedCommit['by_agent'],
  author = 'member@impact.example.com',
): WireLandedCommit {
  const repo = repoId(url);
  return {
    kind: 'commit',
    id: `${repo}:${sha}`,
    repo_id: repo,
    repo: url.replace(/^https:\/\//, '').replace(/\.git$/, ''),
    commit: sha,
    ts: at(when),
    author,
    lines_added: lines,
    lines_deleted: 1,
    agent_lines: by.reduce((n, a) => n + a.lines, 0),
    by_agent: by,
  };
}

async function api<T>(key: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

let orgId: string;
let db: Db;

async function signedIn(who: keyof typeof keys): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
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

const figure = async (page: Page, id: string) => Number(await page.locator(`[data-figure="${id}"]`).getAttribute('data-value'));
const top = async (page: Page, id: string) =>
  page
    .locator(`[data-top="${id}"] tbody tr`)
    .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-name'), Number(r.getAttribute('data-value'))]));

interface CodeDay {
  edits: { lines_added: number };
  landed: { lines_added: number; agent_lines_added: number; commits: number; commits_with_agent_lines: number };
}

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'code-dash.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  base = server.url;
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Impact');
  orgId = org.id;
  for (const who of ['manager', 'member', 'guest'] as const) {
    const user = await accounts.createUser({ orgId: org.id, email: `${who}@impact.example.com`, role: who });
    keys[who] = { id: user.id, key: (await accounts.createKey(user)).key };
  }
  const store = (who: keyof typeof keys, records: WireRecord[]) => ingest.storeRecords(org.id as OrgId, keys[who].id as UserId, records);
  await store('member', [
    { kind: 'message', id: 'mm1', agent: 'claude', session_id: 'b1', ts: at(`${ago(2)}T08:00:00Z`), model: 'claude-sonnet-4-5' },
    call('Write', `${ago(2)}T09:00:00Z`, {
      session_id: 'b1',
      edits: [
        { ext: 'ts', lines_added: 40, lines_deleted: 0, repo_id: repoId('https://github.com/acme/shop.git'), repo: 'github.com/acme/shop' },
      ],
    }),
    call('apply_patch', `${ago(1)}T09:00:00Z`, {
      session_id: 'x1',
      agent: 'codex',
      edits: [{ ext: 'go', lines_added: 10, lines_deleted: 2 }],
    }),
    commit('https://github.com/acme/shop.git', 'a'.repeat(40), `${ago(2)}T12:00:00Z`, 50, [
      { agent: 'claude', model: 'claude-sonnet-4-5', lines: 30 },
    ]),
    commit('https://github.com/acme/api.git', 'b'.repeat(40), `${ago(1)}T12:00:00Z`, 12, [{ agent: 'codex', model: 'unknown', lines: 8 }]),
  ]);
  await store('manager', [
    commit('https://github.com/acme/shop.git', 'c'.repeat(40), `${ago(1)}T15:00:00Z`, 20, [], 'manager@impact.example.com'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log });
  // A pull request squash-merged as the shop's first commit (GitHub names the squash commit), opened 2 h before.
  await new PullRequestStore(db).take(org.id, 'github', 'dash-1', {
    repo: 'github.com/acme/shop',
    number: 12,
    host: 'github',
    hostId: '12',
    author: null,
    state: 'merged',
    openedAt: new Date(`${ago(2)}T10:00:00Z`),
    mergedAt: new Date(`${ago(2)}T12:00:00Z`),
    updatedAt: new Date(`${ago(2)}T12:00:00Z`),
    mergeCommitId: 'a'.repeat(40),
    squashCommitId: null,
    headCommitId: null,
    commitCount: 1,
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Code page in Chromium', () => {
  it("a manager sees the organization's figures, equal to the API's", async () => {
    const page = await signedIn('manager');
    await page.getByRole('link', { name: 'Code' }).click();
    await page.locator('[data-ready]').waitFor();
    const days = (await api<{ data: CodeDay[] }>(keys.manager.key, `/api/v1/analytics/code?startDate=${FROM}&endDate=${TO}`)).data;
    const sum = (f: (d: CodeDay) => number) => days.reduce((a, d) => a + f(d), 0);
    // By hand: 50 + 12 + 20 = 82 lines landed, 30 + 8 = 38 by agents; the agents wrote 40 + 10 = 50.
    expect(sum((d) => d.landed.lines_added)).toBe(82);
    expect(await figure(page, 'landed-lines')).toBe(82);
    expect(await figure(page, 'agent-lines')).toBe(sum((d) => d.landed.agent_lines_added));
    expect(await figure(page, 'agent-share')).toBe(Math.round((38 / 82) * 10_000) / 10_000);
    expect(await figure(page, 'landed-commits')).toBe(3);
    expect(await figure(page, 'agent-commits')).toBe(2);
    expect(await figure(page, 'edit-lines')).toBe(sum((d) => d.edits.lines_added));
    expect(await figure(page, 'funnel-landed')).toBe(38);
    expect(await figure(page, 'landed-rate')).toBe(0.76);
    expect(await top(page, 'code-agents')).toEqual([
      ['claude', 30],
      ['codex', 8],
    ]);
    expect(await top(page, 'code-repos')).toEqual([
      ['github.com/acme/shop', 30],
      ['github.com/acme/api', 8],
    ]);
    // The pull request holds the shop's first commit: merged 1, with agent lines 1, in the shop.
    expect(await figure(page, 'prs-merged')).toBe(1);
    expect(await figure(page, 'prs-agent')).toBe(1);
    expect(await top(page, 'prs-repos')).toEqual([['github.com/acme/shop', 1]]);
    // The shop's 40 edit lines; the codex edit was in no repository.
    expect(await top(page, 'code-repo-edits')).toEqual([['github.com/acme/shop', 40]]);
    const commits = (
      await api<{ data: { commit: string; agent_lines: number }[] }>(
        keys.manager.key,
        `/api/v0/code/commits?startDate=${FROM}&endDate=${TO}`,
      )
    ).data;
    const shown = await page
      .locator('[data-testid="landed-commits"] tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-commit'), Number(r.getAttribute('data-agent-lines'))]));
    expect(shown).toEqual(commits.map((c) => [c.commit, c.agent_lines]));
  });

  it("the team picker shows a team's figures and commits, equal to the API's", async () => {
    // The member is in Core; the manager in no team.
    const imported = await importRosterText(db, orgId, 'email,team,parent,from,to\nmember@impact.example.com,Core,,,\n');
    expect('ok' in imported).toBe(true);
    const page = await signedIn('manager');
    await page.getByRole('link', { name: 'Code' }).click();
    await page.locator('[data-ready]').waitFor();
    await page.getByTestId('team-picker').selectOption('Core');
    await page.getByRole('heading', { name: 'Code the agents wrote: Core' }).waitFor();
    await page.locator('[data-ready]').waitFor();
    const days = (await api<{ data: CodeDay[] }>(keys.manager.key, `/api/v1/analytics/code?startDate=${FROM}&endDate=${TO}&team=Core`))
      .data;
    // By hand: the member's 50 + 12 landed, 2 commits.
    expect(days.reduce((a, d) => a + d.landed.lines_added, 0)).toBe(62);
    await expect.poll(() => figure(page, 'landed-lines')).toBe(62);
    expect(await figure(page, 'landed-commits')).toBe(2);
    expect(await page.locator('[data-testid="landed-commits"] tbody tr').count()).toBe(2);
  });

  it('a member sees their own; a guest nothing', async () => {
    const page = await signedIn('member');
    await page.getByRole('link', { name: 'Code' }).click();
    await page.locator('[data-ready]').waitFor();
    expect(await figure(page, 'landed-lines')).toBe(62);
    expect(await figure(page, 'landed-commits')).toBe(2);
    expect(await page.locator('[data-testid="landed-commits"] tbody tr').count()).toBe(2);
    expect((await page.locator('main').textContent())!).not.toContain('manager@impact.example.com');
    const guest = await signedIn('guest');
    await guest.goto(`${base}/code`);
    await guest.getByTestId('guest').waitFor();
  });

  it('the former address /impact lands on the Code page, its query kept', async () => {
    const page = await signedIn('manager');
    await page.goto(`${base}/impact?team=Core`);
    await page.getByRole('heading', { name: 'Code the agents wrote: Core' }).waitFor();
    const url = new URL(page.url());
    expect(`${url.pathname}${url.search}`).toBe('/code?team=Core');
  });

  it('no console errors', () => {
    expect(problems).toEqual([]);
  });
});
