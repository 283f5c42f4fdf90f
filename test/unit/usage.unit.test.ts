import { appendFileSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLAUDE_USAGE,
  claudeMessagesFromLines,
  claudeRecordId,
  claudeRecords,
  readClaudeUsage,
} from '../../collector/agents/claude/usage.ts';
import { droidAssistantMessages, readDroidUsage, usageDelta } from '../../collector/agents/droid/usage.ts';
import { readGeminiUsage } from '../../collector/agents/gemini/usage.ts';
import { pieceOf } from '../../collector/agents/types.ts';
import { emptyState } from '../../collector/state.ts';
import { readNewLines } from '../../collector/transcript.ts';
import { claudeAssistantLine, claudeUserLine } from '../helpers/payloads.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('Claude Code transcript usage', () => {
  it('counts each message.id once: the largest output, the earliest line; thinking from any line; synthetic ignored', () => {
    const lines = [
      claudeUserLine('hello', '2026-03-01T10:00:00Z'),
      claudeAssistantLine({ id: 'msg_1', timestamp: '2026-03-01T10:00:01Z', input: 100, output: 5, cacheRead: 1000, thinking: true }),
      claudeAssistantLine({ id: 'msg_1', timestamp: '2026-03-01T10:00:02Z', input: 100, output: 250, cacheRead: 1000 }),
      claudeAssistantLine({ id: 'msg_1', timestamp: '2026-03-01T10:00:03Z', input: 100, output: 40, cacheRead: 1000 }),
      claudeAssistantLine({
        id: 'msg_2',
        timestamp: '2026-03-01T23:59:59Z',
        input: 7,
        output: 3,
        cacheWrite: 500,
        sidechain: true,
        model: 'claude-haiku-4-5',
      }),
      claudeAssistantLine({ id: 'msg_3', timestamp: '2026-03-01T10:00:04Z', output: 9, model: '<synthetic>' }),
      'not json at all',
    ];
    const { messages, problems } = claudeMessagesFromLines(lines);
    expect(problems).toEqual(['transcript line is not JSON']);
    expect(messages).toEqual([
      {
        messageId: 'msg_1',
        model: 'claude-sonnet-4-5-20250929',
        // Dated by its first line, as the server dates a call by its earliest copy.
        ts: Date.parse('2026-03-01T10:00:01Z'),
        input: 100,
        output: 250,
        cacheRead: 1000,
        cacheWrite: 0,
        cacheWrite1h: 0,
        thinking: true,
      },
      {
        messageId: 'msg_2',
        model: 'claude-haiku-4-5',
        ts: Date.parse('2026-03-01T23:59:59Z'),
        input: 7,
        output: 3,
        cacheRead: 0,
        cacheWrite: 500,
        cacheWrite1h: 0,
        thinking: false,
      },
    ]);
  });

  it('keeps the one-hour part of the cache writes, which is priced apart (docs/metrics.md §8)', () => {
    const line = JSON.stringify({
      type: 'assistant',
      timestamp: '2026-03-01T10:00:00Z',
      requestId: 'req_9',
      message: {
        id: 'msg_9',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        usage: {
          input_tokens: 3,
          output_tokens: 10,
          cache_creation_input_tokens: 7000,
          cache_creation: { ephemeral_5m_input_tokens: 5000, ephemeral_1h_input_tokens: 2000 },
        },
      },
    });
    const { messages } = claudeMessagesFromLines([line]);
    expect(messages[0]).toMatchObject({ cacheWrite: 7000, cacheWrite1h: 2000 });
    expect(claudeRecords('s', messages)[0]).toMatchObject({ cache_write_tokens: 7000, cache_write_1h_tokens: 2000 });
  });

  it('names a model call by (message.id, requestId) across sessions, by session and message.id without a requestId', () => {
    expect(claudeRecordId('sess-a', 'msg_1', 'req_1')).toBe('cc:msg_1:req_1');
    expect(claudeRecordId('sess-b', 'msg_1', 'req_1')).toBe('cc:msg_1:req_1');
    expect(claudeRecordId('sess-a', 'msg_1', undefined)).toBe('cc:sess-a:msg_1');
    expect(claudeRecordId('sess-b', 'msg_1', undefined)).toBe('cc:sess-b:msg_1');

    // A transcript, and a continued session's transcript that copies its lines (one with a later time) and
    // adds a call of its own: the copies get the original's ids, the session's own and the line's time.
    const original = [
      claudeAssistantLine({ id: 'msg_1', requestId: 'req_1', timestamp: '2026-03-01T10:00:00Z', input: 10, output: 5 }),
      claudeAssistantLine({ id: 'msg_1', requestId: 'req_1', timestamp: '2026-03-01T10:00:02Z', input: 10, output: 70 }),
      claudeAssistantLine({ id: 'msg_2', requestId: 'req_2', timestamp: '2026-03-01T10:01:00Z', input: 20, output: 30 }),
    ];
    const continued = [
      claudeAssistantLine({ id: 'msg_1', requestId: 'req_1', timestamp: '2026-03-01T10:00:02Z', input: 10, output: 70 }),
      claudeAssistantLine({ id: 'msg_2', requestId: 'req_2', timestamp: '2026-03-04T08:00:00Z', input: 20, output: 30 }),
      claudeAssistantLine({ id: 'msg_3', requestId: 'req_3', timestamp: '2026-03-04T08:01:00Z', input: 40, output: 50 }),
      // An old Claude Code line without a requestId, and one whose requestId is not a string: keyed by session.
      claudeAssistantLine({ id: 'msg_4', timestamp: '2026-03-04T08:02:00Z', output: 1 }),
      claudeAssistantLine({ id: 'msg_5', timestamp: '2026-03-04T08:03:00Z', output: 2 }).replace(
        '"type":"assistant"',
        '"type":"assistant","requestId":42',
      ),
    ];
    const idsOf = (session: string, lines: string[]) =>
      claudeRecords(session, claudeMessagesFromLines(lines).messages).map(
        (r) => `${r.kind} ${r.id} ${r.session_id} ${new Date(r.ts).toISOString()}`,
      );
    expect(idsOf('a', original)).toEqual([
      'usage cc:msg_1:req_1 a 2026-03-01T10:00:00.000Z',
      'message cc:msg_1:req_1 a 2026-03-01T10:00:00.000Z',
      'usage cc:msg_2:req_2 a 2026-03-01T10:01:00.000Z',
      'message cc:msg_2:req_2 a 2026-03-01T10:01:00.000Z',
    ]);
    expect(idsOf('b', continued)).toEqual([
      'usage cc:msg_1:req_1 b 2026-03-01T10:00:02.000Z',
      'message cc:msg_1:req_1 b 2026-03-01T10:00:02.000Z',
      'usage cc:msg_2:req_2 b 2026-03-04T08:00:00.000Z',
      'message cc:msg_2:req_2 b 2026-03-04T08:00:00.000Z',
      'usage cc:msg_3:req_3 b 2026-03-04T08:01:00.000Z',
      'message cc:msg_3:req_3 b 2026-03-04T08:01:00.000Z',
      'usage cc:b:msg_4 b 2026-03-04T08:02:00.000Z',
      'message cc:b:msg_4 b 2026-03-04T08:02:00.000Z',
      'usage cc:b:msg_5 b 2026-03-04T08:03:00.000Z',
      'message cc:b:msg_5 b 2026-03-04T08:03:00.000Z',
    ]);
    // The same message.id under two requestIds is two calls; lines of one call keep the largest counts.
    const { messages } = claudeMessagesFromLines([
      claudeAssistantLine({ id: 'msg_1', requestId: 'req_1', timestamp: '2026-03-01T10:00:00Z', output: 5 }),
      claudeAssistantLine({ id: 'msg_1', requestId: 'req_9', timestamp: '2026-03-01T10:00:01Z', output: 6 }),
    ]);
    expect(messages.map((m) => `${m.messageId}/${m.requestId}/${m.output}`)).toEqual(['msg_1/req_1/5', 'msg_1/req_9/6']);
  });

  it('reads incrementally: a partial last line waits for the next read; offsets advance', () => {
    const dir = tempDir();
    const path = join(dir, 't.jsonl');
    const first = claudeAssistantLine({ id: 'msg_a', timestamp: '2026-03-01T10:00:00Z', output: 10 });
    const second = claudeAssistantLine({ id: 'msg_b', timestamp: '2026-03-01T10:01:00Z', output: 20 });
    writeFileSync(path, `${first}\n${second.slice(0, 30)}`);
    const state = emptyState();
    const touch = { sessionId: 's', latestTs: 0, transcriptPaths: new Set([path]) };
    const one = readClaudeUsage(touch, state);
    expect(one.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual(['cc:s:msg_a']);
    expect(pieceOf(state.agents, 'claude', CLAUDE_USAGE).transcripts[path]!.offset).toBe(first.length + 1);
    appendFileSync(path, `${second.slice(30)}\n`);
    const two = readClaudeUsage(touch, state);
    expect(two.records.map((r) => `${r.kind}:${r.id}`)).toEqual(['usage:cc:s:msg_b', 'message:cc:s:msg_b']);
    expect(readClaudeUsage(touch, state).records).toEqual([]);
  });

  it('reads a transcript replaced by a longer one (or rewritten in place) from its start, not from the old offset', () => {
    const dir = tempDir();
    const path = join(dir, 't.jsonl');
    const old = [1, 2].map((n) =>
      claudeAssistantLine({ id: `msg_old${n}`, requestId: `req_old${n}`, timestamp: '2026-03-01T10:00:00Z', output: n }),
    );
    writeFileSync(path, `${old.join('\n')}\n`);
    const state = emptyState();
    const touch = { sessionId: 's', latestTs: 0, transcriptPaths: new Set([path]) };
    expect(readClaudeUsage(touch, state).records.filter((r) => r.kind === 'usage')).toHaveLength(2);
    // A new file takes the name (written beside it, renamed over it), longer than what was read of the old.
    const fresh = [1, 2, 3, 4].map((n) =>
      claudeAssistantLine({ id: `msg_new${n}`, requestId: `req_new${n}`, timestamp: '2026-03-02T10:00:00Z', output: 10 * n }),
    );
    writeFileSync(`${path}.tmp`, `${fresh.join('\n')}\n`);
    renameSync(`${path}.tmp`, path);
    const replaced = readClaudeUsage(touch, state);
    expect(replaced.problems).toEqual([]);
    const usage = replaced.records.filter((r) => r.kind === 'usage');
    expect(usage.map((r) => [r.id, r.output_tokens])).toEqual([
      ['cc:msg_new1:req_new1', 10],
      ['cc:msg_new2:req_new2', 20],
      ['cc:msg_new3:req_new3', 30],
      ['cc:msg_new4:req_new4', 40],
    ]);
    // Truncated and written again in place, past the old offset before the next read: read whole again.
    const rewritten = [5, 6, 7, 8, 9].map((n) =>
      claudeAssistantLine({ id: `msg_new${n}`, requestId: `req_new${n}`, timestamp: '2026-03-03T10:00:00Z', output: 10 * n }),
    );
    writeFileSync(path, `${rewritten.join('\n')}\n`);
    const again = readClaudeUsage(touch, state);
    expect(again.problems).toEqual([]);
    expect(again.records.filter((r) => r.kind === 'usage').map((r) => r.output_tokens)).toEqual([50, 60, 70, 80, 90]);
    // An append to it reads only the new line.
    appendFileSync(path, `${claudeAssistantLine({ id: 'msg_x', requestId: 'req_x', timestamp: '2026-03-03T11:00:00Z', output: 1 })}\n`);
    expect(
      readClaudeUsage(touch, state)
        .records.filter((r) => r.kind === 'usage')
        .map((r) => r.id),
    ).toEqual(['cc:msg_x:req_x']);
  });

  it("reads the session's subagent transcripts beside its own, with or without a SubagentStop naming them", () => {
    const project = join(tempDir(), '.claude', 'projects', '-home-dev-repo');
    const sid = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
    const main = join(project, `${sid}.jsonl`);
    const subagents = join(project, sid, 'subagents');
    mkdirSync(subagents, { recursive: true });
    writeFileSync(
      main,
      `${claudeAssistantLine({ id: 'msg_main', requestId: 'req_main', timestamp: '2026-03-01T10:00:00Z', output: 7 })}\n`,
    );
    // Claude Code writes each subagent's lines to <session>/subagents/agent-<id>.jsonl; an interrupted one
    // never gets its SubagentStop, so no event names the file.
    const sub = (n: number) =>
      claudeAssistantLine({
        id: `msg_sub${n}`,
        requestId: `req_sub${n}`,
        timestamp: '2026-03-01T10:00:30Z',
        output: 100 * n,
        sidechain: true,
      });
    writeFileSync(join(subagents, 'agent-a1.jsonl'), `${sub(1)}\n${sub(2)}\n`);
    writeFileSync(join(subagents, 'agent-a1.meta.json'), '{"agentType":"general-purpose"}');
    const state = emptyState();
    const read = readClaudeUsage({ sessionId: sid, latestTs: 0, transcriptPaths: new Set([main]) }, state);
    expect(read.problems).toEqual([]);
    const usage = read.records.filter((r) => r.kind === 'usage');
    expect(usage.map((r) => [r.id, r.output_tokens])).toEqual([
      ['cc:msg_main:req_main', 7],
      ['cc:msg_sub1:req_sub1', 100],
      ['cc:msg_sub2:req_sub2', 200],
    ]);
    // A SubagentStop that names the file later reads only what was added since.
    appendFileSync(join(subagents, 'agent-a1.jsonl'), `${sub(3)}\n`);
    const stop = readClaudeUsage(
      { sessionId: sid, latestTs: 0, transcriptPaths: new Set([main, join(subagents, 'agent-a1.jsonl')]) },
      state,
    );
    expect(stop.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual(['cc:msg_sub3:req_sub3']);
  });

  it('does not follow a subagents folder that is a link: only folders the agent made are listed', () => {
    const root = tempDir();
    const project = join(root, '.claude', 'projects', '-home-dev-repo');
    const sid = '3f1c9a2e-5b7d-4e8f-9a0b-1c2d3e4f5a6c';
    const main = join(project, `${sid}.jsonl`);
    mkdirSync(join(project, sid), { recursive: true });
    writeFileSync(
      main,
      `${claudeAssistantLine({ id: 'msg_main', requestId: 'req_main', timestamp: '2026-03-01T10:00:00Z', output: 7 })}\n`,
    );
    // Elsewhere, a file shaped like a subagent transcript; the session's subagents folder is a link to it.
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const line = claudeAssistantLine({ id: 'msg_far', requestId: 'req_far', timestamp: '2026-03-01T10:00:30Z', output: 100 });
    writeFileSync(join(elsewhere, 'agent-a1.jsonl'), `${line}\n`);
    symlinkSync(elsewhere, join(project, sid, 'subagents'));
    const read = readClaudeUsage({ sessionId: sid, latestTs: 0, transcriptPaths: new Set([main]) }, emptyState());
    expect(read.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual(['cc:msg_main:req_main']);
  });

  it('reports an unreadable transcript and goes on', () => {
    const state = emptyState();
    const result = readClaudeUsage({ sessionId: 's', latestTs: 0, transcriptPaths: new Set(['/nope/t.jsonl']) }, state);
    expect(result.records).toEqual([]);
    expect(result.problems[0]).toContain('not readable');
  });
});

describe('reading transcripts a piece at a time', () => {
  it('skips a line longer than one reading, once it is whole, and goes on with the lines after it', () => {
    const path = join(tempDir(), 't.jsonl');
    const small = '{"a":1}';
    const huge = `{"b":"${'x'.repeat(300)}"}`;
    writeFileSync(path, `${small}\n${huge.slice(0, 200)}`);
    // At most 100 bytes a reading: the second line does not fit; while it is being written, it is waited for.
    const one = readNewLines(path, undefined, 100)!;
    expect(one).toMatchObject({ lines: [small], nextOffset: small.length + 1, skipped: 0 });
    const mark = (c: { nextOffset: number; tail: string }) => ({ offset: c.nextOffset, tail: c.tail });
    const waiting = readNewLines(path, mark(one), 100)!;
    expect(waiting).toMatchObject({ lines: [], nextOffset: one.nextOffset, skipped: 0 });
    appendFileSync(path, `${huge.slice(200)}\n${small}\n`);
    // Whole, it can never fit a reading: it is skipped (and said so), not read again forever.
    const past = readNewLines(path, mark(waiting), 100)!;
    expect(past).toMatchObject({ lines: [], nextOffset: small.length + 1 + huge.length + 1, skipped: 1 });
    expect(readNewLines(path, mark(past), 100)).toMatchObject({ lines: [small], skipped: 0 });
  });
});

describe('Droid cumulative usage', () => {
  const zero = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0 };
  it('takes the difference from the last reading; a counter that went down restarts from zero', () => {
    const a = { ...zero, inputTokens: 100, outputTokens: 10 };
    const b = { ...zero, inputTokens: 250, outputTokens: 30, thinkingTokens: 5 };
    expect(usageDelta(undefined, a)).toEqual(a);
    expect(usageDelta(a, b)).toEqual({ ...zero, inputTokens: 150, outputTokens: 20, thinkingTokens: 5 });
    expect(usageDelta(b, a)).toEqual(a);
  });

  it('reads the session settings file: each reading yields the delta, dated at the event that caused it', () => {
    const home = tempDir();
    const dir = join(home, '.factory', 'sessions', '-home-dev-project');
    mkdirSync(dir, { recursive: true });
    const settings = join(dir, 'sess-d.settings.json');
    const transcript = join(dir, 'sess-d.jsonl');
    writeFileSync(settings, JSON.stringify({ model: 'claude-opus-4-1', tokenUsage: { ...zero, inputTokens: 1000, outputTokens: 100 } }));
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'message', id: 'm1', timestamp: '2026-03-01T10:00:00Z', message: { role: 'assistant' } })}\n${JSON.stringify({ type: 'message', id: 'u1', message: { role: 'user' } })}\n`,
    );
    const state = emptyState();
    const day1 = Date.UTC(2026, 2, 1, 10);
    const first = readDroidUsage({ sessionId: 'sess-d', latestTs: day1, transcriptPaths: new Set([transcript]) }, state, home);
    expect(first.records).toEqual([
      {
        kind: 'usage',
        id: 'droid:sess-d:after:start',
        agent: 'droid',
        session_id: 'sess-d',
        ts: day1,
        model: 'claude-opus-4-1',
        input_tokens: 1000,
        output_tokens: 100,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        thinking_tokens: 0,
        thinking: false,
      },
      {
        kind: 'message',
        id: 'droid:sess-d:m1',
        agent: 'droid',
        session_id: 'sess-d',
        ts: Date.parse('2026-03-01T10:00:00Z'),
        model: 'claude-opus-4-1',
      },
    ]);
    // The next day the session went on: only the difference is that day's usage.
    writeFileSync(
      settings,
      JSON.stringify({ model: 'claude-opus-4-1', tokenUsage: { ...zero, inputTokens: 1500, outputTokens: 160, thinkingTokens: 40 } }),
    );
    const day2 = Date.UTC(2026, 2, 2, 9);
    const second = readDroidUsage({ sessionId: 'sess-d', latestTs: day2, transcriptPaths: new Set([transcript]) }, state, home);
    expect(second.records).toEqual([
      {
        kind: 'usage',
        id: 'droid:sess-d:after:1000:100:0:0:0',
        agent: 'droid',
        session_id: 'sess-d',
        ts: day2,
        model: 'claude-opus-4-1',
        input_tokens: 500,
        output_tokens: 60,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        thinking_tokens: 40,
        thinking: true,
      },
    ]);
    // Nothing changed: nothing to ship.
    expect(readDroidUsage({ sessionId: 'sess-d', latestTs: day2, transcriptPaths: new Set() }, state, home).records).toEqual([]);
  });

  it('names what is wrong with a malformed settings file or Gemini chat, never a word of their text (problems are logged)', () => {
    const home = tempDir();
    const dir = join(home, '.factory', 'sessions', '-home-dev-project');
    mkdirSync(dir, { recursive: true });
    const secret = 'sk-ant-api03-SECRET';
    writeFileSync(join(dir, 'sess-x.settings.json'), `{"model": ${secret}}`);
    const droid = readDroidUsage({ sessionId: 'sess-x', latestTs: 0, transcriptPaths: new Set() }, emptyState(), home);
    expect(droid.problems).toEqual([`droid settings ${join(dir, 'sess-x.settings.json')}: not JSON`]);
    writeFileSync(join(dir, 'sess-x.settings.json'), JSON.stringify({ model: 7 }));
    const wrong = readDroidUsage({ sessionId: 'sess-x', latestTs: 0, transcriptPaths: new Set() }, emptyState(), home);
    expect(wrong.problems[0]).toMatch(/: not as expected \(model: /);
    const chat = join(home, 'session-2026-03-01T10-00-abc.json');
    writeFileSync(chat, `{"sessionId": "g", "messages": [{"type": "user", "content": my key is ${secret}}]}`);
    const gemini = readGeminiUsage({ sessionId: 'g', latestTs: 0, transcriptPaths: new Set([chat]) }, emptyState());
    expect(gemini.problems).toEqual([`${chat}: not a Gemini chat (not JSON)`]);
    for (const problem of [...droid.problems, ...wrong.problems, ...gemini.problems]) expect(problem).not.toMatch(/SECRET|my key/);
  });

  it('counts assistant messages once per id', () => {
    const lines = [
      JSON.stringify({ type: 'message', id: 'a', message: { role: 'assistant' } }),
      JSON.stringify({ type: 'message', id: 'a', message: { role: 'assistant' } }),
      JSON.stringify({ type: 'assistant', message: { id: 'b' } }),
      JSON.stringify({ role: 'user', id: 'c' }),
      // A line of the <synthetic> model is no model's answer (docs/metrics.md §1): not a message.
      JSON.stringify({ type: 'message', id: 'd', message: { role: 'assistant', model: '<synthetic>' } }),
    ];
    expect(droidAssistantMessages(lines).map((m) => m.id)).toEqual(['a', 'b']);
  });
});
