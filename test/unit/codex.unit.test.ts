// Codex CLI adapter on the fixtures of collector/agents/codex/fixtures (see SOURCE.md there for the shapes and
// the hand-worked figures): rollout usage as per-call deltas, the tool vocabulary, headless from the
// rollout, the installer on a real-looking hooks.json, and the trust status read from config.toml.
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkHook } from '../../cli/doctor/checks.ts';
import { probeHook } from '../../cli/doctor/probe.ts';
import { codexHeadless, sessionSourceOf } from '../../collector/agents/codex/events.ts';
import { findCodexRollout } from '../../collector/agents/codex/paths.ts';
import { CODEX_TOOLS, codexShellCommand } from '../../collector/agents/codex/tools.ts';
import { codexEventLabel, codexHookKeys, trustStates } from '../../collector/agents/codex/trust.ts';
import { codexDelta, codexRecordsFromLines, readCodexUsage } from '../../collector/agents/codex/usage.ts';
import { toWireEvent } from '../../collector/events.ts';
import { HookConfigCache } from '../../collector/hooks-ran.ts';
import { install, isOurCommand, SettingsError, status, uninstall } from '../../collector/install/installer.ts';
import { AGENT_EVENTS, agentPresent, userSettingsLocation } from '../../collector/install/settings.ts';
import { emptyState } from '../../collector/state.ts';
import type { WireHookEvent } from '../../common/wire.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { tempDir } from '../helpers/tmp.ts';
import { filesOf } from '../helpers/writes.ts';

const FIXTURES = agentFixtures('codex');
const S1 = '019aa1b2-7c3e-7d41-9b5e-3f2a6c8d9e01';
const S2 = '019aa1c4-0b6f-7a22-8e1d-5c7b9a0f1d22';
const R1 = `rollout-2026-11-20T10-00-00-${S1}.jsonl`;
const R2 = `rollout-2026-11-20T14-30-00-${S2}.jsonl`;
const fixtureLines = (name: string) => readFileSync(join(FIXTURES, name), 'utf8').trim().split('\n');
const ms = (iso: string) => Date.parse(iso);

