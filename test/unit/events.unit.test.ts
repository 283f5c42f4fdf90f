import { describe, expect, it } from 'vitest';
import { salvageTruncated, toWireEvent } from '../../collector/events.ts';
import { HOOK_BODY_CAP, HOOK_FILE_CAP, parseSpoolFile, type SpoolEntry } from '../../collector/spool.ts';
import { WireHookEvent } from '../../common/wire.ts';
import { postToolUse, postToolUseFailure, preToolUse, sessionEnd, userPrompt } from '../helpers/payloads.ts';

const T = Date.UTC(2026, 2, 1, 12, 0, 0);

function entry(payload: unknown, header: Record<string, string> = {}, mtimeMs = T): SpoolEntry {
  const head = { 'agentmeter-spool': '1', agent: 'claude', client: '', entrypoint: '', droid_exec: '', time: '', ...header };
  const text = `${Object.entries(head)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n\n${typeof payload === 'string' ? payload : JSON.stringify(payload)}`;
  const parsed = parseSpoolFile('f1', Buffer.from(text), mtimeMs);
  if (parsed.kind !== 'ok') throw new Error(parsed.reason);
  return parsed.value;
}

function derive(payload: unknown, header: Record<string, string> = {}, mtimeMs = T) {
  const result = toWireEvent(entry(payload, header, mtimeMs), 'm1', undefined);
  if (result.kind !== 'ok') throw new Error(`${result.kind}: ${result.reason}`);
  expect(WireHookEvent.safeParse(result.value.record).success).toBe(true);
  return result.value.record;
}

describe('API session of a computer run', () => {
  it('ships the session and message ids the hook recorded, and nothing that is not an id', () => {
    const stop = { hook_event_name: 'Stop', session_id: 'agent-1' };
    expect(derive(stop, { session: 'ses_1', message: 'msg_2' })).toMatchObject({ api_session_id: 'ses_1', api_message_id: 'msg_2' });
    const plain = derive(stop);
    expect(plain).not.toHaveProperty('api_session_id');
    expect(plain).not.toHaveProperty('api_message_id');
    expect(derive(stop, { session: 'x'.repeat(65), message: 'a b' })).not.toHaveProperty('api_session_id');
  });
});

describe('spool file parsing', () => {
  it('reads the header and body', () => {
    const e = entry({ a: 1 }, { client: 'web' });
    expect(e.header['client']).toBe('web');
    expect(JSON.parse(e.body.toString())).toEqual({ a: 1 });
    expect(e.truncated).toBe(false);
  });
  it('quarantines files that are not ours', () => {
    expect(parseSpoolFile('x', Buffer.from('{"a":1}'), T).kind).toBe('quarantine');
    expect(parseSpoolFile('x', Buffer.from('agentmeter-spool=2\n\n{}'), T)).toMatchObject({
      kind: 'quarantine',
      reason: expect.stringContaining('format'),
    });
    expect(parseSpoolFile('x', Buffer.from('agentmeter-spool=1\nnonsense\n\n{}'), T).kind).toBe('quarantine');
  });
  it('marks a body over the cap as truncated', () => {
    const big = Buffer.concat([Buffer.from('agentmeter-spool=1\nagent=claude\n\n'), Buffer.alloc(HOOK_BODY_CAP + 1, 0x61)]);
    const parsed = parseSpoolFile('x', big, T);
    expect(parsed.kind === 'ok' && parsed.value.truncated).toBe(true);
  });
  it("marks a file at the hook's size limit truncated, even after a header so long that the body is under 1 MiB", () => {
    const header = `agentmeter-spool=1\nagent=claude\nclient=${'x'.repeat(8000)}\n\n`;
    const atLimit = Buffer.concat([Buffer.from(header), Buffer.alloc(HOOK_FILE_CAP - header.length, 0x61)]);
    const parsed = parseSpoolFile('x', atLimit, T);
    if (parsed.kind !== 'ok') throw new Error(parsed.reason);
    expect(parsed.value.body.length).toBeLessThan(HOOK_BODY_CAP);
    expect(parsed.value.truncated).toBe(true);
    const under = parseSpoolFile('x', atLimit.subarray(0, HOOK_FILE_CAP - 1), T);
    expect(under.kind === 'ok' && under.value.truncated).toBe(false);
  });
});

