// The Gemini CLI adapter on its fixtures (collector/agents/gemini/fixtures/SOURCE.md), with figures worked out
// by hand from the fixture files.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiAutonomy, geminiEvent, geminiHeadless } from '../../collector/agents/gemini/events.ts';
import { geminiMcp } from '../../collector/agents/gemini/tools.ts';
import { geminiCallsFromRecords, geminiRecords, readGeminiUsage } from '../../collector/agents/gemini/usage.ts';
import type { HookPayload } from '../../collector/agents/hook-payload.ts';
import { toWireEvent } from '../../collector/events.ts';
import { parseSpoolFile } from '../../collector/spool.ts';
import { emptyState } from '../../collector/state.ts';
import { WireHookEvent, type WireRecord } from '../../common/wire.ts';
import { copyGeminiChats, geminiPayloads } from '../helpers/gemini-fixtures.ts';
import { tempDir } from '../helpers/tmp.ts';
import { filesOf } from '../helpers/writes.ts';

const CWD = '/home/dev/app';
const CHATS = '/home/dev/.gemini/tmp/9c1f/chats';
const payloads = Object.fromEntries(geminiPayloads(CWD, CHATS).map((p) => [p.name, p.payload]));

function derive(name: string, header: Record<string, string> = {}) {
  const head = { 'agentmeter-spool': '1', agent: 'gemini', client: '', gemini_headless: '', gemini_mode: '', time: '', ...header };
  const text = `${Object.entries(head)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n\n${JSON.stringify(payloads[name])}`;
  const parsed = parseSpoolFile('f1', Buffer.from(text), Date.UTC(2026, 10, 20, 9));
  if (parsed.kind !== 'ok') throw new Error(parsed.reason);
  const result = toWireEvent(parsed.value, 'm1', undefined);
  if (result.kind !== 'ok') throw new Error(`${result.kind}: ${result.reason}`);
  expect(WireHookEvent.safeParse(result.value.record).success).toBe(true);
  return result.value.record;
}