/** A temporary HOME with the fixtures' rollouts at their Codex paths. */
function codexHomeWithRollouts(): { home: string; r1: string; r2: string } {
  const home = tempDir();
  const day = join(home, '.codex', 'sessions', '2026', '11', '20');
  mkdirSync(day, { recursive: true });
  copyFileSync(join(FIXTURES, R1), join(day, R1));
  copyFileSync(join(FIXTURES, R2), join(day, R2));
  return { home, r1: join(day, R1), r2: join(day, R2) };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Codex rollout usage', () => {
  it('turns cumulative token_count totals into one record per call, skipping repeated totals', () => {
    const { records, state, problems } = codexRecordsFromLines(S1, fixtureLines(R1), { totals: null, messages: 0, sessionId: S1 });
    expect(problems).toEqual([]);
    expect(records.filter((r) => r.kind === 'usage')).toEqual([
      {
        kind: 'usage',
        id: `codex:${S1}:12000:8000:600:200`,
        agent: 'codex',
        session_id: S1,
        ts: ms('2026-11-20T10:00:08.020Z'),
        model: 'gpt-5.5',
        input_tokens: 4000,
        output_tokens: 600,
        cache_read_tokens: 8000,
        cache_write_tokens: 0,
        thinking_tokens: 200,
        thinking: true,
      },
      {
        kind: 'usage',
        id: `codex:${S1}:30000:24000:1500:500`,
        agent: 'codex',
        session_id: S1,
        ts: ms('2026-11-20T10:02:50.600Z'),
        model: 'gpt-5.5',
        input_tokens: 2000,
        output_tokens: 900,
        cache_read_tokens: 16000,
        cache_write_tokens: 0,
        thinking_tokens: 300,
        thinking: true,
      },
      {
        kind: 'usage',
        id: `codex:${S1}:35000:28000:1700:500`,
        agent: 'codex',
        session_id: S1,
        ts: ms('2026-11-20T10:05:59.000Z'),
        model: 'gpt-5.4-mini',
        input_tokens: 1000,
        output_tokens: 200,
        cache_read_tokens: 4000,
        cache_write_tokens: 0,
        thinking_tokens: 0,
        thinking: false,
      },
    ]);
    expect(records.filter((r) => r.kind === 'message').map((r) => [r.id, r.ts, (r as { model?: string }).model])).toEqual([
      [`codex:${S1}:msg_0a1b2c3d`, ms('2026-11-20T10:02:50.500Z'), 'gpt-5.5'],
      [`codex:${S1}:m2`, ms('2026-11-20T10:05:59.100Z'), 'gpt-5.4-mini'],
    ]);
    expect(state).toEqual({
      totals: { input: 35000, cached: 28000, output: 1700, reasoning: 500 },
      model: 'gpt-5.4-mini',
      messages: 2,
      sessionId: S1,
      owner: S1,
    });
  });

  it("a forked session's rollout names the copied calls as the original does: each call counts once across both files", () => {
    const S3 = '019aa1d0-5a1b-7c2d-8e3f-4a5b6c7d8e03';
    const empty = (sessionId: string) => ({ totals: null, messages: 0, sessionId });
    const parent = codexRecordsFromLines(S1, fixtureLines(R1), empty(S1)).records;
    const fork = codexRecordsFromLines(S3, fixtureLines(`rollout-2026-11-20T11-00-00-${S3}.jsonl`), empty(S3)).records;
    const parentIds = parent.filter((r) => r.kind === 'usage').map((r) => r.id);
    const forkUsage = fork.filter((r) => r.kind === 'usage');
    // The three copied calls carry the parent's ids (the server keeps one of each, at the earlier time) ...
    expect(forkUsage.slice(0, 3).map((r) => r.id)).toEqual(parentIds);
    expect(forkUsage.slice(0, 3).map((r) => (r as { input_tokens: number }).input_tokens)).toEqual([4000, 2000, 1000]);
    // ... and the fork's own call is new: the difference from the totals it inherited.
    expect(forkUsage[3]).toMatchObject({
      id: `codex:${S1}:40000:30000:2000:600`,
      session_id: S3,
      ts: ms('2026-11-20T11:00:30.000Z'),
      model: 'gpt-5.5',
      input_tokens: 3000,
      cache_read_tokens: 2000,
      output_tokens: 300,
      thinking_tokens: 100,
    });
    expect(forkUsage).toHaveLength(4);
    // Assistant messages likewise, those without an id of their own too (named by their place among the
    // parent's): the copies count once across both files, the fork's own message is new.
    const parentMessages = parent.filter((r) => r.kind === 'message').map((r) => r.id);
    expect(parentMessages).toEqual([`codex:${S1}:msg_0a1b2c3d`, `codex:${S1}:m2`]);
    expect(fork.filter((r) => r.kind === 'message').map((r) => r.id)).toEqual([...parentMessages, `codex:${S1}:msg_f0r4e1`]);
  });

  it("a fork's own id-less messages are new, not the parent's later ones at the same place (turn ids)", () => {
    // Real rollouts write no id on assistant messages (collector/agents/codex/fixtures/oracle: 0 of 375) and
    // a turn id on every turn_context. A parent with one turn, forked; then each goes on with a turn of its own.
    const P = '019c0000-0000-7000-8000-00000000000a';
    const F = '019c0000-0000-7000-8000-00000000000b';
    const line = (ts: string, type: string, payload: object) => JSON.stringify({ timestamp: `2026-11-21T${ts}Z`, type, payload });
    const meta = (id: string) => line('09:00:00.000', 'session_meta', { id, source: 'cli' });
    const turn = (ts: string, id: string) => line(ts, 'turn_context', { turn_id: id, model: 'gpt-5.5' });
    const answer = (ts: string, text: string) =>
      line(ts, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
    const total = (ts: string, input: number) =>
      line(ts, 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0 } },
      });
    const shared = [meta(P), turn('09:00:01.000', 'turn-1'), answer('09:00:05.000', 'Done.'), total('09:00:05.100', 1000)];
    const home = tempDir();
    const day = join(home, '.codex', 'sessions', '2026', '11', '21');
    mkdirSync(day, { recursive: true });
    const parentPath = join(day, `rollout-2026-11-21T09-00-00-${P}.jsonl`);
    const forkPath = join(day, `rollout-2026-11-21T10-00-00-${F}.jsonl`);
    writeFileSync(parentPath, `${[...shared, turn('11:00:00.000', 'turn-2p'), answer('11:00:04.000', 'Parent.')].join('\n')}\n`);
    writeFileSync(forkPath, `${[meta(F), ...shared, turn('10:00:00.000', 'turn-2f'), answer('10:00:03.000', 'Fork.')].join('\n')}\n`);
    const messages = (sessionId: string, path: string) =>
      readCodexUsage({ sessionId, latestTs: 0, transcriptPaths: new Set([path]) }, emptyState(), home).records.filter(
        (r) => r.kind === 'message',
      );
    const parent = messages(P, parentPath);
    const fork = messages(F, forkPath);
    expect(parent).toHaveLength(2);
    expect(fork).toHaveLength(2);
    // The copied answer is the parent's (one count); the fork's own answer is a second message, not the parent's.
    expect(fork[0]!.id).toBe(parent[0]!.id);
    expect(new Set([...parent, ...fork].map((r) => r.id)).size).toBe(3);
  });

  it('a total that went down starts the count over', () => {
    expect(codexDelta({ input: 10, cached: 5, output: 3, reasoning: 1 }, { input: 4, cached: 0, output: 2, reasoning: 0 })).toEqual({
      input: 4,
      cached: 0,
      output: 2,
      reasoning: 0,
    });
  });

  it('reads a growing rollout incrementally: each call once across readings, and a re-read after a crash yields the same ids', () => {
    const { home } = codexHomeWithRollouts();
    const path = join(home, '.codex', 'sessions', '2026', '11', '20', R1);
    const lines = fixtureLines(R1);
    writeFileSync(path, `${lines.slice(0, 9).join('\n')}\n`);
    const state = emptyState();
    const session = { sessionId: S1, latestTs: 0, transcriptPaths: new Set([path]) };
    const saved = structuredClone(state);
    const first = readCodexUsage(session, state, home);
    expect(first.problems).toEqual([]);
    expect(first.records.map((r) => r.id)).toEqual([`codex:${S1}:12000:8000:600:200`]);
    appendFileSync(path, `${lines.slice(9).join('\n')}\n`);
    const second = readCodexUsage(session, state, home);
    expect(second.records.map((r) => r.id)).toEqual([
      `codex:${S1}:msg_0a1b2c3d`,
      `codex:${S1}:30000:24000:1500:500`,
      `codex:${S1}:35000:28000:1700:500`,
      `codex:${S1}:m2`,
    ]);
    expect(readCodexUsage(session, state, home).records).toEqual([]);
    // The state was never saved (a crash before the server acknowledged): the same records, the same ids.
    const again = readCodexUsage(session, saved, home);
    expect(again.records).toEqual([...first.records, ...second.records]);
  });

  it('a rollout replaced by a longer one is read from its start with its own totals, not diffed against the old', () => {
    const { home, r1 } = codexHomeWithRollouts();
    // The old file: R2 up to its first total (5000 in, 0 cached, 300 out, 100 reasoning).
    const path = join(home, '.codex', 'sessions', '2026', '11', '20', R2);
    writeFileSync(path, `${fixtureLines(R2).slice(0, 5).join('\n')}\n`);
    const state = emptyState();
    const session = { sessionId: S2, latestTs: 0, transcriptPaths: new Set([path]) };
    expect(readCodexUsage(session, state, home).records.map((r) => r.id)).toEqual([`codex:${S2}:5000:0:300:100`]);
    // R1 takes the name: its every total is above the old one's, so only knowing the file changed tells
    // its first call (12000 in, 8000 of them cached) from a call of 7000 more after the old total.
    writeFileSync(`${path}.new`, readFileSync(r1));
    renameSync(`${path}.new`, path);
    const replaced = readCodexUsage(session, state, home);
    expect(replaced.problems).toEqual([]);
    // What the same file gives read whole into a fresh state.
    const fresh = readCodexUsage({ ...session, transcriptPaths: new Set([r1]) }, emptyState(), home);
    expect(replaced.records).toEqual(fresh.records);
    const first = replaced.records.find((r) => r.kind === 'usage');
    expect(first).toMatchObject({ id: `codex:${S1}:12000:8000:600:200`, input_tokens: 4000, cache_read_tokens: 8000, output_tokens: 600 });
  });

  it('finds the rollout by session id when the payload names none, and reports a compressed one instead of skipping it', () => {
    const { home, r2 } = codexHomeWithRollouts();
    expect(findCodexRollout(home, S2)).toBe(r2);
    const found = readCodexUsage({ sessionId: S2, latestTs: 0, transcriptPaths: new Set() }, emptyState(), home);
    expect(found.records.filter((r) => r.kind === 'usage').map((r) => r.id)).toEqual([`codex:${S2}:5000:0:300:100`]);
    const zst = join(home, '.codex', 'sessions', '2026', '11', '20', `rollout-2026-11-20T16-00-00-${S1}.jsonl.zst`);
    writeFileSync(zst, Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
    const compressed = readCodexUsage({ sessionId: S1, latestTs: 0, transcriptPaths: new Set([zst]) }, emptyState(), home);
    expect(compressed.records).toEqual([]);
    expect(compressed.problems[0]).toMatch(/zstd-compressed.*not counted/);
    const none = readCodexUsage({ sessionId: 'no-such-session', latestTs: 0, transcriptPaths: new Set() }, emptyState(), home);
    expect(none.problems).toEqual(['no Codex rollout found for session no-such-session: its usage is not counted']);
  });
});

