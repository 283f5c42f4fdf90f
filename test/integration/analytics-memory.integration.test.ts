// The analytics read model (api/analytics/memory.ts) against the SQL path it replaces: two servers on one
// database, one answering from memory and one reading DuckDB for every request (the read model off), both
// without the answer cache. Every endpoint, several ranges and every group_by must give the same bytes,
// on data that has what the SQL path handles specially: a user with no activity at all, a user with usage
// and no hook event (not active), an unpriced model, reasoning and standard use of one model, quiet days
// inside a range, pages of users with cursors, and a removed user (no e-mail any more).
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type Services } from '../../api/server.ts';
import { SINCE_ALWAYS, TeamStore } from '../../api/teams/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { call, ev, failedCall, message, turn, usage, type WireRecord } from '../helpers/records.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-30T09:00:00Z');
const METRICS_TOKEN = 'metrics-token-that-is-at-least-32-characters';
const log = createLogger({ name: 'test', level: 'silent' });
const FIRST = Date.UTC(2026, 2, 1);
const day = (i: number) => new Date(FIRST + i * 86_400_000).toISOString().slice(0, 10);

let db: Db;
let memory: { app: FastifyInstance; services: Services };
let sql: { app: FastifyInstance; services: Services };
let owner: string;
let orgId: string;
const users: Record<string, UserId> = {};

/** A small deterministic generator (the same records on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function recordsOf(name: string, seed: number, days: number[]): WireRecord[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const out: WireRecord[] = [];
  for (const d of days) {
    const D = `${day(d)}T${String(9 + Math.floor(r() * 8)).padStart(2, '0')}:00:00Z`;
    const session = `${name}-${d}-${Math.floor(r() * 2)}`;
    const client = pick(['terminal-ui', 'terminal-ui', 'web', 'non-interactive-cli'] as const);
    const autonomy = pick(['auto-high', 'auto-medium', 'auto-low', 'spec', 'manual'] as const);
    // The day's agent, so group_by=agent has several groups to tell apart.
    const agent = pick(['claude', 'droid', 'codex', 'gemini', 'qwen'] as const);
    const common = { session_id: session, client, autonomy, agent };
    const turns = 1 + Math.floor(r() * 3);
    for (let t = 0; t < turns; t++)
      out.push(
        turn(D, {
          ...common,
          ...(r() < 0.3 ? { slash_command: pick(['review', 'init', 'compact']) } : {}),
          hooks: [{ event: 'UserPromptSubmit', matcher: '', command: pick(['a.sh', 'b.sh']) }],
        }),
      );
    const calls = Math.floor(r() * 6);
    for (let c = 0; c < calls; c++) {
      const tool = pick(['Bash', 'Read', 'Edit', 'Write', 'Skill', 'mcp__github__get_issue', 'mcp__linear__list']);
      if (r() < 0.15) {
        out.push(failedCall(tool, D, common));
        continue;
      }
      out.push(
        call(tool, D, {
          ...common,
          ...(tool === 'Bash' ? { is_shell: true, git_commit: r() < 0.5, pr_created: r() < 0.2 } : {}),
          ...(tool === 'Skill' ? { skill: pick(['pdf', 'xlsx']) } : {}),
          ...(tool === 'Edit' || tool === 'Write'
            ? { files: [{ ext: pick(['ts', 'py', 'md', '']), op: tool === 'Write' ? ('create' as const) : ('edit' as const) }] }
            : {}),
          hooks: [{ event: 'PostToolUse', matcher: '*', command: 'lint.sh' }],
        }),
      );
    }
    out.push(ev('PreToolUse', D, { ...common, tool_name: 'Read' }));
    const models = ['claude-sonnet-4-5', 'claude-opus-4-1', 'mystery-model-7'] as const;
    for (let u = 0; u < 1 + Math.floor(r() * 3); u++)
      out.push({
        ...usage(
          pick(models),
          D,
          { input_tokens: Math.floor(r() * 5000), output_tokens: Math.floor(r() * 900), cache_read_tokens: Math.floor(r() * 20000) },
          r() < 0.3,
          session,
        ),
        agent,
      });
    out.push(message(D, session));
  }
  return out;
}

/** Loads the organization's rows into the read model, then checks that the answers below came from it. */
async function fromMemory<T>(fn: () => Promise<T>): Promise<T> {
  const model = memory.services.readModel;
  await model.ready(orgId);
  expect(model.heldRows).toBeGreaterThan(0);
  const before = model.stats.sqlFallbacks;
  const result = await fn();
  expect(model.stats.sqlFallbacks).toBe(before);
  return result;
}

