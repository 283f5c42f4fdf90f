// Each agent's reading progress survives the collector's commit (issue #29): a Codex rollout drained in
// three steps while it grows gives the records one drain gives (same totals, same message ids), and every
// agent of the table keeps its piece of the state across save, load and commit. The collector runs
// in-process against a server that records every record it is sent.

import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_USAGE } from '../../collector/agents/claude/usage.ts';
import { CODEX_USAGE } from '../../collector/agents/codex/usage.ts';
import { DROID_USAGE } from '../../collector/agents/droid/usage.ts';
import { GEMINI_USAGE } from '../../collector/agents/gemini/usage.ts';
import { ADAPTERS } from '../../collector/agents/index.ts';
import { QWEN_USAGE } from '../../collector/agents/qwen/usage.ts';
import { pieceOf } from '../../collector/agents/types.ts';
import { Collector } from '../../collector/daemon.ts';
import { committedState, emptyState, loadState, saveState, statePath } from '../../collector/state.ts';
import { AGENTS } from '../../common/agents.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-agent-state', level: 'silent' });
const S1 = '019aa1b2-7c3e-7d41-9b5e-3f2a6c8d9e01';
const R1 = `rollout-2026-11-20T10-00-00-${S1}.jsonl`;

let servers: RecordingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** A server that acknowledges every batch and keeps every record sent, in order. */
async function recordingServer(): Promise<RecordingServer> {
  const server = await startRecordingServer();
  servers.push(server);
  return server;
}

/**
 * The interactive fixture rollout (two calls of gpt-5.5, one of gpt-5.4-mini, two assistant messages, one
 * without an id), then three more turns as Codex writes them: a turn_context, a token_count with the new
 * cumulative total, an assistant message without an id. Each later turn adds input 3000 (cached 2000),
 * output 100 (reasoning 50).
 */
