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
import { describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  claudeTranscripts,
  type DrainSpec,
  drainInSteps,
  grownText,
  lastLineTime,
  layFile,
  oracleServer,
  shiftTimestamps,
} from '../helpers/oracle.ts';

const FIRST_DAY = '2026-03-26';
const LAST_DAY = '2026-03-26';
const server = oracleServer();

/** Claude Code's transcripts as they are at each step, each reported by its Stop. */
const CLAUDE: DrainSpec = {
  agent: 'claude',
  hooksFile: (home) => join(home, '.claude', 'settings.json'),
  event: 'Stop',
  step: (home, step, steps) =>
    claudeTranscripts(home).map((file) => {
      layFile(file, step, steps);
      const time = lastLineTime(grownText(shiftTimestamps(readFileSync(file.fixture, 'utf8'), file.shiftDays ?? 0), step, steps));
      const payload = {
        session_id: file.sessionId,
        transcript_path: file.target,
        cwd: home,
        hook_event_name: 'Stop',
        permission_mode: 'default',
        stop_hook_active: false,
      };
      return { payload, time };
    }),
};

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
    const wholeHome = drainInSteps(server, 'whole', 1, CLAUDE);
    const grownHome = drainInSteps(server, 'grown', 3, CLAUDE);

    const expected = apiShape(oracleCells(grownHome));
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY]);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    expect(await apiCells(server.url(), server.accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url(), server.accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
