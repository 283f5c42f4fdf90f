// Claude Code against an outside oracle: a real transcript (collector/agents/claude/fixtures/oracle, SOURCE.md: a
// session resumed into a second one, 42 assistant lines streamed over several lines each) through the
// installed hook, `collect --once`, a real server and the batch, once whole and once as it grew (a third,
// two thirds, all), and the analytics API compared with ccusage's daily report of the same file on every
// cell: per day and model input and output, per day cache reads and writes. The transcript is from August
// 2025, before the first day the analytics answer for: both sides read a copy with every timestamp moved
// forward by whole days (CLAUDE_SHIFT_DAYS), which changes no count.
//
// Mapping, ccusage → agentmeter (docs/metrics.md §1): the same four counts under the same names (input,
// output, cache creation = cache write, cache read), one model call per message id and request id.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  claudeTranscripts,
  collectOnce,
  fireHook,
  grownText,
  installedCommand,
  layFile,
  shiftTimestamps,
} from '../helpers/oracle.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIRST_DAY = '2026-03-26';
const LAST_DAY = '2026-03-26';
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

/** Installs the hook into a fresh home and drains the transcripts in `steps` steps; returns the home. */
function drain(name: 'whole' | 'grown', steps: number): string {
  const home = join(dir, name);
  const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
  const installed = runCli(['hooks', 'install', '--agent', 'claude'], env);
  expect(installed.status, installed.stderr).toBe(0);
  const stop = installedCommand(join(home, '.claude', 'settings.json'), 'Stop');
  for (let step = 1; step <= steps; step++) {
    for (const file of claudeTranscripts(home)) {
      layFile(file, step, steps);
      const lines = grownText(shiftTimestamps(readFileSync(file.fixture, 'utf8'), file.shiftDays ?? 0), step, steps)
        .trim()
        .split('\n');
      const time = (JSON.parse(lines.at(-1)!) as { timestamp: string }).timestamp;
      fireHook(
        stop,
        {
          session_id: file.sessionId,
          transcript_path: file.target,
          cwd: home,
          hook_event_name: 'Stop',
          permission_mode: 'default',
          stop_hook_active: false,
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
  return home;
}

function oracleCells(home: string): Cells {
  const { daily } = ccusageDaily('claude', { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') });
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

describe('Claude Code tokens equal ccusage on a real transcript', () => {
  it('in one drain and in three drains as the transcript grows, on every day and model', { timeout: 300_000 }, async () => {
    const wholeHome = drain('whole', 1);
    const grownHome = drain('grown', 3);

    const expected = apiShape(oracleCells(grownHome));
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY]);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    expect(await apiCells(server.url, accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url, accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
