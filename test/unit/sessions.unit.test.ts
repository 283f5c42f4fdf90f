import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVE_WINDOW_MS, type ComputerTimes, computerStatus, provisioningSteps } from '../../api/computers/status.ts';
import { sessionStatus, sessionUsage, titleFrom, ZERO_USAGE } from '../../api/sessions/derive.ts';
import { SessionSettingsInput, SessionSettingsPatch } from '../../api/sessions/schema.ts';
import { agentArgs, resolveExecutable, splitCommand } from '../../computer/command.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('agent command', () => {
  it('splits words, quotes and escapes without a shell', () => {
    expect(splitCommand('droid exec')).toEqual(['droid', 'exec']);
    expect(splitCommand('  claude   -p  ')).toEqual(['claude', '-p']);
    expect(splitCommand(`sh "/path with spaces/agent.sh" --flag='a b' x\\ y ""`)).toEqual([
      'sh',
      '/path with spaces/agent.sh',
      '--flag=a b',
      'x y',
      '',
    ]);
    expect(splitCommand(`echo "say \\"hi\\"" 'it''s'`)).toEqual(['echo', 'say "hi"', 'its']);
    expect(() => splitCommand('droid "exec')).toThrow('unclosed "');
  });

  it('puts the model flag, then "--" and the text last; the text never becomes shell syntax or an option', () => {
    const text = 'fix it; rm -rf / $(whoami) `id`';
    expect(agentArgs(['droid', 'exec'], { text, model: 'gpt-5', modelFlag: '--model', input: 'arg' })).toEqual([
      'exec',
      '--model',
      'gpt-5',
      '--',
      text,
    ]);
    expect(agentArgs(['claude', '-p'], { text, model: null, modelFlag: '--model', input: 'arg' })).toEqual(['-p', '--', text]);
    expect(
      agentArgs(['claude', '-p'], { text: '--dangerously-skip-permissions', model: null, modelFlag: '--model', input: 'arg' }),
    ).toEqual(['-p', '--', '--dangerously-skip-permissions']);
    expect(agentArgs(['claude', '-p'], { text, model: 'opus', modelFlag: '', input: 'stdin' })).toEqual(['-p']);
    expect(agentArgs(['droid', 'exec'], { text: '--auto high', model: null, modelFlag: '--model', input: 'stdin' })).toEqual(['exec']);
  });

  it('finds executables on PATH or by path, and says why not', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'agent'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bin', 'agent'), 0o755);
    writeFileSync(join(dir, 'bin', 'plain'), 'not executable');
    expect(resolveExecutable('agent', join(dir, 'bin'))).toEqual({ path: join(dir, 'bin', 'agent') });
    expect(resolveExecutable(join(dir, 'bin', 'agent'), '')).toEqual({ path: join(dir, 'bin', 'agent') });
    expect(resolveExecutable('plain', join(dir, 'bin'))).toEqual({ error: 'plain not found on PATH' });
    expect(resolveExecutable(join(dir, 'bin'), '')).toEqual({ error: `${join(dir, 'bin')} is not an executable file` });
  });
});

describe('computer status', () => {
  const registered: ComputerTimes = { created_ms: 1000, checks_ms: null, checks_error: null, first_seen_ms: null, last_seen_ms: null };
  it('provisioning until the agent connects, active while it is heard from, error when checks fail or it goes quiet', () => {
    expect(computerStatus(registered, 5000)).toEqual({ status: 'provisioning' });
    const connected = { ...registered, checks_ms: 2000, first_seen_ms: 2000, last_seen_ms: 3000 };
    expect(computerStatus(connected, 3000 + ACTIVE_WINDOW_MS)).toEqual({ status: 'active' });
    expect(computerStatus(connected, 3001 + ACTIVE_WINDOW_MS)).toEqual({
      status: 'error',
      reason: 'no connection from the computer agent since 1970-01-01T00:00:03.000Z',
    });
    expect(computerStatus({ ...connected, checks_error: 'agent command: droid not found on PATH' }, 3000)).toEqual({
      status: 'error',
      reason: 'agent command: droid not found on PATH',
    });
  });
  it('lists the steps with their times and errors', () => {
    expect(provisioningSteps(registered, 5000).map((s) => [s.id, s.status])).toEqual([
      ['register', 'completed'],
      ['checks', 'pending'],
      ['connect', 'pending'],
    ]);
    const failed = provisioningSteps(
      { ...registered, checks_ms: 2000, checks_error: 'default directory: /x does not exist', first_seen_ms: 2000, last_seen_ms: 2000 },
      2500,
    );
    expect(failed[1]).toEqual({
      id: 'checks',
      name: expect.any(String),
      status: 'failed',
      error: 'default directory: /x does not exist',
      startedAt: 2000,
    });
    expect(failed[2]).toMatchObject({ id: 'connect', status: 'completed', completedAt: 2000 });
  });
});

describe('session derivations', () => {
  it('status: running beats waiting beats idle', () => {
    expect(sessionStatus({ running: 0, waiting: 0 })).toBe('idle');
    expect(sessionStatus({ running: 0, waiting: 2 })).toBe('pending');
    expect(sessionStatus({ running: 1, waiting: 2 })).toBe('running');
  });
  it('title: the first non-empty line, cut on a word near 80 characters', () => {
    expect(titleFrom('\n  Fix the build  \nmore')).toBe('Fix the build');
    expect(titleFrom('   \n ')).toBeUndefined();
    const long = 'Refactor the session store so that every query runs through one place and the routes stay thin and readable';
    expect(titleFrom(long)).toBe('Refactor the session store so that every query runs through one place and the…');
    expect(titleFrom('x'.repeat(100))).toBe(`${'x'.repeat(80)}…`);
  });
  it('usage: primary agent sessions are the own usage; the others are children, added into the inclusive figure', () => {
    const u = (n: number) => ({ ...ZERO_USAGE, inputTokens: n, serviceCredits: n * 2 });
    const result = sessionUsage([
      { agentSessionId: 'main', primary: true, usage: u(10) },
      { agentSessionId: 'sub-b', primary: false, usage: u(3) },
      { agentSessionId: 'main-2', primary: true, usage: u(5) },
      { agentSessionId: 'sub-a', primary: false, usage: u(1) },
    ]);
    expect(result.tokenUsage).toEqual(u(15));
    expect(result.inclusiveTokenUsage).toEqual(u(19));
    expect(Object.keys(result.childInclusiveTokenUsageBySessionId)).toEqual(['sub-a', 'sub-b']);
    expect(sessionUsage([])).toEqual({ tokenUsage: ZERO_USAGE, inclusiveTokenUsage: ZERO_USAGE, childInclusiveTokenUsageBySessionId: {} });
  });
  it('settings: response-only fields are refused by name; PATCH takes null to remove a field', () => {
    expect(SessionSettingsInput.safeParse({ model: 'm', tags: [{ name: 't' }] }).success).toBe(true);
    const refused = SessionSettingsInput.safeParse({ tokenUsage: {} });
    expect(refused.success).toBe(false);
    expect(refused.error!.issues[0]!.message).toContain('computed by the server');
    expect(SessionSettingsInput.safeParse({ archivedAt: null }).success).toBe(false);
    expect(SessionSettingsPatch.parse({ archivedAt: null, model: 'm' })).toEqual({ archivedAt: null, model: 'm' });
    expect(SessionSettingsPatch.safeParse({ unknown: 1 }).success).toBe(false);
  });
});
