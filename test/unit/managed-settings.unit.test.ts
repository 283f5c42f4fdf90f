// Managed (system-wide) settings: where each agent keeps them, and that the installer merges our hook
// into an existing policy file keeping every other key, with a shared hook script every user can run.
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHook } from '../../cli/doctor/checks.ts';
import { probeHook } from '../../cli/doctor/probe.ts';
import {
  hookCommand,
  type InstallTarget,
  install,
  installSharedScript,
  SettingsError,
  sharedFolderProblem,
  status,
  uninstall,
} from '../../collector/install/installer.ts';
import { AGENT_EVENTS, managedSettingsLocation } from '../../collector/install/settings.ts';
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

describe('managed settings files as written', () => {
  // The whole file a fresh managed install writes, per agent, at the Linux and the macOS location (the
  // macOS one has a space in it); @HOOK@ stands for the shared script's path.
  for (const agent of ['claude', 'droid'] as const)
    for (const platform of ['linux', 'darwin'] as const) {
      it(`${agent} on ${platform}: ${managedSettingsLocation(agent, platform).file}`, () => {
        const root = tempDir();
        const file = join(root, managedSettingsLocation(agent, platform).file);
        const hookPath = join(root, 'usr', 'local', 'lib', 'agentmeter', 'agentmeter-hook.sh');
        const target: InstallTarget = {
          agent,
          home: join(root, 'home'),
          agentmeterHome: join(root, 'home', '.agentmeter'),
          defaultAgentmeterHome: true,
          settingsFile: file,
          hookPath,
        };
        // An administrator's umask 077 must not make the policy file unreadable to the users' agents.
        const umask = process.umask(0o077);
        try {
          install(target);
        } finally {
          process.umask(umask);
        }
        const expected = readFileSync(join(ROOT, 'test', 'fixtures', 'managed', `written-${agent}.json`), 'utf8').replaceAll(
          '@HOOK@',
          hookPath,
        );
        expect(readFileSync(file, 'utf8')).toBe(expected);
        expect(statSync(file).mode & 0o777).toBe(0o644);
      });
    }
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
});

