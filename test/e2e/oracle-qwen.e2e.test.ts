// Qwen Code, no outside oracle: two chats made to Qwen's documented format (collector/agents/qwen/fixtures/oracle,
// SOURCE.md says where we looked for real ones) through the installed hook, `collect --once`, a real
// server and the batch, once whole and once as they grew (a third, two thirds, all), and the analytics
// API compared with the totals worked out by hand in SOURCE.md on every cell: per day and model input and
// output, per day cache reads and writes. A call is dated by its own record, so both drains give the same.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oracleFixtures } from '../helpers/agent-fixtures.ts';
import {
  apiCells,
  apiShape,
  type Cells,
  type DrainSpec,
  drainInSteps,
  grownText,
  lastLineTime,
  layFile,
  oracleServer,
} from '../helpers/oracle.ts';

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
const server = oracleServer();

/** Qwen's chats at each step, each turn's end reported by its Stop. */
const QWEN: DrainSpec = {
  agent: 'qwen',
  hooksFile: (home) => join(home, '.qwen', 'settings.json'),
  event: 'Stop',
  step: (home, step, steps) =>
    readdirSync(FIXTURES)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => {
        const chat = { fixture: join(FIXTURES, f), target: join(home, '.qwen', 'projects', '-home-dev-shop', 'chats', f) };
        layFile(chat, step, steps);
        const time = lastLineTime(grownText(readFileSync(chat.fixture, 'utf8'), step, steps));
        const payload = {
          session_id: f.replace(/\.jsonl$/, ''),
          transcript_path: chat.target,
          cwd: home,
          hook_event_name: 'Stop',
          timestamp: time,
          stop_hook_active: false,
          last_assistant_message: '',
          background_tasks: [],
          crons: [],
        };
        return { payload, time };
      }),
};

describe('Qwen Code tokens equal the hand-worked totals', () => {
  it('in one drain and in three drains as the chats grow, on every day and model', { timeout: 300_000 }, async () => {
    drainInSteps(server, 'whole', 1, QWEN);
    drainInSteps(server, 'grown', 3, QWEN);
    const expected = apiShape(EXPECTED);
    expect(await apiCells(server.url(), server.accounts.whole.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
    expect(await apiCells(server.url(), server.accounts.grown.manager, FIRST_DAY, LAST_DAY)).toEqual(expected);
  });
});
