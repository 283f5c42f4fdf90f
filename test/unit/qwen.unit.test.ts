// Qwen Code: installer shape, event derivation and usage reading, on the fixtures of
// collector/agents/qwen/fixtures/ (SOURCE.md names where each shape comes from and works the figures out).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHook } from '../../cli/doctor/checks.ts';
import { probeHook } from '../../cli/doctor/probe.ts';
import { qwenAutonomy, qwenCanonicalEvent } from '../../collector/agents/qwen/events.ts';
import { findQwenChatFile } from '../../collector/agents/qwen/paths.ts';
import { QWEN_TOOLS, writeFileCreated } from '../../collector/agents/qwen/tools.ts';
import { QWEN_USAGE, qwenCallsFromLines, qwenTokens, readQwenUsage } from '../../collector/agents/qwen/usage.ts';
import { pieceOf } from '../../collector/agents/types.ts';
import { toWireEvent } from '../../collector/events.ts';
import { type InstallTarget, install, isOurCommand, status, uninstall } from '../../collector/install/installer.ts';
import { AGENT_EVENTS, agentPresent, HookCommand } from '../../collector/install/settings.ts';
import { emptyState } from '../../collector/state.ts';
import type { WireRecord } from '../../common/wire.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { tempDir } from '../helpers/tmp.ts';
import { filesOf } from '../helpers/writes.ts';

