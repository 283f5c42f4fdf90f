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
import { describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  type DrainSpec,
  drainInSteps,
  geminiChats,
  grownText,
  layFile,
  oracleServer,
} from '../helpers/oracle.ts';

const FIRST_DAY = '2026-03-27';
const LAST_DAY = '2026-04-23';
/** Gemini's `thoughts` per day and model, summed by hand from the chats (SOURCE.md). */
const THOUGHTS: Record<string, Record<string, number>> = {
  '2026-03-27': { 'gemini-3.1-pro-preview-customtools': 11616 },
  '2026-04-23': { 'gemini-3-flash-preview': 1689, 'gemini-3.1-pro-preview': 452 },
};
const server = oracleServer();

/** The latest ISO timestamp in a chat's text: when the turn the hook reports ended. */
const latest = (text: string) =>
  [...text.matchAll(/"(\d{4}-\d{2}-\d{2}T[\d:.]+Z)"/g)]
    .map((m) => m[1]!)
    .sort()
    .at(-1)!;

/** Gemini's chats at each step, each turn's end reported by its AfterAgent (naming the session and its chat file). */
const GEMINI: DrainSpec = {
  agent: 'gemini',
  hooksFile: (home) => join(home, '.gemini', 'settings.json'),
  event: 'AfterAgent',
  step: (home, step, steps) =>
    geminiChats(home).map((chat) => {
      layFile(chat, step, steps);
      const time = latest(grownText(readFileSync(chat.fixture, 'utf8'), step, steps));
      const payload = {
        session_id: chat.sessionId,
        transcript_path: chat.target,
        cwd: home,
        hook_event_name: 'AfterAgent',
        timestamp: time,
        prompt: '',
        prompt_response: '',
        stop_hook_active: false,
      };
      return { payload, time };
    }),
};

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
    const wholeHome = drainInSteps(server, 'whole', 1, GEMINI);
    const grownHome = drainInSteps(server, 'grown', 3, GEMINI);

    const expected = apiShape(oracleCells(grownHome));
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY, LAST_DAY]);
    expect(Object.keys(expected.byModel[LAST_DAY]!).sort()).toEqual(['gemini-3-flash-preview', 'gemini-3.1-pro-preview']);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    expect(await apiCells(server.url(), server.accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url(), server.accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
