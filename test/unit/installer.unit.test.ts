import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type InstallTarget, install, isOurCommand, SettingsError, status, uninstall } from '../../collector/install/installer.ts';
import { AGENT_EVENTS } from '../../collector/install/settings.ts';
import { tempDir } from '../helpers/tmp.ts';

function target(agent: 'claude' | 'droid', extra: Partial<InstallTarget> = {}): InstallTarget {
  const home = tempDir();
  return { agent, home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true, ...extra };
}
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

const userHooks = {
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'validate.sh', timeout: 5, extra: 'kept' }] }],
  Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
  CustomEvent: [{ hooks: [{ type: 'command', command: 'x' }] }],
};

describe('hook installer', () => {
  it('registers every Claude Code event (matcher * on tool events, async except UserPromptSubmit) and keeps other settings', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    writeFileSync(file, JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(ls)'] }, hooks: userHooks }));
    const result = install(t);
    expect(result.written).toBe(true);
    expect(result.backup && existsSync(result.backup)).toBe(true);
    const after = read(file);
    expect(after.model).toBe('opus');
    expect(after.permissions).toEqual({ allow: ['Bash(ls)'] });
    expect(after.hooks.CustomEvent).toEqual(userHooks.CustomEvent);
    expect(after.hooks.PreToolUse[0]).toEqual(userHooks.PreToolUse[0]);
    expect(after.hooks.Stop[0]).toEqual(userHooks.Stop[0]);
    for (const event of AGENT_EVENTS.claude) {
      const ours = after.hooks[event].filter((g: { hooks: { command: string }[] }) => g.hooks.some((h) => isOurCommand(h.command)));
      expect(ours).toHaveLength(1);
      const entry = ours[0].hooks[0];
      expect(entry.command).toBe(
        `'${join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' claude${event === 'UserPromptSubmit' ? ' prompt' : ''}`,
      );
      expect(entry.async).toBe(event === 'UserPromptSubmit' ? undefined : true);
      expect(ours[0].matcher).toBe(['PreToolUse', 'PostToolUse', 'PostToolUseFailure'].includes(event) ? '*' : undefined);
    }
    expect(existsSync(join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh'))).toBe(true);
  });

  it('writes nothing through a link planted at its temporary names (settings file and hook script)', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    writeFileSync(file, JSON.stringify({ model: 'opus' }));
    const victim = join(t.home, 'victim.txt');
    writeFileSync(victim, 'untouched');
    // The names the installer writes before renaming (this process's pid, as in the installer).
    mkdirSync(join(t.agentmeterHome, 'bin'), { recursive: true });
    symlinkSync(victim, `${file}.agentmeter-tmp-${process.pid}`);
    symlinkSync(victim, `${join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh')}.tmp-${process.pid}`);
    expect(install(t).written).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(read(file).model).toBe('opus');
    expect(readFileSync(join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh'), 'utf8')).toContain('agentmeter');
  });

  it('is idempotent: a second install changes nothing and writes nothing', () => {
    const t = target('claude');
    install(t);
    const file = join(t.home, '.claude', 'settings.json');
    const before = readFileSync(file, 'utf8');
    const again = install(t);
    expect(again).toMatchObject({ changes: [], written: false });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(join(t.home, '.claude')).filter((f) => f.includes('backup'))).toHaveLength(0);
  });

  it('uninstall removes only ours and restores the meaning of the original file', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    const original = { theme: 'dark', hooks: userHooks };
    writeFileSync(file, JSON.stringify(original));
    install(t);
    const result = uninstall(t);
    expect(result.changes.length).toBe(AGENT_EVENTS.claude.length);
    expect(read(file)).toEqual(original);
    expect(uninstall(t).written).toBe(false);
  });

  it('Droid: hooks.json by default, settings.json when it already has hooks; no async', () => {
    const plain = target('droid');
    const r = install(plain);
    expect(r.file).toBe(join(plain.home, '.factory', 'hooks.json'));
    const written = read(r.file);
    expect(Object.keys(written.hooks).sort()).toEqual([...AGENT_EVENTS.droid].sort());
    expect(written.hooks.PostToolUse[0].hooks[0].async).toBeUndefined();

    const withSettings = target('droid');
    mkdirSync(join(withSettings.home, '.factory'));
    writeFileSync(join(withSettings.home, '.factory', 'settings.json'), JSON.stringify({ model: 'x', hooks: {} }));
    expect(install(withSettings).file).toBe(join(withSettings.home, '.factory', 'settings.json'));
    expect(read(join(withSettings.home, '.factory', 'settings.json')).model).toBe('x');
  });

  it('keeps a top-level hooks.json map at top level', () => {
    const t = target('droid');
    mkdirSync(join(t.home, '.factory'));
    const file = join(t.home, '.factory', 'hooks.json');
    writeFileSync(file, JSON.stringify({ Stop: [{ hooks: [{ type: 'command', command: 'beep' }] }] }));
    install(t);
    const after = read(file);
    expect(after.hooks).toBeUndefined();
    expect(after.Stop).toHaveLength(2);
  });

  it('a settings file that is a symbolic link (dotfiles) is refused and left a link, its target untouched', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    const dotfile = join(t.home, 'dotfiles-claude.json');
    const text = JSON.stringify({ model: 'opus' });
    writeFileSync(dotfile, text);
    symlinkSync(dotfile, file);
    expect(() => install(t)).toThrow(SettingsError);
    expect(() => install(t)).toThrow(`${file} is a symbolic link (to ${dotfile})`);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfile, 'utf8')).toBe(text);
    expect(readdirSync(join(t.home, '.claude'))).toEqual(['settings.json']);
    // Installed in the file it leads to, as the message says, the link stays and uninstall is refused too.
    expect(install({ ...t, settingsFile: dotfile }).written).toBe(true);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(() => uninstall(t)).toThrow(SettingsError);
    expect(status(t).installedEvents).toEqual(AGENT_EVENTS.claude);
  });

  it('a linked settings file is read through and refused only when it must change (an install there already, an uninstall of nothing)', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    const dotfile = join(t.home, 'dotfiles-claude.json');
    // Installed, then moved into the dotfiles and linked back (`stow --adopt`): the hook is already there.
    install({ ...t, settingsFile: dotfile });
    const text = readFileSync(dotfile, 'utf8');
    symlinkSync(dotfile, file);
    expect(install(t)).toMatchObject({ changes: [], written: false });
    // Another agent's folder holds a linked settings file with no hook of agentmeter's: nothing to take out.
    const other = target('droid');
    mkdirSync(join(other.home, '.factory'));
    writeFileSync(join(other.home, 'droid.json'), JSON.stringify({ hooks: {}, model: 'x' }));
    symlinkSync(join(other.home, 'droid.json'), join(other.home, '.factory', 'settings.json'));
    expect(uninstall(other)).toMatchObject({ changes: [], written: false });
    // Taking the hook out is a change: refused, naming the file to change instead; nothing moved.
    expect(() => uninstall(t)).toThrow(`To change that file instead, name it: --settings '${dotfile}'.`);
    expect(() => uninstall(t, { dryRun: true })).toThrow(SettingsError);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfile, 'utf8')).toBe(text);
    expect(uninstall({ ...t, settingsFile: dotfile }).written).toBe(true);
  });

  it('a settings link to a link (home-manager, stow into a linked folder): the message names the file at the end, which installs', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    mkdirSync(join(t.home, 'store'));
    const real = join(t.home, 'store', 'settings-source.json');
    writeFileSync(real, JSON.stringify({ model: 'opus' }));
    const generation = join(t.home, 'store', 'generation-settings.json');
    symlinkSync(real, generation);
    symlinkSync(generation, join(t.home, '.claude', 'settings.json'));
    expect(() => install(t)).toThrow(`--settings '${real}'.`);
    expect(install({ ...t, settingsFile: real }).written).toBe(true);
    expect(status(t).installedEvents).toEqual(AGENT_EVENTS.claude);
  });

  // Another user's home, simulated with chown when the tests run as root (as in CI).
  it.skipIf(process.getuid?.() !== 0)("as root, refuses another user's home: nothing there becomes root's", () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    writeFileSync(file, JSON.stringify({ model: 'opus' }), { mode: 0o600 });
    for (const path of [t.home, join(t.home, '.claude'), file]) chownSync(path, 12345, 12345);
    expect(() => install(t)).toThrow(SettingsError);
    expect(() => install(t)).toThrow(`${t.home} belongs to uid 12345 and this runs as root`);
    expect(() => uninstall(t)).toThrow(SettingsError);
    expect(readdirSync(t.home)).toEqual(['.claude']);
    expect(readdirSync(join(t.home, '.claude'))).toEqual(['settings.json']);
    expect(statSync(file).uid).toBe(12345);
    // A managed install (system files, for every user) is root's to make.
    const managedFile = join(tempDir(), 'managed-settings.json');
    const hookPath = join(tempDir(), 'agentmeter-hook.sh');
    expect(install({ ...t, settingsFile: managedFile, hookPath }).written).toBe(true);
  });

  // Another user's home, simulated with chown when the tests run as root (as in CI).
  it.skipIf(process.getuid?.() !== 0)("a managed install as root leaves the VS Code settings in another user's home theirs", () => {
    const home = tempDir();
    const dir = join(home, '.config', 'Code', 'User');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'settings.json');
    const text = '{\n  "editor.fontSize": 14\n}\n';
    writeFileSync(file, text);
    for (const path of [home, join(home, '.config'), join(home, '.config', 'Code'), dir, file]) chownSync(path, 12345, 12345);
    const policy = join(tempDir(), 'agentmeter.json');
    const managed: InstallTarget = {
      agent: 'copilot',
      home,
      agentmeterHome: join(home, '.agentmeter'),
      defaultAgentmeterHome: true,
      settingsFile: policy,
      hookPath: join(tempDir(), 'agentmeter-hook.sh'),
    };
    // `sudo … hooks install --agent copilot --managed` where sudo keeps HOME: the export is the user's own file.
    const withExport = { ...managed, otlpEndpoint: 'http://127.0.0.1:4318' };
    expect(() => install(withExport)).toThrow(`${file} belongs to uid 12345 and this runs as root`);
    expect(() => install(withExport)).toThrow('--no-otel');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).uid).toBe(12345);
    expect(readdirSync(dir)).toEqual(['settings.json']);
    expect(existsSync(policy)).toBe(false);
    // The hook alone is the system's file: installed.
    expect(install(managed).written).toBe(true);
  });

  it('--dry-run reports the change and writes nothing', () => {
    const t = target('claude');
    const result = install(t, { dryRun: true });
    expect(result.changes).toHaveLength(AGENT_EVENTS.claude.length);
    expect(existsSync(result.file)).toBe(false);
  });

  it('a malformed settings file is reported and never overwritten', () => {
    const t = target('claude');
    mkdirSync(join(t.home, '.claude'));
    const file = join(t.home, '.claude', 'settings.json');
    writeFileSync(file, '{ "hooks": { oops');
    expect(() => install(t)).toThrow(SettingsError);
    expect(readFileSync(file, 'utf8')).toBe('{ "hooks": { oops');
    writeFileSync(file, JSON.stringify({ hooks: { Stop: 'not-a-list' } }));
    expect(() => install(t)).toThrow(/does not understand/);
  });

  it('an outdated entry of ours (moved AGENTMETER_HOME) is updated in place', () => {
    const t = target('claude');
    install(t);
    const moved = { ...t, agentmeterHome: join(t.home, 'elsewhere'), defaultAgentmeterHome: false };
    expect(status(moved).outdatedEvents).toHaveLength(AGENT_EVENTS.claude.length);
    const result = install(moved);
    expect(result.changes.every((c) => c.action === 'update')).toBe(true);
    const file = join(t.home, '.claude', 'settings.json');
    expect(read(file).hooks.Stop[0].hooks[0].command).toBe(
      `AGENTMETER_HOME='${moved.agentmeterHome}' '${join(moved.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' claude`,
    );
    expect(status(moved)).toMatchObject({ missingEvents: [], outdatedEvents: [] });
  });
});