describe('Codex tools and headless', () => {
  it('apply_patch: Add File creates, Update File edits (under its new name when moved), Delete File neither', () => {
    const patch =
      '*** Begin Patch\n*** Add File: src/a.ts\n+x\n*** Update File: README.md\n@@\n-a\n+b\n*** Update File: notes.txt\n*** Move to: lib/new.py\n*** Delete File: gone.txt\n*** End Patch\n';
    expect(filesOf('codex', 'apply_patch', patch, 'Success.')).toEqual([
      { ext: 'ts', op: 'create' },
      { ext: 'md', op: 'edit' },
      { ext: 'py', op: 'edit' },
    ]);
    expect(filesOf('codex', 'apply_patch', { command: patch }, 'Success.')).toHaveLength(3);
    expect(filesOf('codex', 'Bash', { command: patch }, '')).toEqual([]);
    // The same patch through the shell, as models also send it.
    expect(filesOf('codex', 'Bash', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${patch}EOF`] }, '')).toHaveLength(3);
    expect(filesOf('codex', 'Bash', { command: 'cat notes/apply_patch.md' }, '')).toEqual([]);
  });

  it('Bash is the shell (a string or an argv array), MCP tools name their server, nothing is a skill', () => {
    expect(codexShellCommand({ command: 'git commit -m x' })).toBe('git commit -m x');
    expect(codexShellCommand({ command: ['bash', '-lc', 'git commit -m x'] })).toBe('git commit -m x');
    expect(CODEX_TOOLS.isShell('Bash')).toBe(true);
    expect(CODEX_TOOLS.isShell('apply_patch')).toBe(false);
    expect(CODEX_TOOLS.mcp('mcp__GitHub__search_issues', { hook_event_name: 'PostToolUse', session_id: 's' })).toEqual({
      server: 'GitHub',
      tool: 'search_issues',
    });
    expect(CODEX_TOOLS.skill('Skill', { skill: 'x' })).toBeUndefined();
  });

  it('headless when the rollout says source "exec" (codex exec), not for the interactive CLI', () => {
    const { r1, r2 } = codexHomeWithRollouts();
    expect(sessionSourceOf(fixtureLines(R2)[0]!)).toBe('exec');
    expect(codexHeadless({}, { hook_event_name: 'Stop', session_id: S2, transcript_path: r2 })).toBe(true);
    expect(codexHeadless({}, { hook_event_name: 'Stop', session_id: S1, transcript_path: r1 })).toBe(false);
    expect(codexHeadless({}, { hook_event_name: 'Stop', session_id: S1, transcript_path: null })).toBe(false);
    // The hook saw `codex exec` among its ancestors: headless before the rollout says anything.
    expect(codexHeadless({ codex_exec: '1' }, { hook_event_name: 'SessionStart', session_id: S1, transcript_path: null })).toBe(true);
  });

  it('derives the hand-worked facts from every fixture payload', () => {
    const { home, r1, r2 } = codexHomeWithRollouts();
    const derive = (file: string) =>
      fixtureLines(file).map((line, i) => {
        const { time, payload } = JSON.parse(line.replaceAll('/home/dev', home)) as { time: string; payload: Record<string, unknown> };
        const body = Buffer.from(JSON.stringify(payload));
        const result = toWireEvent({ name: `n${i}`, header: { agent: 'codex', time }, body, mtimeMs: 0, truncated: false }, 'm', undefined);
        if (result.kind !== 'ok') throw new Error(`${file}:${i + 1}: ${JSON.stringify(result)}`);
        expect(result.value.context.transcriptPaths).toEqual([file.includes('exec') ? r2 : r1]);
        return result.value.record;
      });
    const events: WireHookEvent[] = [...derive('hooks-interactive.jsonl'), ...derive('hooks-exec.jsonl')] as WireHookEvent[];
    const calls = events.filter((e) => e.event === 'PostToolUse');
    expect(calls.map((e) => e.tool_name)).toEqual(['Bash', 'apply_patch', 'Bash', 'Bash', 'mcp__GitHub__search_issues', 'Bash']);
    expect(calls.map((e) => e.autonomy)).toEqual(['manual', 'auto-low', 'auto-low', 'auto-low', 'manual', 'auto-medium']);
    expect(calls.flatMap((e) => e.files ?? [])).toEqual([
      { ext: 'ts', op: 'create' },
      { ext: 'md', op: 'edit' },
      { ext: 'py', op: 'edit' },
    ]);
    expect(calls.filter((e) => e.git_commit)).toHaveLength(1);
    expect(calls.filter((e) => e.pr_created)).toHaveLength(1);
    expect(calls.filter((e) => e.is_shell)).toHaveLength(4);
    expect(calls.find((e) => e.mcp_server)?.mcp_server).toBe('GitHub');
    expect(events.find((e) => e.event === 'SubagentStart')).toMatchObject({
      agent_id: '019aa1b3-1111-7000-8000-00000000aa01',
      agent_type: 'worker',
    });
    // The codex exec session is non-interactive from its first event on; the interactive one is the terminal UI.
    expect(new Set(events.filter((e) => e.session_id === S2).map((e) => e.client))).toEqual(new Set(['non-interactive-cli']));
    expect(new Set(events.filter((e) => e.session_id === S1).map((e) => e.client))).toEqual(new Set(['terminal-ui']));
    expect(events.map((e) => e.event)).toContain('PermissionRequest');
  });

  it('accepts transcript_path null (a session without a rollout): the event counts, no usage is looked for there', () => {
    const body = Buffer.from(
      JSON.stringify({ session_id: S1, transcript_path: null, cwd: '/w', hook_event_name: 'Stop', model: 'gpt-5.5' }),
    );
    const result = toWireEvent({ name: 'n', header: { agent: 'codex' }, body, mtimeMs: 1, truncated: false }, 'm', undefined);
    expect(result).toMatchObject({ kind: 'ok', value: { record: { agent: 'codex', event: 'Stop' }, context: { transcriptPaths: [] } } });
  });
});

describe('Codex hook installer and trust', () => {
  function codexHome() {
    const home = tempDir();
    const dir = join(home, 'codex-home');
    mkdirSync(dir, { recursive: true });
    // CODEX_HOME moves every Codex file: the installer and the presence check follow it.
    vi.stubEnv('CODEX_HOME', dir);
    copyFileSync(join(FIXTURES, 'hooks.json'), join(dir, 'hooks.json'));
    const config = readFileSync(join(FIXTURES, 'config.toml'), 'utf8').replaceAll('/home/dev/.codex', dir);
    writeFileSync(join(dir, 'config.toml'), config);
    return { home, dir, target: { agent: 'codex' as const, home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true } };
  }

  it('installs every Codex event into $CODEX_HOME/hooks.json, keeps the user hooks, and uninstalls byte for byte', () => {
    const { home, dir, target } = codexHome();
    expect(agentPresent('codex', home)).toBe(true);
    expect(userSettingsLocation('codex', home)).toEqual({ file: join(dir, 'hooks.json'), topLevel: false });
    const before = readFileSync(join(dir, 'hooks.json'), 'utf8');
    const configBefore = readFileSync(join(dir, 'config.toml'), 'utf8');
    expect(install(target).changes.filter((c) => c.action === 'add')).toHaveLength(AGENT_EVENTS.codex.length);
    const after = JSON.parse(readFileSync(join(dir, 'hooks.json'), 'utf8'));
    expect(after.hooks.PreToolUse[0]).toEqual(JSON.parse(before).hooks.PreToolUse[0]);
    expect(after.hooks.PostToolUse).toEqual([
      {
        matcher: '*',
        hooks: [
          { type: 'command', command: `'${join(target.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' codex`, timeout: 10, async: true },
        ],
      },
    ]);
    expect(after.hooks.UserPromptSubmit[0].hooks[0]).toEqual({
      type: 'command',
      command: `'${join(target.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' codex prompt`,
      timeout: 10,
    });
    expect(install(target).changes).toEqual([]);
    uninstall(target);
    expect(readFileSync(join(dir, 'hooks.json'), 'utf8')).toBe(before);
    // Trust lives in config.toml, which agentmeter reads and never writes.
    expect(readFileSync(join(dir, 'config.toml'), 'utf8')).toBe(configBefore);
  });

  it('a dry run writes nothing, and a malformed hooks.json is refused and left as it was', () => {
    const { dir, target } = codexHome();
    const before = readFileSync(join(dir, 'hooks.json'), 'utf8');
    expect(install(target, { dryRun: true }).changes).toHaveLength(AGENT_EVENTS.codex.length);
    expect(readFileSync(join(dir, 'hooks.json'), 'utf8')).toBe(before);
    writeFileSync(join(dir, 'hooks.json'), '{"hooks": {"Stop": [');
    expect(() => install(target)).toThrow(SettingsError);
    expect(readFileSync(join(dir, 'hooks.json'), 'utf8')).toBe('{"hooks": {"Stop": [');
  });

  it('reports installed hooks as untrusted until Codex records their trust, and disabled ones as disabled', () => {
    const { dir, target } = codexHome();
    install(target);
    const untrusted = status(target);
    expect(untrusted.missingEvents).toEqual([]);
    expect(new Set(Object.values(untrusted.trust!.byEvent))).toEqual(new Set(['untrusted']));
    expect(untrusted.trust!.hint).toMatch(/\/hooks/);
    // The doctor says so too, with how to trust them: an installed hook Codex skips loses every event.
    const doctor = checkHook(
      probeHook('codex', { home: target.home, agentmeterHome: target.agentmeterHome, defaultAgentmeterHome: true }),
      'agentmeter',
    );
    expect(doctor.ok).toBe(false);
    expect(doctor.detail).toContain('Codex skips the agentmeter hook where it is not trusted');
    expect(doctor.fix).toBe(untrusted.trust!.hint);
    // What Codex's /hooks review writes when the user trusts them: one entry per hook key.
    const hooks = JSON.parse(readFileSync(join(dir, 'hooks.json'), 'utf8')).hooks;
    const keys = codexHookKeys(join(dir, 'hooks.json'), hooks, isOurCommand);
    expect(keys.get('PreToolUse')).toBe(`${join(dir, 'hooks.json')}:pre_tool_use:1:0`);
    expect(keys.get('Stop')).toBe(`${join(dir, 'hooks.json')}:stop:1:0`);
    const entries = [...keys.values()].map((key) => `\n[hooks.state."${key}"]\ntrusted_hash = "sha256:abc"\n`).join('');
    appendFileSync(join(dir, 'config.toml'), entries);
    expect(new Set(Object.values(status(target).trust!.byEvent))).toEqual(new Set(['trusted']));
    expect(
      checkHook(
        probeHook('codex', { home: target.home, agentmeterHome: target.agentmeterHome, defaultAgentmeterHome: true }),
        'agentmeter',
      ),
    ).toMatchObject({
      ok: true,
    });
    expect(trustStates(new Map([['Stop', 'k']]), { k: { enabled: false, trusted_hash: 'sha256:abc' } })).toEqual({ Stop: 'disabled' });
    // Codex canonicalizes a CODEX_HOME it is given: a link to the folder still finds the same trust keys.
    const link = join(dir, '..', 'codex-link');
    symlinkSync(dir, link);
    vi.stubEnv('CODEX_HOME', link);
    expect(new Set(Object.values(status(target).trust!.byEvent))).toEqual(new Set(['trusted']));
    vi.stubEnv('CODEX_HOME', dir);
    writeFileSync(join(dir, 'config.toml'), 'model = [');
    expect(status(target).trust!.problem).toMatch(/not valid TOML/);
  });

  it("counts the hooks that ran from hooks.json and from config.toml's [hooks] tables, with PermissionRequest matched on its tool", () => {
    const { home, dir, target } = codexHome();
    install(target);
    appendFileSync(
      join(dir, 'config.toml'),
      '\n[[hooks.PermissionRequest]]\nmatcher = "^Bash$"\n\n[[hooks.PermissionRequest.hooks]]\ntype = "command"\ncommand = "audit-permission.sh"\n',
    );
    const cache = new HookConfigCache(home);
    const ran = (event: string, tool?: string) => cache.ran('codex', undefined, event, tool).map((h) => h.command);
    expect(ran('PermissionRequest', 'Bash')).toEqual([expect.stringContaining('agentmeter-hook.sh'), 'audit-permission.sh']);
    expect(ran('PermissionRequest', 'NetworkAccess')).toEqual([expect.stringContaining('agentmeter-hook.sh')]);
    expect(ran('PreToolUse', 'Bash')).toEqual([
      'python3 ~/.codex/hooks/block_force_push.py',
      expect.stringContaining('agentmeter-hook.sh'),
    ]);
    // Through the event derivation: a PermissionRequest names its tool in the payload.
    const body = Buffer.from(
      JSON.stringify({
        session_id: S1,
        transcript_path: null,
        cwd: '/w',
        hook_event_name: 'PermissionRequest',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      }),
    );
    const result = toWireEvent({ name: 'n', header: { agent: 'codex' }, body, mtimeMs: 1, truncated: false }, 'm', cache);
    expect(result.kind === 'ok' && result.value.record.hooks?.map((h) => h.command)).toEqual([
      expect.stringContaining('agentmeter-hook.sh'),
      'audit-permission.sh',
    ]);
  });

  it("names events as Codex's hook keys do", () => {
    expect(codexEventLabel('UserPromptSubmit')).toBe('user_prompt_submit');
    expect(codexEventLabel('PostToolUse')).toBe('post_tool_use');
    expect(codexEventLabel('SubagentStart')).toBe('subagent_start');
  });
});
