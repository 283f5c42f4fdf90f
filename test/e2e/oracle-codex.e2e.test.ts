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
import { describe, expect, it } from 'vitest';
import {
  apiCells,
  apiShape,
  type Cells,
  ccusageDaily,
  ccusageModels,
  codexRollouts,
  type DrainSpec,
  drainInSteps,
  grownText,
  lastLineTime,
  layFile,
  oracleServer,
} from '../helpers/oracle.ts';

const FIRST_DAY = '2026-02-23';
const LAST_DAY = '2026-02-24';
const server = oracleServer();

/** Codex's rollouts at each step, each turn's end reported by its Stop (naming the session and its rollout). */
const CODEX: DrainSpec = {
  agent: 'codex',
  hooksFile: (home) => join(home, '.codex', 'hooks.json'),
  event: 'Stop',
  env: (home) => ({ CODEX_HOME: join(home, '.codex') }),
  step: (home, step, steps) =>
    codexRollouts(join(home, '.codex')).map((file) => {
      layFile(file, step, steps);
      const payload = {
        session_id: file.sessionId,
        turn_id: `${file.sessionId}-turn-${step}`,
        transcript_path: file.target,
        cwd: home,
        hook_event_name: 'Stop',
        model: 'gpt-5.3-codex',
        permission_mode: 'default',
        stop_hook_active: false,
        last_assistant_message: null,
      };
      return { payload, time: lastLineTime(grownText(readFileSync(file.fixture, 'utf8'), step, steps)) };
    }),
};

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
  const res = await fetch(`${server.url()}/api/v1/analytics/activity?startDate=${FIRST_DAY}&endDate=${LAST_DAY}`, {
    headers: { authorization: `Bearer ${manager}` },
  });
  const json = (await res.json()) as { data: { messages: number }[] };
  return json.data.reduce((sum, day) => sum + day.messages, 0);
}

describe('Codex CLI tokens equal ccusage on real rollouts', () => {
  it('in one drain and in three drains as the rollouts grow, on every day and model', { timeout: 300_000 }, async () => {
    const wholeHome = join(drainInSteps(server, 'whole', 1, CODEX), '.codex');
    const grownHome = join(drainInSteps(server, 'grown', 3, CODEX), '.codex');

    const expected = apiShape(oracleCells(grownHome));
    // The oracle itself: the days and the model of these files, and the same report on both homes.
    expect(Object.keys(expected.byDay)).toEqual([FIRST_DAY, LAST_DAY]);
    expect(oracleCells(wholeHome)).toEqual(oracleCells(grownHome));

    const whole = await apiCells(server.url(), server.accounts.whole.manager, FIRST_DAY, LAST_DAY);
    expect(whole).toEqual(expected);
    const grown = await apiCells(server.url(), server.accounts.grown.manager, FIRST_DAY, LAST_DAY);
    expect(grown).toEqual(expected);
    // Assistant messages are named stably across drains: as many when drained in three steps as in one.
    expect(await messages(server.accounts.grown.manager)).toBe(await messages(server.accounts.whole.manager));
  });
});