describe('Gemini CLI events', () => {
  it.each([
    ['a01-session-start', 'SessionStart'],
    ['a02-before-agent-slash', 'UserPromptSubmit'],
    ['a03-before-tool-write', 'PreToolUse'],
    ['a04-after-tool-write-create', 'PostToolUse'],
    ['a07-after-tool-mcp-pr', 'PostToolUse'],
    ['a08-after-tool-replace-failed', 'PostToolUseFailure'],
    ['a09-notification', 'Notification'],
    ['a10-pre-compress', 'PreCompact'],
    ['a11-after-agent', 'Stop'],
    ['a12-session-end', 'SessionEnd'],
  ])('%s is counted as %s', (name, event) => {
    expect(geminiEvent(payloads[name]!['hook_event_name'] as string, payloads[name] as HookPayload)).toBe(event);
    expect(derive(name).event).toBe(event);
  });

  it('keeps an event name it does not know', () => {
    expect(geminiEvent('BeforeModel', { hook_event_name: 'BeforeModel', session_id: 's' })).toBe('BeforeModel');
  });

  it('derives the facts of each tool call from Gemini’s tool names', () => {
    expect(derive('a04-after-tool-write-create')).toMatchObject({
      tool_name: 'write_file',
      tool_success: true,
      files: [{ ext: 'ts', op: 'create' }],
    });
    expect(derive('a05-after-tool-replace-edit')).toMatchObject({ tool_name: 'replace', files: [{ ext: 'md', op: 'edit' }] });
    expect(derive('a06-after-tool-shell-commit')).toMatchObject({ is_shell: true, git_commit: true, tool_success: true });
    expect(derive('a07-after-tool-mcp-pr')).toMatchObject({ mcp_server: 'GitHub', pr_created: true });
    const failed = derive('a08-after-tool-replace-failed');
    expect(failed).toMatchObject({ event: 'PostToolUseFailure', tool_success: false });
    expect(failed).not.toHaveProperty('files');
    expect(derive('b03-after-tool-skill')).toMatchObject({ skill: 'pdf' });
    expect(derive('b04-after-tool-mcp-legacy-name')).toMatchObject({ mcp_server: 'linear' });
    expect(derive('b05-after-tool-shell-pr')).toMatchObject({ is_shell: true, pr_created: true });
    expect(derive('a02-before-agent-slash')).toMatchObject({ slash_command: 'review' });
    expect(derive('b02-before-agent')).not.toHaveProperty('slash_command');
  });

  it('never ships the prompt, the command, the file content or the tool output', () => {
    const shipped = JSON.stringify(Object.keys(payloads).map((name) => derive(name)));
    for (const secret of ['secret-project', 'secret message', 'SECRET CONTENT', 'secret answer text'])
      expect(shipped).not.toContain(secret);
  });

  it('takes the MCP server from mcp_context, else from the name', () => {
    const p = (extra: Record<string, unknown>) => ({ hook_event_name: 'AfterTool', session_id: 's', ...extra }) as HookPayload;
    // mcp_context wins: the name alone would cut a server named with "_" at the first "_".
    expect(geminiMcp('mcp_my_db_query', p({ mcp_context: { server_name: 'my_db', tool_name: 'query' } }))).toEqual({
      server: 'my_db',
      tool: 'query',
    });
    expect(geminiMcp('mcp_my_db_query', p({}))).toEqual({ server: 'my', tool: 'db_query' });
    expect(geminiMcp('mcp__my_db__query', p({}))).toEqual({ server: 'my_db', tool: 'query' });
    expect(geminiMcp('run_shell_command', p({}))).toBeUndefined();
  });

  it('tells a created file from an overwritten one, also in versions without isNewFile', () => {
    const input = { file_path: '/r/a.py', content: 'x' };
    expect(filesOf('gemini', 'write_file', input, { returnDisplay: { isNewFile: false } })).toEqual([{ ext: 'py', op: 'edit' }]);
    expect(filesOf('gemini', 'write_file', input, { llmContent: 'Successfully created and wrote to new file: /r/a.py.' })).toEqual([
      { ext: 'py', op: 'create' },
    ]);
    expect(filesOf('gemini', 'write_file', input, { llmContent: 'Successfully overwrote file: /r/a.py.' })).toEqual([
      { ext: 'py', op: 'edit' },
    ]);
    expect(filesOf('gemini', 'read_file', input, {})).toEqual([]);
  });

  it('maps the approval mode the hook read (docs/metrics.md §1) and the one-shot flag', () => {
    expect(geminiAutonomy(undefined, { gemini_mode: 'yolo' })).toBe('auto-high');
    expect(geminiAutonomy(undefined, { gemini_mode: 'auto_edit' })).toBe('auto-low');
    expect(geminiAutonomy(undefined, { gemini_mode: 'autoEdit' })).toBe('auto-low');
    expect(geminiAutonomy(undefined, { gemini_mode: 'plan' })).toBe('spec');
    expect(geminiAutonomy(undefined, { gemini_mode: 'default' })).toBe('manual');
    expect(geminiAutonomy('bypassPermissions', {})).toBe('manual');
    expect(derive('a04-after-tool-write-create', { gemini_mode: 'yolo', gemini_headless: '1' })).toMatchObject({
      autonomy: 'auto-high',
      client: 'non-interactive-cli',
    });
    expect(derive('a04-after-tool-write-create')).toMatchObject({ autonomy: 'manual', client: 'terminal-ui' });
    expect(geminiHeadless({ gemini_headless: '1' })).toBe(true);
  });
});

/** What the chat fixtures hold, worked out by hand from the files. */
const M = (n: number) => `0b1c2d3e-0000-4000-8000-00000000000${n}`;

