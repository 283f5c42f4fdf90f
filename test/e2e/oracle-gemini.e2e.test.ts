// Gemini CLI against an outside oracle: two real chats (collector/agents/gemini/fixtures/oracle, SOURCE.md: a legacy
// whole-file JSON chat and a JSONL chat, three models over two days) through the installed hook,
// `collect --once`, a real server and the batch, once whole and once as they grew (a third, two thirds,
// all), and the analytics API compared with ccusage's daily report of the same files on every cell: per
// day and model input and output, per day cache reads and writes (the API has no cache figures per model).
//
// Mapping, ccusage → agentmeter (docs/metrics.md §1): input is Gemini's prompt less its cached part on
// both sides; cache reads are Gemini's `cached`; no cache writes on either side. Output differs on purpose:
// we count Gemini's `thoughts` as output (it is billed as output), ccusage keeps them apart and shows them
// per day only (its totalTokens less input, output and cache). So our output = ccusage outputTokens +
// thoughts, with the thoughts per day and model hand-worked in SOURCE.md and their sum per day checked
// against ccusage's own remainder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  collectOnce,
  fireHook,
  geminiChats,
  grownText,
  installedCommand,
  layFile,
} from '../helpers/oracle.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIRST_DAY = '2026-03-27';
const LAST_DAY = '2026-04-23';
/** Gemini's `thoughts` per day and model, summed by hand from the chats (SOURCE.md). */
const THOUGHTS: Record<string, Record<string, number>> = {
  '2026-03-27': { 'gemini-3.1-pro-preview-customtools': 11616 },
  '2026-04-23': { 'gemini-3-flash-preview': 1689, 'gemini-3.1-pro-preview': 452 },
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

/** The latest ISO timestamp in a chat's text: when the turn the hook reports ended. */
const latest = (text: string) =>
  [...text.matchAll(/"(\d{4}-\d{2}-\d{2}T[\d:.]+Z)"/g)]
    .map((m) => m[1]!)
    .sort()
    .at(-1)!;

/** Installs the hook into a fresh home and drains the chats in `steps` steps; returns the home. */
function drain(name: 'whole' | 'grown', steps: number): string {
  const home = join(dir, name);
  const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
  const installed = runCli(['hooks', 'install', '--agent', 'gemini'], env);
  expect(installed.status, installed.stderr).toBe(0);
  const afterAgent = installedCommand(join(home, '.gemini', 'settings.json'), 'AfterAgent');
  for (let step = 1; step <= steps; step++) {
    for (const chat of geminiChats(home)) {
      layFile(chat, step, steps);
      const time = latest(grownText(readFileSync(chat.fixture, 'utf8'), step, steps));
      // A turn ended: Gemini's AfterAgent names the session and its chat file.
      fireHook(
        afterAgent,
        {
          session_id: chat.sessionId,
          transcript_path: chat.target,
          cwd: home,
          hook_event_name: 'AfterAgent',
          timestamp: time,
          prompt: '',
          prompt_response: '',
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

/** ccusage's report as cells, mapped as the file header says. */
function oracleCells(home: string): Cells {
  const { daily } = ccusageDaily('gemini', { HOME: home, GEMINI_DATA_DIR: join(home, '.gemini', 'tmp') });
  const cells: Cells = {};
  for (const day of daily.daily) {
    const thoughts = THOUGHTS[day.date] ?? {};
    // ccusage's thoughts of the day: what its total holds beyond the four counts.
    const remainder = day.totalTokens - day.inputTokens - day.outputTokens - day.cacheReadTokens - day.cacheCreationTokens;
    expect(
      Object.values(thoughts).reduce((a, b) => a + b, 0),
      `thoughts on ${day.date}`,
    ).toBe(remainder);
    for (const m of ccusageModels(day)) {
      (cells[day.date] ??= {})[m.model] = {
        input: m.inputTokens,
        output: m.outputTokens + (thoughts[m.model] ?? 0),
        cacheRead: m.cacheReadTokens,
        cacheWrite: m.cacheCreationTokens,
      };
    }
  }
  return cells;
}

describe('Gemini CLI tokens equal ccusage on real chats', () => {
  it('in one drain and in three drains as the chats grow, on every day and model', { timeout: 300_000 }, async () => {
    const wholeHome = drain('whole', 1);
    const grownHome = drain('grown', 3);

    const expected = apiShape(oracleCells(grownHome));
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY, LAST_DAY]);
    expect(Object.keys(expected.byModel[LAST_DAY]!).sort()).toEqual(['gemini-3-flash-preview', 'gemini-3.1-pro-preview']);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    expect(await apiCells(server.url, accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url, accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