describe('raw event → wire event', () => {
  it('a shell git commit: success, shell, commit; the command itself never ships', () => {
    const r = derive(
      postToolUse('Bash', { command: 'git commit -m "top secret message"' }, { stdout: 'ok' }, { permission_mode: 'acceptEdits' }),
    );
    expect(r).toMatchObject({
      kind: 'event',
      id: 'm1.f1',
      agent: 'claude',
      event: 'PostToolUse',
      ts: T,
      tool_name: 'Bash',
      tool_success: true,
      is_shell: true,
      git_commit: true,
      autonomy: 'auto-low',
      client: 'terminal-ui',
    });
    expect(JSON.stringify(r)).not.toContain('top secret');
  });
  it('a failed call counts as a call but produces no commit or files', () => {
    const r = derive(postToolUseFailure('Bash', { command: 'git commit -m x' }));
    expect(r.tool_success).toBe(false);
    expect(r.git_commit).toBeUndefined();
    const f = derive(postToolUse('Write', { file_path: '/x/a.py' }, { success: false, type: 'create' }));
    expect(f.tool_success).toBe(false);
    expect(f.files).toBeUndefined();
  });
  it('Write create, MCP server, PR through MCP, skills', () => {
    expect(derive(postToolUse('Write', { file_path: '/x/a.py', content: 'print(1)' }, { type: 'create' })).files).toEqual([
      { ext: 'py', op: 'create' },
    ]);
    const mcp = derive(postToolUse('mcp__GitHub__create_pull_request', { title: 't' }, { number: 1 }));
    expect(mcp).toMatchObject({ mcp_server: 'GitHub', pr_created: true });
    expect(derive(postToolUse('Skill', { skill: 'pdf' })).skill).toBe('pdf');
  });
  it('PreToolUse carries the tool but is not a call', () => {
    const r = derive(preToolUse('Edit', { file_path: '/a.ts' }));
    expect(r.tool_name).toBe('Edit');
    expect(r.tool_success).toBeUndefined();
    expect(r.files).toBeUndefined();
  });
  it('a non-string tool name ships as an empty name (→ "unknown" in the pipeline)', () => {
    expect(derive(postToolUse(42 as unknown as string)).tool_name).toBe('');
    expect(derive(postToolUse('  Read  ')).tool_name).toBe('Read');
  });
  it('slash commands ship by name; the prompt never ships', () => {
    const r = derive(userPrompt('/Deploy to production with password hunter2'));
    expect(r.slash_command).toBe('deploy');
    expect(JSON.stringify(r)).not.toContain('hunter2');
    expect(derive(userPrompt('just a question')).slash_command).toBeUndefined();
  });
  it('client hints: AGENTMETER_CLIENT, Claude sdk entrypoint, droid exec', () => {
    expect(derive(userPrompt('x'), { client: 'web', entrypoint: 'sdk-cli' }).client).toBe('web');
    expect(derive(userPrompt('x'), { entrypoint: 'sdk-ts' }).client).toBe('non-interactive-cli');
    expect(derive(userPrompt('x'), { entrypoint: 'cli' }).client).toBe('terminal-ui');
    expect(derive(userPrompt('x'), { agent: 'droid', droid_exec: '1' }).client).toBe('non-interactive-cli');
    expect(derive(userPrompt('x'), { agent: 'droid' }).client).toBe('terminal-ui');
  });
  it('event time: file mtime, overridden by AGENTMETER_EVENT_TIME (ISO or epoch ms)', () => {
    expect(derive(sessionEnd(), {}, T + 5).ts).toBe(T + 5);
    expect(derive(sessionEnd(), { time: '2026-02-03T04:05:06Z' }).ts).toBe(Date.UTC(2026, 1, 3, 4, 5, 6));
    expect(derive(sessionEnd(), { time: String(T - 1000) }).ts).toBe(T - 1000);
    expect(toWireEvent(entry(sessionEnd(), { time: 'yesterday-ish' }), 'm', undefined)).toMatchObject({ kind: 'quarantine' });
  });
  it('SessionEnd keeps its reason; subagent ids ship', () => {
    expect(derive(sessionEnd('error', { agent_id: 'a1', agent_type: 'Explore' }))).toMatchObject({
      reason: 'error',
      agent_id: 'a1',
      agent_type: 'Explore',
    });
  });
  it('quarantines what cannot be an event, with a reason', () => {
    const q = (payload: unknown, header: Record<string, string> = {}) => toWireEvent(entry(payload, header), 'm', undefined);
    expect(q('')).toMatchObject({ kind: 'quarantine', reason: expect.stringContaining('empty') });
    expect(q('{not json')).toMatchObject({ kind: 'quarantine', reason: expect.stringContaining('not JSON') });
    expect(q({ session_id: 's' })).toMatchObject({ kind: 'quarantine', reason: expect.stringContaining('hook_event_name') });
    expect(q({ hook_event_name: 'Stop', session_id: 's' }, { agent: 'windsurf' })).toMatchObject({
      kind: 'quarantine',
      reason: expect.stringContaining('agent'),
    });
  });
  it('takes an event that ended right at the cap whole: it parses, so nothing of it is lost and it is not marked', () => {
    const head = '{"session_id":"s9","hook_event_name":"PostToolUseFailure","tool_name":"Read","tool_response":{"error":"';
    const tail = '"}}';
    const body = Buffer.concat([Buffer.from(head), Buffer.alloc(HOOK_BODY_CAP + 1 - head.length - tail.length, 0x61), Buffer.from(tail)]);
    const parsed = parseSpoolFile('big', Buffer.concat([Buffer.from('agentmeter-spool=1\nagent=claude\n\n'), body]), T);
    if (parsed.kind !== 'ok') throw new Error('parse');
    expect(parsed.value.truncated).toBe(true);
    const result = toWireEvent(parsed.value, 'm', undefined);
    if (result.kind !== 'ok') throw new Error(result.reason);
    expect(result.value.record.truncated).toBeUndefined();
    expect(result.value.record).toMatchObject({ event: 'PostToolUseFailure', tool_name: 'Read', tool_success: false });
  });
  it('salvages the leading fields of a truncated event and marks it', () => {
    const head = '{"session_id":"s9","transcript_path":"/t.jsonl","hook_event_name":"PostToolUse","tool_name":"Read","tool_response":"';
    const body = Buffer.concat([Buffer.from(head), Buffer.alloc(HOOK_BODY_CAP + 1 - head.length, 0x61)]);
    expect(salvageTruncated(body)).toMatchObject({ session_id: 's9', hook_event_name: 'PostToolUse', tool_name: 'Read' });
    const text = Buffer.concat([Buffer.from('agentmeter-spool=1\nagent=claude\n\n'), body]);
    const parsed = parseSpoolFile('big', text, T);
    if (parsed.kind !== 'ok') throw new Error('parse');
    const result = toWireEvent(parsed.value, 'm', undefined);
    expect(result).toMatchObject({
      kind: 'ok',
      value: { record: { truncated: true, tool_name: 'Read', tool_success: true, session_id: 's9' } },
    });
  });
});
