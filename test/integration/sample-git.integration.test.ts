// The sample organization's git activity (sample-data/git-activity.ts) through a real server: real git, the
// real hook, the real collector. Its figures are the hand-worked ones below.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { featureFile, replayGitActivity } from '../../sample-data/git-activity.ts';
import { ShippingSlots } from '../../sample-data/replay.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const weekAgo = new Date(Date.now() - 8 * 86_400_000).toISOString().slice(0, 10);
let server: Awaited<ReturnType<typeof startServer>>;
let managerKey: string;
const users: { email: string; key: string }[] = [];

beforeAll(async () => {
  const db = await openDb(join(tempDir(), 'sample-git.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0 });
  const { accounts } = server.services;
  const org = await accounts.createOrg('Sample');
  for (const email of ['ana@sample.example.com', 'bo@sample.example.com']) {
    const user = await accounts.createUser({ orgId: org.id, email, role: 'member' });
    users.push({ email, key: (await accounts.createKey(user)).key });
  }
  const manager = await accounts.createUser({ orgId: org.id, email: 'boss@sample.example.com', role: 'manager' });
  managerKey = (await accounts.createKey(manager)).key;
});
afterAll(async () => {
  await server?.close();
});

describe('sample git activity', () => {
  it('lands squash-merged commits whose agent lines are worked out by hand', { timeout: 180_000 }, async () => {
    expect(featureFile(3, 4)).toBe(
      'export function feature3(input: number[]): number {\n  const step0 = input.length * 3;\n  const step1 = input.length * 4;\n}\n',
    );
    // The load's shipment slots, shared with the replay that runs beside it: each user's one shipment takes one.
    let shipments = 0;
    const shipping = new (class extends ShippingSlots {
      override run<T>(ship: () => Promise<T>): Promise<T> {
        shipments++;
        return super.run(ship);
      }
    })();
    const result = await replayGitActivity({ server: server.url, users, workDir: tempDir(), lastDay: yesterday, log, shipping });
    expect(result.commits).toBe(8);
    expect(shipments).toBe(2);
    await server.services.runBatch({ trigger: 'cli', log });
    const res = await fetch(`${server.url}/api/v1/analytics/code?startDate=${weekAgo}&endDate=${yesterday}`, {
      headers: { authorization: `Bearer ${managerKey}` },
    });
    const body = (await res.json()) as {
      data: { edits: { lines_added: number }; landed: { commits: number; lines_added: number; agent_lines_added: number } }[];
    };
    expect(res.status).toBe(200);
    const sum = (f: (d: (typeof body.data)[number]) => number) => body.data.reduce((a, d) => a + f(d), 0);
    // Files of n lines, n = 8 + ((5u + 3i) % 9): ana 8, 11, 14, 8; bo 13, 16, 10, 13. Each commit adds n + 1
    // lines (the person's comment), of which n - 1 are the agent's (the person renamed the function line).
    expect(sum((d) => d.edits.lines_added)).toBe(41 + 52);
    expect(sum((d) => d.landed.commits)).toBe(8);
    expect(sum((d) => d.landed.lines_added)).toBe(45 + 56);
    expect(sum((d) => d.landed.agent_lines_added)).toBe(37 + 48);
    // By repository: each user's clone has a hosted name (its origin folder is never shown): ana's app-1
    // has her 41 edit lines, 45 landed, 37 the agent's; bo's app-2 52, 56 and 48.
    const grouped = (await (
      await fetch(`${server.url}/api/v1/analytics/code?startDate=${weekAgo}&endDate=${yesterday}&group_by=repo`, {
        headers: { authorization: `Bearer ${managerKey}` },
      })
    ).json()) as { data: { group_key: string; edit_lines_added: number; landed_lines_added: number; landed_agent_lines: number }[] };
    const byRepo: Record<string, number[]> = {};
    for (const r of grouped.data) {
      const t = (byRepo[r.group_key] ??= [0, 0, 0]);
      t[0]! += r.edit_lines_added;
      t[1]! += r.landed_lines_added;
      t[2]! += r.landed_agent_lines;
    }
    expect(byRepo).toEqual({ 'git.example.com/sample/app-1': [41, 45, 37], 'git.example.com/sample/app-2': [52, 56, 48] });
  });
});
