// Cursor's payloads (collector/agents/cursor/fixtures, SOURCE.md there) read into wire events: its
// dialect mapped to the common payload, one count per call (afterFileEdit counts the edit, postToolUse of
// the edit tool does not), the lines of each replacement; its flat hooks.json read as groups and written
// back as it was; the installed command's answer on stdout, and a prompt over the credit limit blocked.
import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeCursor } from '../../collector/agents/cursor/events.ts';
import { CURSOR_HOOKS_FORMAT } from '../../collector/agents/cursor/format.ts';
import { cursorMatches } from '../../collector/agents/cursor/hooks.ts';
import { cursorWrites } from '../../collector/agents/cursor/tools.ts';
import { toWireEvent } from '../../collector/events.ts';
import { hookCommand, install, uninstall } from '../../collector/install/installer.ts';
import { HooksMap, readHooksMap, userSettingsLocation } from '../../collector/install/settings.ts';
import type { WireHookEvent } from '../../common/wire.ts';
import { ROOT } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = join(ROOT, 'collector', 'agents', 'cursor', 'fixtures');
const session = readFileSync(join(FIXTURES, 'session.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { time: string; payload: Record<string, unknown> });

function wire(payload: unknown, name = 'f1') {
  const result = toWireEvent(
    {
      name,
      header: { agent: 'cursor' },
      body: Buffer.from(JSON.stringify(payload)),
      mtimeMs: Date.parse('2026-11-10T09:00:00Z'),
      truncated: false,
    },
    'm1',
    undefined,
  );
  if (result.kind !== 'ok') throw new Error(`${result.kind}: ${'reason' in result ? result.reason : ''}`);
  return result.value;
}

describe('Cursor payloads', () => {
  it('read as the common payload: session, working folder, tools and model', () => {
    const shell = session.find((l) => l.payload['tool_name'] === 'Shell')!.payload;
    expect(normalizeCursor(shell)).toEqual({
      hook_event_name: 'postToolUse',
      session_id: 'c0ffee00-1111-4222-8333-444455556666',
      cwd: '/home/dev/src/shop',
      model: 'claude-4.5-sonnet',
      tool_name: 'Shell',
      tool_input: { command: 'npm test', working_directory: '/home/dev/src/shop' },
      tool_response: {},
    });
    // Events without cwd take the workspace's first root; a generation's events share the conversation.
    const stop = normalizeCursor(session.find((l) => l.payload['hook_event_name'] === 'stop')!.payload) as Record<string, unknown>;
    expect(stop).toMatchObject({ hook_event_name: 'stop', session_id: 'c0ffee00-1111-4222-8333-444455556666', cwd: '/home/dev/src/shop' });
    // The per-kind events in the generic fields; the read file's content is never taken.
    expect(normalizeCursor({ hook_event_name: 'beforeShellExecution', conversation_id: 'c', command: 'ls', cwd: '/w' })).toMatchObject({
      tool_name: 'Shell',
      tool_input: { command: 'ls' },
    });
    expect(
      normalizeCursor({ hook_event_name: 'beforeMCPExecution', conversation_id: 'c', tool_name: 'q', tool_input: '{"a":1}' }),
    ).toMatchObject({
      tool_name: 'MCP:q',
      tool_input: { a: 1 },
    });
    expect(normalizeCursor({ hook_event_name: 'beforeReadFile', conversation_id: 'c', file_path: '/w/.env', content: 'SECRET=1' })).toEqual(
      { hook_event_name: 'beforeReadFile', session_id: 'c', tool_name: 'Read', tool_input: { file_path: '/w/.env' } },
    );
    // No session at all: left for the common schema to quarantine.
    expect(
      toWireEvent(
        { name: 'x', header: { agent: 'cursor' }, body: Buffer.from('{"hook_event_name":"stop"}'), mtimeMs: 0, truncated: false },
        'm',
        undefined,
      ),
    ).toMatchObject({
      kind: 'quarantine',
    });
  });

  it('counts each call once, with the lines of its replacements', () => {
    const events = session.map((l, i) => wire(l.payload, `f${i}`));
    const records = events.map((e) => e.record);
    const calls = records.filter((r) => r.event === 'PostToolUse' || r.event === 'PostToolUseFailure');
    expect(calls.map((r) => [r.tool_name, r.tool_success])).toEqual([
      ['Shell', true],
      ['Read', true],
      ['Write', true],
      ['Write', true],
      ['MCP:get_issue', true],
      ['Shell', false],
      ['Shell', true],
      ['Shell', true],
    ]);
    // postToolUse of the edit tool is an event that is no call: afterFileEdit counted the edit.
    expect(records.filter((r) => r.event === 'postToolUse').map((r) => r.tool_name)).toEqual([undefined, undefined]);
    expect(records.map((r) => r.event)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse',
      'PostToolUse',
      'postToolUse',
      'PostToolUse',
      'postToolUse',
      'PostToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'PostToolUse',
      'Stop',
      'UserPromptSubmit',
      'PostToolUse',
      'Stop',
      'SessionEnd',
    ]);
    const edits = records.filter((r) => r.files);
    expect(edits.map((r) => [r.files, r.edits])).toEqual([
      [[{ op: 'edit', ext: 'ts' }], [{ ext: 'ts', lines_added: 2, lines_deleted: 0 }]],
      [[{ op: 'create', ext: 'ts' }], [{ ext: 'ts', lines_added: 4, lines_deleted: 0 }]],
    ]);
    const byName = (tool: string) => records.find((r) => r.tool_name === tool) as WireHookEvent;
    expect(byName('MCP:get_issue').mcp_server).toBe('unknown');
    expect(records.filter((r) => r.git_commit).length).toBe(1);
    expect(records.filter((r) => r.pr_created).length).toBe(1);
    expect(records.filter((r) => r.slash_command).map((r) => r.slash_command)).toEqual(['review']);
    expect(new Set(records.map((r) => r.agent))).toEqual(new Set(['cursor']));
    // The model of every event, for the ledger; the ledger's edits are the added lines.
    expect(new Set(events.map((e) => e.context.model))).toEqual(new Set(['claude-4.5-sonnet']));
    expect(events.flatMap((e) => e.context.edits ?? []).map((e) => e.added.length)).toEqual([2, 4]);
    // Nothing of the prompts, outputs or file contents is in what ships.
    expect(JSON.stringify(records)).not.toContain('SECRET');
  });

  it('reads a replacement of nothing as a file written whole', () => {
    const input = { file_path: '/w/a.ts', edits: [{ old_string: '', new_string: 'a\nb\n' }] };
    expect(cursorWrites('Write', input, {})).toEqual([{ op: 'create', edit: { path: '/w/a.ts', added: ['a', 'b'], deleted: 0 } }]);
    expect(cursorWrites('Write', { file_path: '/w/a.ts' }, {})).toEqual([]);
  });
});

describe("Cursor's hooks.json", () => {
  it('reads as groups and writes back, untouched entries exactly as they were', () => {
    const file = JSON.parse(readFileSync(join(FIXTURES, 'hooks.json'), 'utf8'));
    const groups = HooksMap.parse(CURSOR_HOOKS_FORMAT.toGroups(file.hooks));
    expect(groups['preToolUse']![0]!.matcher).toBe('Shell');
    expect(groups['preToolUse']![0]!.hooks[0]).toMatchObject({ type: 'command', command: './hooks/guard.sh', failClosed: true });
    expect(JSON.stringify(CURSOR_HOOKS_FORMAT.fromGroups(groups))).toBe(JSON.stringify(file.hooks));
  });

  it('install adds our entries beside the user’s, uninstall gives the file back byte for byte', () => {
    const home = tempDir();
    const file = join(home, '.cursor', 'hooks.json');
    mkdirSync(join(home, '.cursor'), { recursive: true });
    const original = readFileSync(join(FIXTURES, 'hooks.json'), 'utf8');
    writeFileSync(file, original);
    const target = { agent: 'cursor' as const, home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true };
    install(target);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.version).toBe(1);
    expect(written.hooks.afterFileEdit).toEqual([
      { command: './hooks/format.sh', timeout: 30 },
      {
        type: 'command',
        command: `'${join(home, '.agentmeter', 'bin', 'agentmeter-hook.sh')}' cursor >/dev/null && printf '%s\\n' '{}'`,
        timeout: 10,
      },
    ]);
    expect(written.hooks.beforeSubmitPrompt[0].command).toMatch(/ cursor prompt >\/dev\/null && printf '%s\\n' '\{"continue":true\}'$/);
    // Permission events are never ours.
    for (const event of ['preToolUse', 'beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'subagentStart'])
      expect(JSON.stringify(written.hooks[event] ?? [])).not.toContain('agentmeter');
    expect(readHooksMap(userSettingsLocation('cursor', home))!['stop']!.flatMap((g) => g.hooks)).toHaveLength(2);
    // Installing again changes nothing.
    expect(install(target).changes).toEqual([]);
    uninstall(target);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('a file the install made is removed by the uninstall', () => {
    const home = tempDir();
    const target = { agent: 'cursor' as const, home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true };
    install(target);
    uninstall(target);
    expect(() => readFileSync(join(home, '.cursor', 'hooks.json'))).toThrow();
  });
});

describe("the installed command's answer", () => {
  const home = tempDir();
  const agentmeterHome = join(home, '.agentmeter');
  const target = { agent: 'cursor' as const, home, agentmeterHome, defaultAgentmeterHome: false };
  install(target);
  const run = (event: string) =>
    spawnSync('/bin/sh', ['-c', hookCommand(target, event)], {
      input: JSON.stringify({ hook_event_name: event, conversation_id: 'c' }),
      env: { PATH: process.env['PATH']!, HOME: home },
      encoding: 'utf8',
    });

  it('is the JSON that lets everything through, the event spooled', () => {
    const stop = run('stop');
    expect([stop.status, stop.stdout]).toEqual([0, '{}\n']);
    const prompt = run('beforeSubmitPrompt');
    expect([prompt.status, JSON.parse(prompt.stdout)]).toEqual([0, { continue: true }]);
    expect(execSync(`ls ${join(agentmeterHome, 'spool', 'new')} | wc -l`, { encoding: 'utf8' }).trim()).toBe('2');
  });

  it('is none over the credit limit: the prompt is blocked by the status, the warning never mixed in', () => {
    writeFileSync(join(agentmeterHome, 'limit-warning'), '{"systemMessage":"90% used"}\n');
    const warned = run('beforeSubmitPrompt');
    expect([warned.status, warned.stdout]).toEqual([0, '{"continue":true}\n']);
    writeFileSync(join(agentmeterHome, 'limit-exceeded'), 'Over your monthly credit limit.\n');
    const blocked = run('beforeSubmitPrompt');
    expect([blocked.status, blocked.stdout, blocked.stderr]).toEqual([2, '', 'Over your monthly credit limit.\n']);
    // Other events are never blocked.
    expect(run('postToolUse').status).toBe(0);
  });
});

describe("Cursor's matchers, for the hooks that ran", () => {
  it('test the tool type on tool events, fixed names on the others; what the collector never sees does not match', () => {
    expect(cursorMatches('postToolUse', 'Shell|Read', 'Read')).toBe(true);
    expect(cursorMatches('postToolUse', 'Shell|Read', 'Write')).toBe(false);
    expect(cursorMatches('afterFileEdit', 'Write', 'Write')).toBe(true);
    expect(cursorMatches('afterFileEdit', 'TabWrite', 'Write')).toBe(false);
    expect(cursorMatches('postToolUse', 'MCP:', 'MCP:get_issue')).toBe(true);
    expect(cursorMatches('beforeSubmitPrompt', 'UserPromptSubmit', undefined)).toBe(true);
    expect(cursorMatches('stop', 'Stop', undefined)).toBe(true);
    expect(cursorMatches('stop', 'Other', undefined)).toBe(false);
    expect(cursorMatches('beforeShellExecution', 'curl|wget', 'Shell')).toBe(false);
    expect(cursorMatches('sessionStart', 'anything', undefined)).toBe(true);
    expect(cursorMatches('postToolUse', '', 'Read')).toBe(true);
    expect(cursorMatches('postToolUse', '(', '(')).toBe(true);
  });
});
