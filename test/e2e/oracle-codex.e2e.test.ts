// Codex CLI against an outside oracle: six real rollouts (collector/agents/codex/fixtures/oracle, SOURCE.md) through the
// installed hook, `collect --once`, a real server and the batch, once whole and once as they grew (a third,
// two thirds, all: a laptop's collector drains while a session runs), and the analytics API compared with
// ccusage's daily report of the same files on every cell: per day and model input and output, per day
// cache reads and writes (the API has no cache figures per model; the files hold one model).
//
// Mapping, ccusage → agentmeter (docs/metrics.md §1): ccusage's inputTokens is Codex's input less the
// cached part, as ours; outputTokens includes the reasoning tokens (reasoningOutputTokens is a part of it,
// not an addition), as our output does; cacheReadTokens is Codex's cached input; Codex reports no cache
// writes (0 on both sides).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  codexRollouts,
  collectOnce,
  fireHook,
  grownText,
  installedCommand,
  layFile,
} from '../helpers/oracle.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIRST_DAY = '2026-02-23';
const LAST_DAY = '2026-02-24';
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
let server: ServerProcess;

interface Account {
  member: string;
  manager: string;
}
const accounts: Record<'whole' | 'grown', Account> = {} as never;

beforeAll(async () => {
  // One organization per way of draining: the same record ids, stored apart.
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

/** Installs the hook into a fresh home and drains the rollouts in `steps` steps; returns CODEX_HOME. */
function drain(name: 'whole' | 'grown', steps: number): string {
  const home = join(dir, name);
  const codexHome = join(home, '.codex');
  const env = { HOME: home, AGENTMETER_HOME: join(home, 'am'), CODEX_HOME: codexHome };
  const installed = runCli(['hooks', 'install', '--agent', 'codex'], env);
  expect(installed.status, installed.stderr).toBe(0);
  const stop = installedCommand(join(codexHome, 'hooks.json'), 'Stop');
  for (let step = 1; step <= steps; step++) {
    for (const file of codexRollouts(codexHome)) {
      layFile(file, step, steps);
      const lines = grownText(readFileSync(file.fixture, 'utf8'), step, steps).trim().split('\n');
      const last = JSON.parse(lines.at(-1)!) as { timestamp: string };
      // A turn ended: Codex's Stop names the session and its rollout; the collector reads what is new.
      fireHook(
        stop,
        {
          session_id: file.sessionId,
          turn_id: `${file.sessionId}-turn-${step}`,
          transcript_path: file.target,
          cwd: home,
          hook_event_name: 'Stop',
          model: 'gpt-5.3-codex',
          permission_mode: 'default',
          stop_hook_active: false,
          last_assistant_message: null,
        },
        home,
        last.timestamp,
      );
    }
    collectOnce(server.url, accounts[name].member, env);
  }
  const status = runCli(['collect', 'status'], env);
  expect(status.stdout).toMatch(/quarantined: 0\n/);
  const batch = runCli(['batch', '--server', server.url, '--key', accounts[name].manager]);
  expect(batch.status, batch.stderr).toBe(0);
  return codexHome;
}

/** ccusage's report as cells, mapped as the file header says. */
function oracleCells(codexHome: string): Cells {
  const { daily } = ccusageDaily('codex', { HOME: join(codexHome, '..'), CODEX_HOME: codexHome });
  const cells: Cells = {};
  for (const day of daily.daily) {
    for (const m of ccusageModels(day)) {
      (cells[day.date] ??= {})[m.model] = {
        input: m.inputTokens,
        output: m.outputTokens,
        cacheRead: m.cacheReadTokens,
        cacheWrite: m.cacheCreationTokens,
      };
    }
  }
  return cells;
}

async function messages(manager: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/analytics/activity?startDate=${FIRST_DAY}&endDate=${LAST_DAY}`, {
    headers: { authorization: `Bearer ${manager}` },
  });
  const json = (await res.json()) as { data: { messages: number }[] };
  return json.data.reduce((sum, day) => sum + day.messages, 0);
}

describe('Codex CLI tokens equal ccusage on real rollouts', () => {
  it('in one drain and in three drains as the rollouts grow, on every day and model', { timeout: 300_000 }, async () => {
    const wholeHome = drain('whole', 1);
    const grownHome = drain('grown', 3);

    const expected = apiShape(oracleCells(grownHome));
    // The oracle itself: the days and the model of these files, and the same report on both homes.
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY, LAST_DAY]);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    const whole = await apiCells(server.url, accounts.whole.manager, FIRST_DAY, LAST_DAY);
    expect(whole).toEqual(expected);
    const grown = await apiCells(server.url, accounts.grown.manager, FIRST_DAY, LAST_DAY);
    expect(grown).toEqual(expected);
    // Assistant messages are named stably across drains: as many when drained in three steps as in one.
    expect(await messages(accounts.grown.manager)).toBe(await messages(accounts.whole.manager));
  });
});