function growingRollout(home: string): string[] {
  const fixture = readFileSync(join(agentFixtures('codex'), R1), 'utf8').replaceAll('/home/dev', home);
  const lines = fixture.trim().split('\n');
  let total = { input: 35000, cached: 28000, output: 1700, reasoning: 500 };
  for (let turn = 1; turn <= 3; turn++) {
    const at = (s: number) => `2026-11-20T10:1${turn}:${String(s).padStart(2, '0')}.000Z`;
    total = { input: total.input + 3000, cached: total.cached + 2000, output: total.output + 100, reasoning: total.reasoning + 50 };
    const usage = {
      input_tokens: total.input,
      cached_input_tokens: total.cached,
      output_tokens: total.output,
      reasoning_output_tokens: total.reasoning,
      total_tokens: total.input + total.output,
    };
    lines.push(
      JSON.stringify({
        timestamp: at(0),
        type: 'turn_context',
        payload: { cwd: join(home, 'src/shop'), model: 'gpt-5.5', effort: 'medium' },
      }),
      JSON.stringify({
        timestamp: at(20),
        type: 'event_msg',
        payload: { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 258400 } },
      }),
      JSON.stringify({
        timestamp: at(21),
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Turn ${turn} done.` }] },
      }),
    );
  }
  return lines;
}

/** Drains the rollout as a collector would while Codex writes it: one hook event and one drain per part. */
async function drainInParts(parts: number[]): Promise<WireRecord[]> {
  const dir = tempDir();
  const home = join(dir, 'home');
  const agentmeterHome = join(dir, 'am');
  const sessions = join(home, '.codex', 'sessions', '2026', '11', '20');
  mkdirSync(sessions, { recursive: true });
  const rollout = join(sessions, R1);
  const lines = growingRollout(home);
  writeFileSync(rollout, '');
  const server = await recordingServer();
  let from = 0;
  for (const [i, to] of [...parts, lines.length].entries()) {
    appendFileSync(rollout, `${lines.slice(from, to).join('\n')}\n`);
    from = to;
    // Each drain is a new collector process (`collect --once`): what carries over is state.json alone.
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, maxAttempts: 1 });
    writeSpoolFile(
      agentmeterHome,
      { session_id: S1, transcript_path: rollout, cwd: join(home, 'src/shop'), hook_event_name: 'Stop', permission_mode: 'default' },
      { agent: 'codex' },
      Date.UTC(2026, 10, 20, 10, i),
    );
    const result = await collector.drain();
    expect(result.error).toBeUndefined();
    await collector.close();
  }
  return server.records.filter((r) => r.kind === 'usage' || r.kind === 'message');
}

/** As the server stores them: one record per id (a record sent again must be the same record). */
function stored(records: WireRecord[]): Map<string, WireRecord> {
  const byId = new Map<string, WireRecord>();
  for (const record of records) {
    const key = `${record.kind}\0${record.id}`;
    const before = byId.get(key);
    if (before) expect(record, `record ${record.id} sent twice with different content`).toEqual(before);
    else byId.set(key, record);
  }
  return byId;
}

function totals(records: Map<string, WireRecord>) {
  const sum = { input: 0, output: 0, cacheRead: 0, thinking: 0, messages: 0, unknownModel: 0 };
  for (const r of records.values()) {
    if (r.kind === 'message') sum.messages++;
    if (r.kind !== 'usage') continue;
    sum.input += r.input_tokens;
    sum.output += r.output_tokens;
    sum.cacheRead += r.cache_read_tokens;
    sum.thinking += r.thinking_tokens;
    if (r.model === 'unknown') sum.unknownModel++;
  }
  return sum;
}

describe("the collector's state: every agent's part is committed", () => {
  it('a Codex rollout drained in three steps as it grows gives what one drain gives, worked by hand', { timeout: 60_000 }, async () => {
    const once = stored(await drainInParts([]));
    // Cut inside the fixture's first turn and between the later turns: each step has new calls and messages.
    const thrice = stored(await drainInParts([9, 18]));
    // Fixture (SOURCE.md): input 7000, cache read 28000, output 1700, thinking 500; three more turns of input
    // 3000 − 2000 cached, output 100 (50 reasoning): input 10000, cache read 34000, output 2000, thinking 650.
    const expected = { input: 10000, output: 2000, cacheRead: 34000, thinking: 650, messages: 5, unknownModel: 0 };
    expect(totals(once)).toEqual(expected);
    expect(totals(thrice)).toEqual(expected);
    expect([...thrice.keys()].sort()).toEqual([...once.keys()].sort());
  });

  it('every agent of the table keeps its part through save, load and commit', () => {
    const dir = tempDir();
    const draft = emptyState();
    // Each agent's piece as a reading leaves it, through the agent's own reader on a file it reads.
    for (const agent of AGENTS) {
      const piece = ADAPTERS[agent].usage.empty();
      expect(ADAPTERS[agent].usage.state.parse(piece)).toEqual(piece);
    }
    pieceOf(draft.agents, 'claude', CLAUDE_USAGE).transcripts['/t/c.jsonl'] = { offset: 10, sessionId: 'c' };
    pieceOf(draft.agents, 'gemini', GEMINI_USAGE).transcripts['/t/g.jsonl'] = { offset: 11, sessionId: 'g' };
    pieceOf(draft.agents, 'qwen', QWEN_USAGE).transcripts['/t/q.jsonl'] = { offset: 12, sessionId: 'q' };
    pieceOf(draft.agents, 'droid', DROID_USAGE).sessions['d'] = {
      totals: { inputTokens: 1, outputTokens: 2, cacheCreationTokens: 3, cacheReadTokens: 4, thinkingTokens: 5 },
    };
    pieceOf(draft.agents, 'codex', CODEX_USAGE).rollouts['/t/rollout-x.jsonl'] = {
      offset: 13,
      totals: { input: 1, cached: 0, output: 1, reasoning: 0 },
      messages: 2,
      sessionId: 'x',
    };
    const committed = committedState(emptyState(), structuredClone(draft), 7, 1000);
    for (const agent of AGENTS) expect(committed.agents[agent], agent).toEqual(draft.agents[agent]);
    expect(committed).toMatchObject({ lastShipAt: 1000, lastShipRecords: 7, totalShipped: 7 });
    saveState(dir, committed);
    expect(loadState(dir)).toEqual({ state: committed });
  });

  it("a part that fails its agent's schema starts over alone; a version 1 file keeps its offsets and re-reads Codex", () => {
    const dir = tempDir();
    const state = emptyState();
    pieceOf(state.agents, 'claude', CLAUDE_USAGE).transcripts['/t/c.jsonl'] = { offset: 10, sessionId: 'c' };
    saveState(dir, { ...state, agents: { ...state.agents, droid: { sessions: 'broken' } as never } });
    const loaded = loadState(dir);
    expect(loaded.state.agents.claude).toEqual(state.agents.claude);
    expect(loaded.state.agents.droid).toEqual(ADAPTERS.droid.usage.empty());
    expect(loaded.problem).toMatch(/^droid's part of the state was unreadable/);

    const rollout = `/h/.codex/sessions/2026/11/20/${R1}`;
    const totals = { inputTokens: 1, outputTokens: 2, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0 };
    writeFileSync(
      statePath(dir),
      JSON.stringify({
        version: 1,
        transcripts: { '/h/.claude/projects/p/s.jsonl': { offset: 5, sessionId: 's' }, [rollout]: { offset: 900, sessionId: S1 } },
        droid: { d1: { totals, settingsPath: '/h/.factory/sessions/d1.settings.json' } },
        codex: {},
        lastShipAt: 5,
        lastShipRecords: 1,
        totalShipped: 9,
        lastError: null,
        lastErrorAt: null,
      }),
    );
    const v1 = loadState(dir);
    expect(v1.problem).toBeUndefined();
    expect(pieceOf(v1.state.agents, 'claude', CLAUDE_USAGE).transcripts).toEqual({
      '/h/.claude/projects/p/s.jsonl': { offset: 5, sessionId: 's' },
    });
    expect(pieceOf(v1.state.agents, 'droid', DROID_USAGE).sessions['d1']).toEqual({
      totals,
      settingsPath: '/h/.factory/sessions/d1.settings.json',
    });
    // Version 1 kept the offset of a rollout but never its totals: it is read again from the start.
    expect(v1.state.agents.codex).toEqual({ rollouts: {} });
    expect(v1.state).toMatchObject({ version: 2, lastShipAt: 5, totalShipped: 9 });
  });
});
