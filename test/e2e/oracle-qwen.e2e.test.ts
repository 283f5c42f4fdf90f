// Qwen Code, no outside oracle: two chats made to Qwen's documented format (collector/agents/qwen/fixtures/oracle,
// SOURCE.md says where we looked for real ones) through the installed hook, `collect --once`, a real
// server and the batch, once whole and once as they grew (a third, two thirds, all), and the analytics
// API compared with the totals worked out by hand in SOURCE.md on every cell: per day and model input and
// output, per day cache reads and writes. A call is dated by its own record, so both drains give the same.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleFixtures } from '../helpers/agent-fixtures.ts';
import { apiCells, apiShape, type Cells, collectOnce, fireHook, grownText, installedCommand, layFile } from '../helpers/oracle.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = oracleFixtures('qwen');
const FIRST_DAY = '2026-11-24';
const LAST_DAY = '2026-11-25';
/** SOURCE.md's hand-worked cells. */
const EXPECTED: Cells = {
  '2026-11-24': { 'qwen3.6-plus': { input: 35961, output: 785, cacheRead: 16384, cacheWrite: 0 } },
  '2026-11-25': {
    'qwen3-coder-plus': { input: 3176, output: 555, cacheRead: 38224, cacheWrite: 0 },
    'qwen3.6-plus': { input: 748, output: 300, cacheRead: 17152, cacheWrite: 0 },
  },
};
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
let server: ServerProcess;
const accounts: Record<'whole' | 'grown', { member: string; manager: string }> = {} as never;

beforeAll(async () => {
  for (const name of ['whole', 'grown'] as const) {
    const { key: member, org } = await seedAccount(db, 'member', `${name}@example.com`);
    const { key: manager } = await seedAccount(db, 'manager', `${name}-lead@example.com`, org);
    accounts[name] = { member, manager };
  }
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

function drain(name: 'whole' | 'grown', steps: number): void {
  const home = join(dir, name);
  const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
  const installed = runCli(['hooks', 'install', '--agent', 'qwen'], env);
  expect(installed.status, installed.stderr).toBe(0);
  const stop = installedCommand(join(home, '.qwen', 'settings.json'), 'Stop');
  const chats = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => ({
      fixture: join(FIXTURES, f),
      target: join(home, '.qwen', 'projects', '-home-dev-shop', 'chats', f),
      sessionId: f.replace(/\.jsonl$/, ''),
    }));
  for (let step = 1; step <= steps; step++) {
    for (const chat of chats) {
      layFile(chat, step, steps);
      const lines = grownText(readFileSync(chat.fixture, 'utf8'), step, steps).trim().split('\n');
      const time = (JSON.parse(lines.at(-1)!) as { timestamp: string }).timestamp;
      fireHook(
        stop,
        {
          session_id: chat.sessionId,
          transcript_path: chat.target,
          cwd: home,
          hook_event_name: 'Stop',
          timestamp: time,
          stop_hook_active: false,
          last_assistant_message: '',
          background_tasks: [],
          crons: [],
        },
        home,
        time,
      );
    }
    collectOnce(server.url, accounts[name].member, env);
  }
  expect(runCli(['collect', 'status'], env).stdout).toMatch(/quarantined: 0\n/);
  const batch = runCli(['batch', '--server', server.url, '--key', accounts[name].manager]);
  expect(batch.status, batch.stderr).toBe(0);
}

describe('Qwen Code tokens equal the hand-worked totals', () => {
  it('in one drain and in three drains as the chats grow, on every day and model', { timeout: 300_000 }, async () => {
    drain('whole', 1);
    drain('grown', 3);
    const expected = apiShape(EXPECTED);
    expect(await apiCells(server.url, accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url, accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
