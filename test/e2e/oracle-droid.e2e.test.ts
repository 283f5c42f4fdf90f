// Droid, no outside oracle: two sessions made to Droid's format (collector/agents/droid/fixtures/oracle, SOURCE.md
// says where we looked for real ones) through the installed hook, `collect --once`, a real server and the
// batch, once at their end and once as they grew (the session settings file's cumulative tokenUsage read
// at three turns, the transcript growing), and the analytics API compared with the totals worked out by
// hand in SOURCE.md on every cell: per day and model input and output, per day cache reads and writes.
// Droid's counters are cumulative: each reading's growth is dated by the hook event that caused it, so
// three drains spread a session over the days it ran, one drain puts it all on the day of its last turn.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oracleFixtures } from '../helpers/agent-fixtures.ts';
import { apiCells, apiShape, type Cells, type DrainSpec, drainInSteps, layFile, oracleServer } from '../helpers/oracle.ts';

const FIXTURES = oracleFixtures('droid');
const FIRST_DAY = '2026-11-24';
const LAST_DAY = '2026-11-25';
const SONNET = 'claude-sonnet-4-5-20250929';
const CODEX = 'gpt-5.1-codex';
/** When each session's three turns ended (the hook's time), as SOURCE.md lists them. */
const TURNS: Record<string, string[]> = {
  'a3c1e6f0-5b7d-4e2a-9c8b-1d2e3f4a5b6c': ['2026-11-24T22:10:00.000Z', '2026-11-24T23:40:00.000Z', '2026-11-25T00:20:00.000Z'],
  'e8f7d6c5-4b3a-4291-8f7e-6d5c4b3a2918': ['2026-11-25T09:00:00.000Z', '2026-11-25T09:30:00.000Z', '2026-11-25T10:15:00.000Z'],
};
/** SOURCE.md's hand-worked cells, read at every turn (three drains) and at the last one only (one drain). */
const GROWN: Cells = {
  '2026-11-24': { [SONNET]: { input: 30500, output: 4200, cacheRead: 118000, cacheWrite: 5200 } },
  '2026-11-25': {
    [SONNET]: { input: 10500, output: 1700, cacheRead: 72500, cacheWrite: 900 },
    [CODEX]: { input: 15500, output: 2300, cacheRead: 61000, cacheWrite: 0 },
  },
};
const WHOLE: Cells = {
  '2026-11-25': {
    [SONNET]: { input: 41000, output: 5900, cacheRead: 190500, cacheWrite: 6100 },
    [CODEX]: { input: 15500, output: 2300, cacheRead: 61000, cacheWrite: 0 },
  },
};
const server = oracleServer();

/** Droid's sessions at each step: one drain reads them once, at their last turn (the third of three). */
const DROID: DrainSpec = {
  agent: 'droid',
  hooksFile: (home) => join(home, '.factory', 'hooks.json'),
  event: 'Stop',
  step(home, step, steps) {
    const sessions = join(home, '.factory', 'sessions', '-home-dev-shop');
    mkdirSync(sessions, { recursive: true });
    const turn = step + (3 - steps);
    return readdirSync(FIXTURES)
      .filter((f) => f in TURNS)
      .map((id) => {
        copyFileSync(join(FIXTURES, id, `step-${turn}.settings.json`), join(sessions, `${id}.settings.json`));
        const transcript = { fixture: join(FIXTURES, id, 'transcript.jsonl'), target: join(sessions, `${id}.jsonl`) };
        layFile(transcript, step, steps);
        const payload = {
          session_id: id,
          transcript_path: transcript.target,
          cwd: home,
          hook_event_name: 'Stop',
          permission_mode: 'auto-medium',
          stop_hook_active: false,
        };
        return { payload, time: TURNS[id]![turn - 1]! };
      });
  },
};

describe('Droid tokens equal the hand-worked totals', () => {
  it('in one drain and in three drains as the sessions grow, on every day and model', { timeout: 300_000 }, async () => {
    drainInSteps(server, 'whole', 1, DROID);
    drainInSteps(server, 'grown', 3, DROID);
    expect(await apiCells(server.url(), server.accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(apiShape(WHOLE));
    expect(await apiCells(server.url(), server.accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(apiShape(GROWN));
    // The same tokens either way: the drains only date them differently.
    const sum = (cells: Cells) =>
      Object.values(apiShape(cells).byDay).reduce((a, d) => a + d.input + d.output + d.cacheRead + d.cacheWrite, 0);
    expect(sum(GROWN)).toBe(sum(WHOLE));
  });
});