async function get(app: FastifyInstance, url: string): Promise<string> {
  const res = await app.inject({ method: 'GET', url, headers: bearer(owner) });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

const RANGES: [string, string][] = [
  [day(0), day(27)], // everything, with quiet days at both ends
  [day(3), day(3)], // one day
  [day(5), day(19)], // inside
  [day(20), day(27)], // the last days, some quiet
  [day(25), day(27)], // only quiet days: nobody active
];

const URLS = RANGES.flatMap(([from, to]) => {
  const q = `startDate=${from}&endDate=${to}`;
  return [
    `/api/v1/analytics/tokens?${q}`,
    `/api/v1/analytics/tokens?${q}&group_by=model`,
    `/api/v1/analytics/tokens?${q}&group_by=agent`,
    `/api/v1/analytics/tools?${q}&group_by=agent`,
    `/api/v1/analytics/activity?${q}&group_by=agent`,
    `/api/v1/analytics/tools?${q}`,
    `/api/v1/analytics/tools?${q}&group_by=tool_name`,
    `/api/v1/analytics/activity?${q}`,
    `/api/v1/analytics/activity?${q}&group_by=client`,
    `/api/v1/analytics/productivity?${q}`,
    `/api/v1/analytics/users?${q}`,
    `/api/v1/analytics/users?${q}&limit=1`,
    `/api/v1/analytics/users?${q}&limit=100`,
  ];
});

/** Every page of the users endpoint, following next_cursor, as both servers answer it. */
async function allPages(app: FastifyInstance, from: string, to: string, limit: number): Promise<string[]> {
  const pages: string[] = [];
  let cursor: string | null = null;
  do {
    const body: string = await get(
      app,
      `/api/v1/analytics/users?startDate=${from}&endDate=${to}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    pages.push(body);
    cursor = (JSON.parse(body) as { meta: { next_cursor: string | null } }).meta.next_cursor;
  } while (cursor);
  return pages;
}

beforeAll(async () => {
  db = await openDb(`${tempDir()}/memory.duckdb`);
  const options = { db, log, now: () => NOW, cache: { maxEntries: 0 } };
  memory = await buildServer({ ...options, metricsToken: METRICS_TOKEN });
  sql = await buildServer({ ...options, readModel: { maxRows: 0 } });
  const { accounts, ingest } = memory.services;
  const org = await accounts.createOrg('Memory');
  orgId = org.id;
  const ownerUser = await accounts.createUser({ orgId: org.id, email: 'owner@memory.example.com', role: 'owner' });
  owner = (await accounts.createKey(ownerUser)).key;
  for (const name of ['ann', 'bob', 'cat', 'dan', 'eve', 'idle', 'usageonly', 'leaver'])
    users[name] = (await accounts.createUser({ orgId: org.id as OrgId, email: `${name}@memory.example.com`, role: 'member' })).id;
  const plan: Record<string, number[]> = {
    ann: [0, 1, 2, 3, 5, 8, 13, 21],
    bob: [1, 3, 4, 5, 6, 7, 10, 11, 12, 19],
    cat: [3, 9, 15, 22],
    dan: [0, 3, 6, 9, 12, 15, 18, 21, 24],
    eve: [3, 4, 14, 20],
    leaver: [2, 3, 16],
  };
  let seed = 1;
  for (const [name, days] of Object.entries(plan)) await ingest.storeRecords(org.id as OrgId, users[name]!, recordsOf(name, seed++, days));
  // Token usage with no hook event: the user has rows but is not active.
  await ingest.storeRecords(org.id as OrgId, users['usageonly']!, [
    usage('claude-haiku-4-5', `${day(3)}T10:00:00Z`, { input_tokens: 100, output_tokens: 10 }, false, 'uo'),
    usage('mystery-model-7', `${day(11)}T10:00:00Z`, { input_tokens: 50 }, true, 'uo'),
  ]);
  // Another organization's data must stay out of both.
  const other = await accounts.createOrg('Other');
  const stranger = await accounts.createUser({ orgId: other.id, email: 'x@other.example.com', role: 'member' });
  await ingest.storeRecords(other.id as OrgId, stranger.id, recordsOf('x', 99, [3, 4, 5]));
  await memory.services.runBatch({ trigger: 'cli', log, now: NOW });
});

afterAll(async () => {
  await memory.app.close();
  await sql.app.close();
  await db.close();
});

describe('the read model answers as the SQL path does', () => {
  it('for every endpoint, range and group_by', async () => {
    // Before its load the read model answers from SQL; after it, from memory. Both as SQL does.
    expect(memory.services.readModel.heldRows).toBe(0);
    expect(await get(memory.app, URLS[0]!)).toBe(await get(sql.app, URLS[0]!));
    await fromMemory(async () => {
      for (const url of URLS) expect(await get(memory.app, url), url).toBe(await get(sql.app, url));
    });
    // Not vacuous: the data is there, and the largest range has every user with rows.
    const users = JSON.parse(await get(memory.app, `/api/v1/analytics/users?startDate=${day(0)}&endDate=${day(27)}&limit=100`));
    expect(new Set(users.data.map((r: { user_id: string }) => r.user_id)).size).toBe(7); // not idle
    const tokens = JSON.parse(await get(memory.app, `/api/v1/analytics/tokens?startDate=${day(0)}&endDate=${day(27)}&group_by=model`));
    expect(tokens.data.some((r: { group_key: string }) => r.group_key === 'mystery-model-7')).toBe(true);
    // What it holds is reported.
    const metrics = await memory.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
    const held = memory.services.readModel.heldRows;
    expect(metrics.body).toMatch(new RegExp(`^agentmeter_analytics_read_model_rows ${held}$`, 'm'));
  });

  it('team= on a team of everyone answers as the organization does, from memory and from SQL (docs/metrics.md §6)', async () => {
    // Everyone, since always, is in Company (directly or through its child Squad): every record over the
    // members is the organization's own.
    const teams = new TeamStore(db);
    const company = await teams.createTeam(orgId, 'Company');
    const squad = await teams.createTeam(orgId, 'Squad', company.id);
    for (const [i, id] of Object.values(users).entries()) await teams.addMember(orgId, i % 2 ? company.id : squad.id, id, SINCE_ALWAYS);
    try {
      await fromMemory(async () => {
        for (const url of URLS) {
          const team = `${url}&team=company`;
          expect(await get(memory.app, team), team).toBe(await get(sql.app, url));
          expect(await get(sql.app, team), team).toBe(await get(sql.app, url));
        }
      });
    } finally {
      await teams.deleteTeam(orgId, squad.id);
      await teams.deleteTeam(orgId, company.id);
    }
  });

  it('gzip: the answers kept as pieces decode to the bytes the SQL path sends', async () => {
    await fromMemory(async () => {
      for (const url of URLS) {
        const res = await memory.app.inject({ method: 'GET', url, headers: { ...bearer(owner), 'accept-encoding': 'gzip' } });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload).toString() : res.body;
        expect(body, url).toBe(await get(sql.app, url));
      }
    });
    // Not vacuous: the large answers came compressed.
    const big = await memory.app.inject({ method: 'GET', url: URLS[0]!, headers: { ...bearer(owner), 'accept-encoding': 'gzip' } });
    expect(big.headers['content-encoding']).toBe('gzip');
  });

  it('page by page, following the cursors', async () => {
    await fromMemory(async () => {
      for (const [from, to] of RANGES)
        for (const limit of [1, 2, 3])
          expect(await allPages(memory.app, from, to, limit)).toEqual(await allPages(sql.app, from, to, limit));
    });
  });

  it('gzip, page by page: every user a run of the spans kept for them, whatever the range and page', async () => {
    let compressed = 0;
    await fromMemory(async () => {
      // Overlapping ranges, so that later answers reuse spans earlier ones made, cut where pages end.
      for (const [from, to] of [...RANGES, [day(1), day(26)], [day(2), day(27)], [day(0), day(3)]] as const)
        for (const limit of [1, 3]) {
          let seen = 0;
          let previous: string | null = null;
          for (const page of await allPages(sql.app, from, to, limit)) {
            const cursor = (JSON.parse(page) as { meta: { next_cursor: string | null } }).meta.next_cursor;
            const url = `/api/v1/analytics/users?startDate=${from}&endDate=${to}&limit=${limit}`;
            const res = await memory.app.inject({
              method: 'GET',
              url: seen === 0 ? url : `${url}&cursor=${previous}`,
              headers: { ...bearer(owner), 'accept-encoding': 'gzip' },
            });
            const gzip = res.headers['content-encoding'] === 'gzip';
            if (gzip) compressed++;
            const body = gzip ? gunzipSync(res.rawPayload).toString() : res.body;
            expect(body, `${url} page ${seen}`).toBe(page);
            previous = cursor;
            seen++;
          }
        }
    });
    // Not vacuous: most pages are large enough to be sent compressed.
    expect(compressed).toBeGreaterThan(20);
  });

  it('after a batch rebuilds days and after a user is removed', async () => {
    const url = `/api/v1/analytics/tokens?startDate=${day(0)}&endDate=${day(27)}`;
    const before = await fromMemory(() => get(memory.app, url));
    // A late record on day 3, then a batch through the server: the read model must not keep the old rows.
    await memory.services.ingest.storeRecords(orgId as OrgId, users['ann']!, [
      usage('claude-opus-4-1', `${day(3)}T11:00:00Z`, { input_tokens: 7777, output_tokens: 777 }, false, 'late'),
    ]);
    await memory.services.runBatch({ trigger: 'cli', log, now: NOW });
    const after = await fromMemory(() => get(memory.app, url));
    expect(after).not.toBe(before);
    expect(after).toBe(await get(sql.app, url));
    // Removal without erasure keeps the rows; the user's e-mail goes (LEFT JOIN users in SQL).
    const res = await memory.app.inject({ method: 'DELETE', url: `/api/v0/admin/users/${users['leaver']}`, headers: bearer(owner) });
    expect(res.statusCode, res.body).toBe(200);
    const removed = await fromMemory(() => get(memory.app, url));
    expect(removed).not.toContain('leaver@memory.example.com');
    expect(removed).toBe(await get(sql.app, url));
    await fromMemory(async () => {
      for (const u of URLS) expect(await get(memory.app, u), u).toBe(await get(sql.app, u));
    });
  });
});

describe('the read model loads before it is asked', () => {
  it('at the start (preload) and again after a batch, what it held', async () => {
    const fresh = await buildServer({ db, log, now: () => NOW, cache: { maxEntries: 0 } });
    try {
      const model = fresh.services.readModel;
      expect(model.heldRows).toBe(0);
      await model.preload();
      const held = model.heldRows;
      expect(held).toBeGreaterThan(0);
      await fromModel(fresh, model);
      // A batch drops the rows; the sets held are loaded again with no request.
      await fresh.services.runBatch({ trigger: 'cli', log, now: NOW });
      await expect.poll(() => model.heldRows, { timeout: 10_000 }).toBe(held);
      await fromModel(fresh, model);
    } finally {
      await fresh.app.close();
    }
  });
});

/** The ungrouped answers of a server come from its read model with no SQL, as the SQL path gives them. */
async function fromModel(server: { app: FastifyInstance }, model: Services['readModel']) {
  const before = model.stats.sqlFallbacks;
  for (const url of URLS.filter((u) => !u.includes('group_by'))) expect(await get(server.app, url), url).toBe(await get(sql.app, url));
  expect(model.stats.sqlFallbacks).toBe(before);
}

describe('the read model within its row budget', () => {
  it('answers an organization larger than the budget from SQL, with the same figures', async () => {
    const small = await buildServer({ db, log, now: () => NOW, cache: { maxEntries: 0 }, readModel: { maxRows: 10 } });
    try {
      const url = `/api/v1/analytics/tools?startDate=${day(0)}&endDate=${day(27)}`;
      await small.services.readModel.ready(orgId);
      const res = await small.app.inject({ method: 'GET', url, headers: bearer(owner) });
      expect(res.body).toBe(await get(sql.app, url));
      expect(small.services.readModel.heldRows).toBe(0);
      expect(small.services.readModel.stats.sqlFallbacks).toBeGreaterThan(0);
    } finally {
      await small.app.close();
    }
  });
});