describe("the shared hook script's folder", () => {
  // Every user's agent runs the script: whoever can change its folder could put their code in all of them.
  it('is refused where its group or every user can write, and nothing is written', () => {
    for (const [mode, says] of [
      [0o777, 'is writable by every user'],
      [0o1777, 'is writable by every user'],
    ] as const) {
      const { target, file, hookPath } = managedTarget();
      const folder = dirname(hookPath);
      mkdirSync(folder, { recursive: true });
      chmodSync(folder, mode);
      expect(() => install(target)).toThrow(`${folder} ${says}`);
      expect(existsSync(hookPath)).toBe(false);
      expect(existsSync(file)).toBe(false);
    }
    // An ancestor everyone writes, without the sticky bit: another user could rename the folder away.
    const { target, hookPath } = managedTarget();
    const above = dirname(dirname(hookPath));
    mkdirSync(above, { recursive: true });
    chmodSync(above, 0o777);
    expect(() => install(target)).toThrow(`${above} is writable by every user`);
    expect(() => install(target, { dryRun: true })).toThrow('--hook-path');
  });

  it('may sit below a sticky folder everyone writes (as /tmp is), in a folder of its own', () => {
    const { target, hookPath } = managedTarget();
    const above = dirname(dirname(hookPath));
    mkdirSync(above, { recursive: true });
    chmodSync(above, 0o1777);
    install(target);
    expect(statSync(hookPath).mode & 0o777).toBe(0o755);
    expect(sharedFolderProblem(dirname(hookPath), process.getuid!())).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)("is refused in another user's folder, or below one (as root, as in CI)", () => {
    const { target, hookPath } = managedTarget();
    const folder = dirname(hookPath);
    mkdirSync(folder, { recursive: true });
    chownSync(folder, 65534, 65534);
    expect(() => install(target)).toThrow(`${folder} belongs to uid 65534`);
    // A link to it from a folder of root's: the folder as the link resolves is judged too.
    const { target: linked, hookPath: linkedPath } = managedTarget();
    mkdirSync(dirname(dirname(linkedPath)), { recursive: true });
    symlinkSync(folder, dirname(linkedPath));
    expect(() => install(linked)).toThrow(`${folder} belongs to uid 65534`);
    expect(existsSync(join(folder, 'agentmeter-hook.sh'))).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)("is refused writable by its group, root's too: an access list's mask shows there", () => {
    // `setfacl -m u:65534:rwx` on a root:root 0755 folder leaves its mode 0775 and lets uid 65534 write.
    const { target, hookPath } = managedTarget();
    const folder = dirname(hookPath);
    mkdirSync(folder, { recursive: true });
    chownSync(folder, 0, 0);
    chmodSync(folder, 0o775);
    expect(() => install(target)).toThrow(`${folder} is writable by its group (gid 0) or users its access list names`);
    expect(existsSync(hookPath)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)('is judged again when the script is copied: a folder made by another user meanwhile', () => {
    // install() judged the path before another user (below /tmp, say) made the folder; mkdir finds it there.
    const { hookPath } = managedTarget();
    const folder = dirname(hookPath);
    mkdirSync(folder, { recursive: true });
    chownSync(folder, 65534, 65534);
    expect(() => installSharedScript(hookPath)).toThrow(SettingsError);
    expect(() => installSharedScript(hookPath)).toThrow(`${folder} belongs to uid 65534`);
    expect(existsSync(hookPath)).toBe(false);
  });

  it('is refused, with the reason, when it is a link that leads nowhere', () => {
    const { target, hookPath } = managedTarget();
    const folder = dirname(hookPath);
    mkdirSync(dirname(folder), { recursive: true });
    symlinkSync(join(dirname(folder), 'gone'), folder);
    expect(() => install(target, { dryRun: true })).toThrow(`${folder} is a link that leads nowhere`);
  });
});

describe('doctor and a shared hook folder an install made before it was judged', () => {
  it('fails the hook check, naming the folder, while another user can change it', () => {
    const { target, file, hookPath } = managedTarget();
    install(target);
    const options = { home: target.home, agentmeterHome: target.agentmeterHome, defaultAgentmeterHome: false };
    expect(checkHook(probeHook('claude', options, file), '/usr/bin/agentmeter')).toMatchObject({ ok: true });
    const folder = dirname(hookPath);
    expect(status(target).unsafeFolder).toBeUndefined();
    chmodSync(folder, 0o777);
    // hooks status --managed says so too.
    expect(status(target).unsafeFolder).toBe(`${folder} is writable by every user`);
    const verdict = checkHook(probeHook('claude', options, file), '/usr/bin/agentmeter');
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toBe(
      `the hook in ${file} runs ${hookPath}, in a folder another user can change (${folder} is writable by every user): they could run their own code in every user's agent`,
    );
    expect(verdict.fix).toBe(
      `sudo /usr/bin/agentmeter hooks install --agent claude --managed --hook-path /opt/agentmeter/agentmeter-hook.sh (a folder only root can write), then remove ${hookPath}`,
    );
  });

  it.skipIf(process.getuid?.() !== 0)('fails it for a folder of a user who does not own the managed file (as root, as in CI)', () => {
    const { target, file, hookPath } = managedTarget();
    install(target);
    const options = { home: target.home, agentmeterHome: target.agentmeterHome, defaultAgentmeterHome: false };
    chownSync(dirname(hookPath), 65534, 65534);
    expect(checkHook(probeHook('claude', options, file), '/usr/bin/agentmeter')).toMatchObject({
      ok: false,
      detail: expect.stringContaining(`${dirname(hookPath)} belongs to uid 65534`),
    });
    // The file's owner could change the hook's command anyway: a folder of theirs is no more than that.
    chownSync(file, 65534, 65534);
    expect(checkHook(probeHook('claude', options, file), '/usr/bin/agentmeter').ok).toBe(true);
  });
});