describe('Gemini CLI usage', () => {
  function usageOf(records: WireRecord[]) {
    return records
      .filter((r) => r.kind === 'usage')
      .map(({ kind: _k, agent: _a, session_id: _s, ...rest }) => rest)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  it('counts each model call of a chat once, from its copy with tokens, rewound calls included', () => {
    const dir = tempDir();
    copyGeminiChats(join(dir, 'chats'), CWD);
    const lines = readFileSync(join(dir, 'chats', 'session-2026-11-20T09-00-5f3c9a1e.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const { calls } = geminiCallsFromRecords(lines.map((l) => JSON.parse(l)));
    // m1 appears three times (no tokens, tokens, tool calls), m3 twice, m2 once before its $rewindTo.
    expect(calls.map((c) => c.messageId).sort()).toEqual([M(2), M(3), M(4)]);
    const records = geminiRecords('a', calls);
    expect(usageOf(records)).toEqual([
      // m1: input 12000 of which 8000 cached; output 300 + 450 thoughts.
      {
        id: `gm:${M(2)}`,
        ts: Date.parse('2026-11-20T09:00:15Z'),
        model: 'gemini-2.5-pro',
        input_tokens: 4000,
        output_tokens: 750,
        cache_read_tokens: 8000,
        cache_write_tokens: 0,
        thinking_tokens: 450,
        thinking: true,
      },
      // m2: rewound later, still paid for.
      {
        id: `gm:${M(3)}`,
        ts: Date.parse('2026-11-20T09:00:35Z'),
        model: 'gemini-2.5-pro',
        input_tokens: 2000,
        output_tokens: 100,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        thinking_tokens: 0,
        thinking: false,
      },
      // m3: input 5000 − 1000 cached + 50 tool-use prompt.
      {
        id: `gm:${M(4)}`,
        ts: Date.parse('2026-11-20T09:01:15Z'),
        model: 'gemini-2.5-flash',
        input_tokens: 4050,
        output_tokens: 200,
        cache_read_tokens: 1000,
        cache_write_tokens: 0,
        thinking_tokens: 0,
        thinking: false,
      },
    ]);
    expect(
      records
        .filter((r) => r.kind === 'message')
        .map((r) => r.id)
        .sort(),
    ).toEqual([`gm:${M(2)}`, `gm:${M(3)}`, `gm:${M(4)}`]);
  });

  it('reads a session’s chat and its subagents’ incrementally, and a message appended again later once', () => {
    const home = tempDir();
    const chats = join(home, '.gemini', 'tmp', '9c1f', 'chats');
    mkdirSync(chats, { recursive: true });
    copyGeminiChats(chats, CWD);
    const state = emptyState();
    const path = join(chats, 'session-2026-11-20T09-00-5f3c9a1e.jsonl');
    const touch = { sessionId: '5f3c9a1e-7b2d-4c8e-9f10-2a4b6c8d0e1f', latestTs: 0, transcriptPaths: new Set([path]) };
    const first = readGeminiUsage(touch, state);
    expect(first.problems).toEqual([]);
    // Three calls of the main chat and s1 of the subagent (1000 in, 80 + 20 thoughts out).
    expect(usageOf(first.records).map((u) => [u.id, u.input_tokens, u.output_tokens])).toEqual([
      [`gm:${M(2)}`, 4000, 750],
      [`gm:${M(3)}`, 2000, 100],
      [`gm:${M(4)}`, 4050, 200],
      ['gm:7a6b5c4d-0000-4000-8000-000000000001', 1000, 100],
    ]);
    // Nothing new: nothing read again.
    expect(readGeminiUsage(touch, state).records).toEqual([]);
    // m3 appended again (Gemini rewrites the message when it changes): the same id, the same figures.
    appendFileSync(path, `${readFileSync(path, 'utf8').trim().split('\n')[10]}\n`);
    const again = readGeminiUsage(touch, state);
    expect(usageOf(again.records).map((u) => [u.id, u.input_tokens])).toEqual([[`gm:${M(4)}`, 4050]]);
  });

  it('reads a legacy session-*.json chat whole, and again only when it changed', () => {
    const dir = tempDir();
    copyGeminiChats(dir, CWD);
    const path = join(dir, 'session-2025-12-01T08-00-d00dfeed.json');
    const state = emptyState();
    const touch = { sessionId: 'd00dfeed-0000-4000-8000-000000000000', latestTs: 0, transcriptPaths: new Set([path]) };
    expect(usageOf(readGeminiUsage(touch, state).records)).toEqual([
      {
        id: 'gm:d00dfeed-0000-4000-8000-000000000002',
        ts: Date.parse('2025-12-01T08:00:03Z'),
        model: 'gemini-2.5-pro',
        input_tokens: 7173,
        output_tokens: 18,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        thinking_tokens: 17,
        thinking: true,
      },
    ]);
    expect(readGeminiUsage(touch, state).records).toEqual([]);
  });

  it('reports a chat it cannot read and lines that are not JSON, and keeps the rest', () => {
    const dir = tempDir();
    const path = join(dir, 'session-x.jsonl');
    appendFileSync(
      path,
      'not json\n{"id":"g1","timestamp":"2026-11-20T10:00:00Z","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":10,"output":1}}\n',
    );
    const result = readGeminiUsage(
      { sessionId: 's', latestTs: 0, transcriptPaths: new Set([path, join(dir, 'missing.jsonl')]) },
      emptyState(),
    );
    expect(result.problems).toEqual([`${path}: 1 chat line(s) are not JSON`, `chat ${join(dir, 'missing.jsonl')} is not readable`]);
    expect(usageOf(result.records).map((u) => [u.id, u.input_tokens, u.output_tokens])).toEqual([['gm:g1', 10, 1]]);
  });
});