const FIXTURES = agentFixtures('qwen');
const chatLines = (name: string) =>
  readFileSync(join(FIXTURES, 'chats', `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const payload = (path: string) => JSON.parse(readFileSync(join(FIXTURES, 'payloads', path), 'utf8')) as Record<string, unknown>;

function target(extra: Partial<InstallTarget> = {}): InstallTarget {
  const home = tempDir();
  return { agent: 'qwen', home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true, ...extra };
}

describe('Qwen Code installer', () => {
  it('registers every event in ~/.qwen/settings.json with a 10 000 ms timeout, async except UserPromptSubmit, and restores the file byte for byte', () => {
    const t = target();
    mkdirSync(join(t.home, '.qwen'));
    const file = join(t.home, '.qwen', 'settings.json');
    const original = readFileSync(join(FIXTURES, 'settings.json'), 'utf8');
    writeFileSync(file, original);
    expect(install(t).written).toBe(true);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    // The hooks section's own settings and the user's hook are kept; MCP servers and the rest too.
    expect(after.hooks.disabled).toEqual([]);
    expect(after.hooks.PreToolUse[0].hooks[0].command).toBe('$HOME/.qwen/hooks/guard.sh');
    expect(after.mcpServers.github.command).toBe('github-mcp-server');
    expect(
      Object.keys(after.hooks)
        .filter((k) => k !== 'disabled')
        .sort(),
    ).toEqual([...AGENT_EVENTS.qwen].sort());
    for (const event of AGENT_EVENTS.qwen) {
      const groups = after.hooks[event] as { matcher?: string; hooks: Record<string, unknown>[] }[];
      const ours = groups.filter((g) => g.hooks.some((h) => isOurCommand(h['command'] as string)));
      expect(ours).toHaveLength(1);
      const entry = HookCommand.parse(ours[0]!.hooks[0]);
      expect(entry.timeout).toBe(10_000);
      expect(entry.async).toBe(event === 'UserPromptSubmit' ? undefined : true);
      expect(entry.command).toBe(
        `'${join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' qwen${event === 'UserPromptSubmit' ? ' prompt' : ''}`,
      );
      const tool = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest'].includes(event);
      expect(ours[0]!.matcher).toBe(tool ? '*' : undefined);
    }
    // MessageDisplay fires every ~200 ms while a reply streams: never registered.
    expect(after.hooks.MessageDisplay).toBeUndefined();
    expect(install(t).changes).toEqual([]);
    const s = status(t);
    expect(s.missingEvents).toEqual([]);
    expect(s.outdatedEvents).toEqual([]);
    expect(s.blockers).toEqual([]);
    expect(uninstall(t).written).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('status says when a settings switch keeps Qwen Code from running the hook', () => {
    const t = target();
    mkdirSync(join(t.home, '.qwen'));
    const file = join(t.home, '.qwen', 'settings.json');
    install(t);
    const installed = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...installed, disableAllHooks: true }));
    expect(status(t).blockers).toEqual([expect.stringMatching(/disableAllHooks/)]);
    writeFileSync(file, JSON.stringify({ ...installed, hooks: { ...installed.hooks, enabled: false } }));
    expect(status(t).blockers).toEqual([expect.stringMatching(/hooks\.enabled/)]);
    const command = installed.hooks.Stop[0].hooks[0].command as string;
    writeFileSync(file, JSON.stringify({ ...installed, hooks: { ...installed.hooks, disabled: [command] } }));
    expect(status(t).blockers).toEqual([expect.stringMatching(/hooks\.disabled/)]);
    // The settings keys stay settings: an uninstall keeps them and removes only our hook.
    uninstall(t);
    expect(JSON.parse(readFileSync(file, 'utf8')).hooks).toEqual({ disabled: [command] });
  });

  it('doctor checks the Qwen Code hook once ~/.qwen exists', () => {
    const t = target();
    const options = { home: t.home, agentmeterHome: t.agentmeterHome, defaultAgentmeterHome: true };
    const managed = join(t.home, 'no-managed-settings.json');
    expect(checkHook(probeHook('qwen', options, managed), '/usr/bin/agentmeter').ok).toBe(true);
    mkdirSync(join(t.home, '.qwen'));
    expect(checkHook(probeHook('qwen', options, managed), '/usr/bin/agentmeter')).toMatchObject({
      ok: false,
      fix: '/usr/bin/agentmeter hooks install --agent qwen',
    });
    install(t);
    expect(checkHook(probeHook('qwen', options, managed), '/usr/bin/agentmeter').ok).toBe(true);
  });

  it('agentPresent: Qwen Code is present when ~/.qwen is a folder', () => {
    const home = tempDir();
    expect(agentPresent('qwen', home)).toBe(false);
    writeFileSync(join(home, '.qwen'), 'not a folder');
    expect(agentPresent('qwen', home)).toBe(false);
    const other = tempDir();
    mkdirSync(join(other, '.qwen'));
    expect(agentPresent('qwen', other)).toBe(true);
    expect(agentPresent('claude', other)).toBe(false);
  });
});

describe('Qwen Code events', () => {
  it('maps approval modes as docs/metrics.md §1 says, auto as auto-medium, anything else as manual', () => {
    expect(['yolo', 'auto', 'auto_edit', 'plan', 'default', 'bypassPermissions', undefined].map(qwenAutonomy)).toEqual([
      'auto-high',
      'auto-medium',
      'auto-low',
      'spec',
      'manual',
      'manual',
      'manual',
    ]);
  });

  it('counts a UserPromptSubmit as a user turn only when it carries submitted_prompt', () => {
    expect(qwenCanonicalEvent('UserPromptSubmit', payload('q1/02-user-prompt-submit.json') as never)).toBe('UserPromptSubmit');
    expect(qwenCanonicalEvent('UserPromptSubmit', payload('q1/05-user-prompt-submit-continuation.json') as never)).toBe(
      'ModelPromptSubmit',
    );
    expect(qwenCanonicalEvent('PostToolUse', payload('q1/04-post-tool-use-shell.json') as never)).toBe('PostToolUse');
  });

  it('takes a slash command from what the person typed (submitted_prompt), not the expanded prompt', () => {
    const body = Buffer.from(
      JSON.stringify({
        ...payload('q1/02-user-prompt-submit.json'),
        prompt: 'Review the following change carefully ...',
        submitted_prompt: '/review src/login.ts',
      }),
    );
    const result = toWireEvent(
      { name: 'n', header: { agent: 'qwen' }, body, truncated: false, mtimeMs: 1_800_000_000_000 },
      'm',
      undefined,
    );
    expect(result.kind === 'ok' && result.value.record).toMatchObject({ event: 'UserPromptSubmit', slash_command: 'review' });
  });

  it('reads its tool vocabulary: shell, files created and edited, skill, MCP', () => {
    const files = (name: string) => {
      const p = payload(`q1/${name}.json`);
      return filesOf('qwen', p['tool_name'] as string, p['tool_input'], p['tool_response']);
    };
    expect(files('07-post-tool-use-write-file')).toEqual([{ ext: 'ts', op: 'create' }]);
    expect(files('08-post-tool-use-edit')).toEqual([{ ext: 'md', op: 'edit' }]);
    expect(files('04-post-tool-use-shell')).toEqual([]);
    // write_file over an existing file, said in text only or in the diff display.
    expect(writeFileCreated({ llmContent: 'Successfully overwrote file: /r/a.ts.' })).toBe(false);
    expect(writeFileCreated({ llmContent: 'Successfully created and wrote to new file: /r/a.ts.' })).toBe(true);
    expect(writeFileCreated({ returnDisplay: { originalContent: 'x' } })).toBe(false);
    expect(writeFileCreated({ returnDisplay: { originalContent: null } })).toBe(true);
    // The message wins over a display that gives a new file an empty original.
    expect(
      writeFileCreated({ llmContent: 'Successfully created and wrote to new file: /r/a.ts.', returnDisplay: { originalContent: '' } }),
    ).toBe(true);
    expect(writeFileCreated(undefined)).toBe(false);
    expect(filesOf('qwen', 'edit', { file_path: '/r/new.py', old_string: '', new_string: 'x' }, {})).toEqual([{ ext: 'py', op: 'create' }]);
    expect(QWEN_TOOLS.shellCommand('run_shell_command', { command: 'git commit -m x' })).toBe('git commit -m x');
    expect(QWEN_TOOLS.shellCommand('Bash', { command: 'ls' })).toBeUndefined();
    expect(QWEN_TOOLS.isShell('run_shell_command')).toBe(true);
    expect(QWEN_TOOLS.skill('skill', { skill: 'pdf' })).toBe('pdf');
    expect(QWEN_TOOLS.mcp('mcp__GitHub__get_issue', {} as never)).toEqual({ server: 'GitHub', tool: 'get_issue' });
  });

  it('turns the fixture payloads into wire events: commit, PR, MCP, files, autonomy, the continuation not a turn', () => {
    const derived = readdirSync(join(FIXTURES, 'payloads', 'q1'))
      .sort()
      .map((name, i) => {
        const body = readFileSync(join(FIXTURES, 'payloads', 'q1', name));
        const result = toWireEvent(
          { name: `n${i}`, header: { agent: 'qwen', client: '' }, body, truncated: false, mtimeMs: 1_800_000_000_000 + i },
          'm',
          undefined,
        );
        if (result.kind !== 'ok') throw new Error(`${name}: ${result.kind}`);
        return result.value.record;
      });
    const calls = derived.filter((e) => e.event === 'PostToolUse' || e.event === 'PostToolUseFailure');
    expect(calls).toHaveLength(8);
    expect(derived.filter((e) => e.event === 'UserPromptSubmit')).toHaveLength(1);
    expect(derived.filter((e) => e.event === 'ModelPromptSubmit')).toHaveLength(1);
    expect(calls.filter((e) => e.git_commit)).toHaveLength(1);
    expect(calls.filter((e) => e.pr_created)).toHaveLength(1);
    expect(calls.filter((e) => e.is_shell)).toHaveLength(4);
    expect(calls.find((e) => e.mcp_server)?.mcp_server).toBe('GitHub');
    expect(calls.find((e) => e.skill)?.skill).toBe('pdf');
    expect(calls.flatMap((e) => e.files ?? [])).toEqual([
      { ext: 'ts', op: 'create' },
      { ext: 'md', op: 'edit' },
    ]);
    const levels = calls.map((e) => e.autonomy);
    expect(levels.filter((l) => l === 'auto-high')).toHaveLength(3);
    expect(levels.filter((l) => l === 'auto-medium')).toHaveLength(1);
    expect(levels.filter((l) => l === 'auto-low')).toHaveLength(3);
    expect(levels.filter((l) => l === 'manual')).toHaveLength(1);
    expect(calls.find((e) => e.event === 'PostToolUseFailure')?.tool_success).toBe(false);
    expect(derived.every((e) => e.agent === 'qwen' && e.client === 'terminal-ui')).toBe(true);
  });
});

describe('Qwen Code usage', () => {
  it('maps usageMetadata: cached tokens out of input, thoughts into output unless the total already holds them', () => {
    const meta = (m: Record<string, number>) => ({
      promptTokenCount: 0,
      candidatesTokenCount: 0,
      thoughtsTokenCount: 0,
      cachedContentTokenCount: 0,
      ...m,
    });
    expect(
      qwenTokens(meta({ promptTokenCount: 12000, candidatesTokenCount: 400, cachedContentTokenCount: 8000, totalTokenCount: 12400 })),
    ).toEqual({
      input: 4000,
      output: 400,
      cacheRead: 8000,
      thinking: 0,
    });
    // Gemini's way: total = prompt + candidates + thoughts.
    expect(
      qwenTokens(
        meta({
          promptTokenCount: 15000,
          candidatesTokenCount: 250,
          thoughtsTokenCount: 150,
          cachedContentTokenCount: 11000,
          totalTokenCount: 15400,
        }),
      ),
    ).toEqual({
      input: 4000,
      output: 400,
      cacheRead: 11000,
      thinking: 150,
    });
    // An OpenAI-compatible provider's completion_tokens holds the reasoning: total = prompt + candidates.
    expect(qwenTokens(meta({ promptTokenCount: 2000, candidatesTokenCount: 300, thoughtsTokenCount: 100, totalTokenCount: 2300 }))).toEqual(
      {
        input: 2000,
        output: 300,
        cacheRead: 0,
        thinking: 100,
      },
    );
    // No total: thoughts are taken as separate.
    expect(qwenTokens(meta({ promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3 })).output).toBe(8);
    // More cached than prompt (a provider's quirk) never makes input negative.
    expect(qwenTokens(meta({ promptTokenCount: 10, cachedContentTokenCount: 50 })).input).toBe(0);
  });

  it('one call per assistant record; user, tool-result and telemetry records are not calls', () => {
    const { calls, problems } = qwenCallsFromLines(chatLines('q1'));
    expect(problems).toEqual([]);
    expect(calls.map((c) => c.uuid.slice(-2))).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(calls[3]!.tokens).toBeUndefined();
    expect(qwenCallsFromLines(['not json', '{"type":"assistant"}']).problems).toHaveLength(2);
  });

  it('a record appended again as it changes counts once, with its final (largest) usage, at its first time', () => {
    const record = (timestamp: string, candidatesTokenCount: number | undefined) =>
      JSON.stringify({
        uuid: 'u-1',
        sessionId: 'q9',
        timestamp,
        type: 'assistant',
        model: 'qwen3-coder-plus',
        ...(candidatesTokenCount === undefined
          ? {}
          : {
              usageMetadata: {
                promptTokenCount: 1000,
                candidatesTokenCount,
                cachedContentTokenCount: 200,
                totalTokenCount: 1000 + candidatesTokenCount,
              },
            }),
      });
    // Written first without usage, then with part of it, then with all of it: one drain sees every copy.
    const { calls } = qwenCallsFromLines([
      record('2026-11-10T09:00:09.000Z', undefined),
      record('2026-11-10T09:00:09.500Z', 5),
      record('2026-11-10T09:00:10.000Z', 60),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ ts: Date.parse('2026-11-10T09:00:09.000Z'), tokens: { input: 800, output: 60, cacheRead: 200 } });
  });

  it('reads each chat once, and a /branch copy yields the same record ids as its original', () => {
    const home = tempDir();
    const chats = join(home, '.qwen', 'projects', '-home-dev-repo', 'chats');
    mkdirSync(chats, { recursive: true });
    for (const name of ['q1', 'q2']) copyFileSync(join(FIXTURES, 'chats', `${name}.jsonl`), join(chats, `${name}.jsonl`));
    const state = emptyState();
    const read = (session: string): WireRecord[] =>
      readQwenUsage({ sessionId: session, latestTs: 0, transcriptPaths: new Set([join(chats, `${session}.jsonl`)]) }, state, home).records;
    const first = read('q1');
    const usage = first.filter((r) => r.kind === 'usage');
    expect(
      usage.map((r) => [r.id.slice(-2), r.kind === 'usage' && [r.input_tokens, r.output_tokens, r.cache_read_tokens, r.thinking]]),
    ).toEqual([
      ['a1', [4000, 400, 8000, false]],
      ['a2', [4000, 400, 11000, true]],
      ['a3', [2000, 300, 0, true]],
    ]);
    expect(first.filter((r) => r.kind === 'message')).toHaveLength(4);
    expect(
      usage.every(
        (r) =>
          r.id.startsWith('qwen:') &&
          r.session_id === 'q1' &&
          r.ts ===
            Date.parse(
              chatLines('q1')
                .map((l) => JSON.parse(l))
                .find((j) => `qwen:${j.uuid}` === r.id).timestamp,
            ),
      ),
    ).toBe(true);
    expect(read('q1')).toEqual([]);
    const branched = read('q2');
    const ids = new Set(first.map((r) => r.id));
    // The copies keep the original ids (the server keeps one of each); only b1 is new.
    expect(branched.filter((r) => !ids.has(r.id)).map((r) => `${r.kind}:${r.id.slice(-2)}`)).toEqual(['usage:b1', 'message:b1']);
    // State is one offset per chat, never a list of uuids.
    expect(Object.keys(pieceOf(state.agents, 'qwen', QWEN_USAGE).transcripts)).toHaveLength(2);
    // Without a transcript path the chat is found by session id under ~/.qwen/projects.
    expect(findQwenChatFile(home, 'q2')).toBe(join(chats, 'q2.jsonl'));
    expect(findQwenChatFile(home, '../q2')).toBeUndefined();
  });

  it('finds the chat by session id when the payload names a chat that is not there', () => {
    const home = tempDir();
    const chats = join(home, '.qwen', 'projects', '-home-dev-repo', 'chats');
    mkdirSync(chats, { recursive: true });
    copyFileSync(join(FIXTURES, 'chats', 'q1.jsonl'), join(chats, 'q1.jsonl'));
    const state = emptyState();
    const touch = { sessionId: 'q1', latestTs: 0, transcriptPaths: new Set([join(home, 'elsewhere', 'q1.jsonl')]) };
    const result = readQwenUsage(touch, state, home);
    expect(result.records.filter((r) => r.kind === 'usage')).toHaveLength(3);
    expect(result.problems).toEqual([]);
    expect(Object.keys(pieceOf(state.agents, 'qwen', QWEN_USAGE).transcripts)).toEqual([join(chats, 'q1.jsonl')]);
    // Nothing anywhere: said once, nothing shipped.
    const none = readQwenUsage({ ...touch, sessionId: 'q9', transcriptPaths: new Set([join(home, 'x.jsonl')]) }, state, home);
    expect(none.records).toEqual([]);
    expect(none.problems).toEqual([`qwen chat ${join(home, 'x.jsonl')} is not readable`]);
  });
});
