import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withOurStatusLine } from '../../collector/install/installer.ts';
import { readStatusCache, type StatusCache, statusLine, statusLines } from '../../common/status-line.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = Date.parse('2026-03-20T10:00:00Z');
const cache = (over: Partial<StatusCache> = {}): StatusCache => ({
  fetched_at: NOW - 30_000,
  date: '2026-03-20',
  month: '2026-03',
  today_credits: 1050,
  month_credits: 12_400,
  limit: 11_800,
  share: 105.08,
  enforced: true,
  ...over,
});

describe('the status line', () => {
  it('says today, the month and the share of the budget', () => {
    expect(statusLine(cache(), NOW)).toBe('agentmeter 1,050 today · 12,400 this month · 105% of budget');
    expect(statusLine(cache({ limit: null, share: null }), NOW)).toBe('agentmeter 1,050 today · 12,400 this month');
  });

  it('gives the age of figures the collector could not refresh, and 0 today after midnight', () => {
    expect(statusLine(cache({ fetched_at: NOW - 12 * 60_000 }), NOW)).toBe(
      'agentmeter 1,050 today · 12,400 this month · 105% of budget (as of 12 min ago)',
    );
    expect(statusLine(cache({ fetched_at: NOW - 3 * 3600_000, date: '2026-03-19' }), NOW)).toBe(
      'agentmeter 0 today · 12,400 this month · 105% of budget (as of 3 h ago)',
    );
    expect(statusLine(undefined, NOW)).toMatch(/no figures yet/);
  });

  it('reads only a well-formed cache', () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    expect(readStatusCache(home)).toBeUndefined();
    writeFileSync(join(home, 'status.json'), JSON.stringify(cache()));
    expect(readStatusCache(home)).toEqual(cache());
    writeFileSync(join(home, 'status.json'), JSON.stringify({ ...cache(), month_credits: 'many' }));
    expect(readStatusCache(home)).toBeUndefined();
    writeFileSync(join(home, 'status.json'), 'not json');
    expect(readStatusCache(home)).toBeUndefined();
  });

  it('has a few lines for `agentmeter me`', () => {
    expect(statusLines(cache(), NOW, true)).toEqual([
      'today (2026-03-20 UTC): 1,050 Standard Credits',
      'this month (2026-03): 12,400 Standard Credits',
      'limit: 11,800 (105.08% used; prompts pause at 100%)',
    ]);
    expect(statusLines(cache({ limit: null, share: null, fetched_at: NOW - 600_000 }), NOW, false).slice(2)).toEqual([
      'limit: none',
      '(the server did not answer: figures as of 10 min ago)',
    ]);
  });

  it("is offered to Claude Code's settings without replacing the user's own", () => {
    expect(withOurStatusLine({ model: 'x' }, "'node' 'am.mjs' statusline")).toEqual({
      root: { model: 'x', statusLine: { type: 'command', command: "'node' 'am.mjs' statusline", padding: 0 } },
      outcome: 'added',
    });
    const theirs = { statusLine: { type: 'command', command: '~/.claude/line.sh' } };
    expect(withOurStatusLine(theirs, 'x')).toEqual({ root: theirs, outcome: 'kept-yours' });
    const ours = { statusLine: { type: 'command', command: "'node' '/home/u/.agentmeter/agentmeter.mjs' statusline" } };
    expect(withOurStatusLine(ours, 'x').outcome).toBe('already');
  });
});
