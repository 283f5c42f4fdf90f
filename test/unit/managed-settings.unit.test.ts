// Managed (system-wide) settings: where each agent keeps them, and that the installer merges our hook
// into an existing policy file keeping every other key, with a shared hook script every user can run.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookCommand, type InstallTarget, install, SettingsError, sharedDirProblem, status, uninstall } from '../../hooks/installer.ts';
import { AGENT_EVENTS, managedSettingsLocation } from '../../hooks/settings.ts';
import { ROOT } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'managed', 'managed-settings.json');

function managedTarget(): { target: InstallTarget; file: string; hookPath: string } {
  const dir = tempDir();
  const file = join(dir, 'etc', 'claude-code', 'managed-settings.json');
  const hookPath = join(dir, 'usr', 'local', 'lib', 'agentmeter', 'agentmeter-hook.sh');
  const target: InstallTarget = {
    agent: 'claude',
    home: join(dir, 'home'),
    agentmeterHome: join(dir, 'home', 'custom-agentmeter'),
    defaultAgentmeterHome: false,
    settingsFile: file,
    hookPath,
  };
  return { target, file, hookPath };
}

describe('managed settings locations', () => {
  it('are the documented system paths of Claude Code and Droid on Linux, macOS and Windows', () => {
    expect(managedSettingsLocation('claude', 'linux')).toEqual({ file: '/etc/claude-code/managed-settings.json', topLevel: false });
    expect(managedSettingsLocation('claude', 'darwin').file).toBe('/Library/Application Support/ClaudeCode/managed-settings.json');
    expect(managedSettingsLocation('claude', 'win32').file).toBe('C:\\ProgramData\\ClaudeCode\\managed-settings.json');
    expect(managedSettingsLocation('droid', 'linux')).toEqual({ file: '/etc/factory/settings.json', topLevel: false });
    expect(managedSettingsLocation('droid', 'darwin').file).toBe('/Library/Application Support/Factory/settings.json');
    expect(managedSettingsLocation('droid', 'win32').file).toBe('C:\\Program Files\\Factory\\settings.json');
  });
});

describe('managed install', () => {
  it('names the shared script without AGENTMETER_HOME, so each user spools under their own home', () => {
    const { target, hookPath } = managedTarget();
    expect(hookCommand(target, 'Stop')).toBe(`'${hookPath}' claude`);
    expect(hookCommand(target, 'UserPromptSubmit')).toBe(`'${hookPath}' claude prompt`);
  });

  it('merges into an existing policy file, keeps every other key, and uninstalls back to it', () => {
    const { target, file, hookPath } = managedTarget();
    const original = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, unknown>;
    // The fixture in place, as an administrator's file.
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(FIXTURE, file);

    const dry = install(target, { dryRun: true });
    expect(dry.written).toBe(false);
    expect(dry.changes.filter((c) => c.action === 'add')).toHaveLength(AGENT_EVENTS.claude.length);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));

    const result = install(target);
    expect(result.written).toBe(true);
    expect(result.backup && readFileSync(result.backup, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
    const after = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & { hooks: Record<string, unknown[]> };
    for (const key of ['permissions', 'env', 'allowManagedHooksOnly', 'forceLoginMethod', 'cleanupPeriodDays'])
      expect(after[key]).toEqual(original[key]);
    // The organization's own hook stays beside ours.
    expect(JSON.stringify(after.hooks['PreToolUse'])).toContain('/usr/local/bin/corp-bash-guard');
    expect(JSON.stringify(after.hooks['PreToolUse'])).toContain(hookPath);
    // Every user reads the policy file and runs the script.
    expect(statSync(file).mode & 0o444).toBe(0o444);
    expect(statSync(hookPath).mode & 0o777).toBe(0o755);

    const s = status(target);
    expect(s.missingEvents).toEqual([]);
    expect(s.outdatedEvents).toEqual([]);
    expect(s.scriptInstalled).toBe(true);
    expect(install(target).changes).toEqual([]); // idempotent

    uninstall(target);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(original);
  });

  it('refuses a malformed policy file and leaves it untouched', () => {
    const { target, file } = managedTarget();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{ "permissions": { "deny": [ }');
    expect(() => install(target)).toThrow(SettingsError);
    expect(() => uninstall(target)).toThrow(SettingsError);
    expect(readFileSync(file, 'utf8')).toBe('{ "permissions": { "deny": [ }');
  });

  it('refuses a shared script folder anyone can write or reached through a link; creates missing folders 0755', () => {
    const open = managedTarget();
    const shared = join(dirname(open.file), '..', '..', 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const target = { ...open.target, hookPath: join(shared, 'agentmeter-hook.sh') };
    expect(() => install(target)).toThrow(/shared is writable by group or others/);
    expect(readdirSync(shared)).toEqual([]);
    expect(existsSync(open.file)).toBe(false);

    const linked = managedTarget();
    const real = join(dirname(linked.file), '..', '..', 'real');
    mkdirSync(real, { mode: 0o755 });
    symlinkSync(real, join(dirname(linked.file), '..', '..', 'link'));
    const viaLink = { ...linked.target, hookPath: join(dirname(linked.file), '..', '..', 'link', 'bin', 'agentmeter-hook.sh') };
    expect(() => install(viaLink)).toThrow(/link is a symbolic link/);
    expect(readdirSync(real)).toEqual([]);

    const fine = managedTarget();
    const lib = join(dirname(fine.hookPath), '..');
    mkdirSync(lib, { recursive: true });
    chmodSync(lib, 0o755);
    install(fine.target);
    expect(statSync(fine.hookPath).mode & 0o777).toBe(0o755);
    // Created by the installer 0755 whatever the umask, so every user can reach the script.
    expect(statSync(dirname(fine.hookPath)).mode & 0o777).toBe(0o755);
  });

  it('refuses a folder owned by another user (neither root nor us), and accepts a sticky /tmp above the script folder', () => {
    const dir = tempDir();
    const real = lstatSync(dir);
    const owned = (uid: number, mode: number) => Object.assign(Object.create(Object.getPrototypeOf(real)), real, { uid, mode });
    expect(sharedDirProblem(dir, owned(54321, 0o40755), true)).toMatch(/belongs to uid 54321/);
    expect(sharedDirProblem(dir, owned(0, 0o40755), true)).toBeUndefined();
    expect(sharedDirProblem(dir, owned(0, 0o41777), false)).toBeUndefined();
    expect(sharedDirProblem(dir, owned(0, 0o41777), true)).toMatch(/writable by group or others/);
    expect(sharedDirProblem(dir, owned(0, 0o40775), false)).toMatch(/writable by group or others/);
  });
});
