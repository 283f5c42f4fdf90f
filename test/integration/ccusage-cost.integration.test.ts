// Dollars against ccusage (docs/metrics.md §8): the Claude Code transcripts of collector/agents/claude/fixtures
// read by the collector and priced by pipeline/cost.ts, and ccusage 20 (`claude daily --json --offline`,
// its bundled prices) on the same files. Same tokens cell by cell; the dollars agree to the cent per day
// and model (the hand-worked figure is in the fixture's SOURCE.md). ccusage reads the transcript as Claude
// Code writes it, without spaces after the JSON separators: the test lays it out so, the same data. Where
// ccusage's native binary cannot run, its recorded report (ccusage-daily.json beside the fixture) stands in.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeMessagesFromLines, claudeRecords } from '../../collector/agents/claude/usage.ts';
import type { WireUsage } from '../../common/wire.ts';
import { recordCost } from '../../pipeline/cost.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { runCcusage } from '../helpers/oracle.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = agentFixtures('claude');
const SESSION = '7d3c2a1e-5b4f-4c8d-9e0a-1b2c3d4e5f60';
const TRANSCRIPT = join(FIXTURES, 'projects', '-home-dev-shop', `${SESSION}.jsonl`);

interface CcusageDay {
  date: string;
  modelBreakdowns: {
    modelName: string;
    inputTokens: number;
    outputTokens: number;
    cacheCreationTokens: number;
    cacheReadTokens: number;
    cost: number;
  }[];
}

function ccusage(): CcusageDay[] {
  const home = tempDir();
  const projects = join(home, 'projects', '-home-dev-shop');
  mkdirSync(projects, { recursive: true });
  const compact = readFileSync(TRANSCRIPT, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.stringify(JSON.parse(line)))
    .join('\n');
  writeFileSync(join(projects, `${SESSION}.jsonl`), `${compact}\n`);
  const live = runCcusage('claude', { HOME: home, CLAUDE_CONFIG_DIR: home });
  const report = live ?? JSON.parse(readFileSync(join(FIXTURES, 'ccusage-daily.json'), 'utf8'));
  return (report as unknown as { daily: CcusageDay[] }).daily;
}

/** Ours: per "day|model", the tokens and the dollars of the collector's usage records. */
function ours(): Map<string, { input: number; output: number; cacheRead: number; cacheWrite: number; usd: number }> {
  const { messages } = claudeMessagesFromLines(readFileSync(TRANSCRIPT, 'utf8').split('\n').filter(Boolean));
  const cells = new Map<string, { input: number; output: number; cacheRead: number; cacheWrite: number; usd: number }>();
  for (const r of claudeRecords(SESSION, messages).filter((x): x is WireUsage => x.kind === 'usage')) {
    const cost = recordCost(
      r.model,
      r.ts,
      {
        input: r.input_tokens,
        output: r.output_tokens,
        cacheRead: r.cache_read_tokens,
        cacheWrite: r.cache_write_tokens,
        cacheWrite1h: r.cache_write_1h_tokens ?? 0,
      },
      [],
    );
    if (!cost) throw new Error(`no list price for ${r.model}`);
    const key = `${new Date(r.ts).toISOString().slice(0, 10)}|${r.model}`;
    const cell = cells.get(key) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
    cell.input += r.input_tokens;
    cell.output += r.output_tokens;
    cell.cacheRead += r.cache_read_tokens;
    cell.cacheWrite += r.cache_write_tokens;
    cell.usd += cost.usd;
    cells.set(key, cell);
  }
  return cells;
}

const cents = (usd: number) => Math.round(usd * 100);

describe('dollars against ccusage on the same Claude Code transcripts', () => {
  it('the same tokens and, to the cent, the same dollars per day and model', () => {
    const theirs = ccusage();
    const mine = ours();
    const compared: string[] = [];
    for (const day of theirs)
      for (const m of day.modelBreakdowns) {
        const key = `${day.date}|${m.modelName}`;
        const cell = mine.get(key);
        expect(cell, key).toBeDefined();
        expect([cell!.input, cell!.output, cell!.cacheRead, cell!.cacheWrite], key).toEqual([
          m.inputTokens,
          m.outputTokens,
          m.cacheReadTokens,
          m.cacheCreationTokens,
        ]);
        expect(cents(cell!.usd), `${key}: agentmeter $${cell!.usd}, ccusage $${m.cost}`).toBe(cents(m.cost));
        compared.push(key);
      }
    // Every cell of ours is one ccusage has too.
    expect(compared.sort()).toEqual([...mine.keys()].sort());
    expect(compared).toHaveLength(5);
    // The hand-worked cell (SOURCE.md): opus 4.1 on 2026-11-20, $0.502965.
    expect(mine.get('2026-11-20|claude-opus-4-1-20250805')!.usd).toBeCloseTo(0.502965, 9);
  });
});
