// The sample organization's code figures are a real team's (issue #30): its users' project folders are real
// repositories (sample-data/project-repos.ts), so most agent edit lines are written inside a watched
// repository, and each week's work lands on the default branch through the real hook and collector. A small
// plan (3 users, 5 days) replayed against a real server.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { generate } from '../../sample-data/generator.ts';
import { dayCommit } from '../../sample-data/project-repos.ts';
import { replay } from '../../sample-data/replay.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const lastDay = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const firstDay = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
let server: Awaited<ReturnType<typeof startServer>>;
let managerKey: string;
const plan = generate({ seed: 7, lastDay, days: 6, users: 4 });
const keys: string[] = [];

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'sample-code.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  const { accounts } = server.services;
  const org = await accounts.createOrg('Sample');
  for (const u of plan.users)
    keys.push((await accounts.createKey(await accounts.createUser({ orgId: org.id, email: u.email, role: 'member' }))).key);
  const manager = await accounts.createUser({ orgId: org.id, email: 'boss@sample.example.com', role: 'manager' });
  managerKey = (await accounts.createKey(manager)).key;
});
afterAll(async () => {
  await server?.close();
});

const get = async (query: string) =>
  (await (await fetch(`${server.url}/api/v1/analytics/code?${query}`, { headers: { authorization: `Bearer ${managerKey}` } })).json()) as {
    data: Record<string, never>[];
  };

describe('the sample organization on the Code page', () => {
  it('writes most agent lines inside watched repositories, and most of them land', { timeout: 300_000 }, async () => {
    // The week's commit takes two writes out of three, each file with one line of the person's.
    expect(plan.events.flat().some(() => true)).toBe(true);
    await replay(plan, { server: server.url, keys, workDir: tempDir(), log, concurrency: 2 });
    await server.services.runBatch({ trigger: 'cli', log });
    const range = `startDate=${firstDay}&endDate=${lastDay}`;
    const days = (await get(range)).data as unknown as {
      edits: { lines_added: number };
      landed: { commits: number; agent_lines_added: number; lines_added: number };
    }[];
    const repos = (await get(`${range}&group_by=repo`)).data as unknown as { group_key: string; edit_lines_added: number }[];
    const written = days.reduce((n, d) => n + d.edits.lines_added, 0);
    const inRepos = repos.reduce((n, r) => n + r.edit_lines_added, 0);
    const agentLanded = days.reduce((n, d) => n + d.landed.agent_lines_added, 0);
    const landed = days.reduce((n, d) => n + d.landed.lines_added, 0);
    expect(written).toBeGreaterThan(5);
    expect(inRepos / written).toBeGreaterThan(0.9);
    expect(repos.every((r) => r.group_key.startsWith('git.example.com/sample/'))).toBe(true);
    // Landed rate and agent share in a real team's range, not 9.4%.
    expect(agentLanded / written).toBeGreaterThan(0.4);
    expect(agentLanded / written).toBeLessThanOrEqual(1);
    expect(agentLanded / landed).toBeGreaterThan(0.3);
    expect(agentLanded / landed).toBeLessThan(0.95);
    expect(days.reduce((n, d) => n + d.landed.commits, 0)).toBeGreaterThan(0);
    expect(dayCommit(plan.events.flat()).size).toBeGreaterThan(0);
  });
});
