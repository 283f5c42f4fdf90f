// Installing the hook into Gemini CLI's settings (~/.gemini/settings.json) and reading back which hooks ran.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookConfigCache } from '../../collector/hooks-ran.ts';
import { type InstallTarget, install, isOurCommand, SettingsError, status, uninstall } from '../../collector/install/installer.ts';
import { AGENT_EVENTS, agentPresent, matcherMatches } from '../../collector/install/settings.ts';
import { GEMINI_FIXTURES } from '../helpers/gemini-fixtures.ts';
import { tempDir } from '../helpers/tmp.ts';

function setup(): { t: InstallTarget; file: string; original: string } {
  const home = tempDir();
  mkdirSync(join(home, '.gemini'));
  const file = join(home, '.gemini', 'settings.json');
  // As Gemini CLI writes its settings: JSON.stringify with two spaces.
  writeFileSync(file, `${JSON.stringify(JSON.parse(readFileSync(join(GEMINI_FIXTURES, 'settings.json'), 'utf8')), null, 2)}\n`);
  const t: InstallTarget = { agent: 'gemini', home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true };
  return { t, file, original: readFileSync(file, 'utf8') };
}

describe('Gemini CLI hook install', () => {
  it('registers every event it installs (ms timeout, no async, * on tool events) and keeps the rest; uninstall restores the file', () => {
    const { t, file, original } = setup();
    expect(AGENT_EVENTS.gemini).toEqual([
      'SessionStart',
      'BeforeAgent',
      'BeforeTool',
      'AfterTool',
      'AfterAgent',
      'Notification',
      'PreCompress',
      'SessionEnd',
    ]);
    const result = install(t);
    expect(result.written).toBe(true);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(original);
    for (const key of ['general', 'ui', 'model', 'security', 'mcpServers', 'hooksConfig']) expect(after[key]).toEqual(before[key]);
    expect(after.hooks.disabled).toEqual(before.hooks.disabled);
    expect(after.hooks.BeforeTool[0]).toEqual(before.hooks.BeforeTool[0]);
    for (const event of AGENT_EVENTS.gemini) {
      const ours = after.hooks[event].filter((g: { hooks: { command: string }[] }) => g.hooks.some((h) => isOurCommand(h.command)));
      expect(ours).toHaveLength(1);
      expect(ours[0].hooks[0]).toEqual({
        type: 'command',
        command: `'${join(t.agentmeterHome, 'bin', 'agentmeter-hook.sh')}' gemini${event === 'BeforeAgent' ? ' prompt' : ''}`,
        timeout: 10_000,
      });
      expect(ours[0].matcher).toBe(['BeforeTool', 'AfterTool'].includes(event) ? '*' : undefined);
    }
    // The hooks that fire per model call or per streamed chunk are left alone.
    for (const event of ['BeforeModel', 'AfterModel', 'BeforeToolSelection']) expect(after.hooks[event]).toBeUndefined();
    expect(install(t).changes).toEqual([]);
    expect(status(t)).toMatchObject({ missingEvents: [], outdatedEvents: [], blockers: [], scriptInstalled: true });
    expect(uninstall(t).written).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('says when Gemini would not run the hook', () => {
    const { t, file } = setup();
    install(t);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    json.hooksConfig.enabled = false;
    json.hooks.disabled.push(json.hooks.AfterTool.at(-1).hooks[0].command);
    writeFileSync(file, JSON.stringify(json, null, 2));
    expect(status(t).blockers).toEqual([
      'hooksConfig.enabled is false: Gemini CLI runs no hooks',
      'hooks.disabled lists the agentmeter hook',
    ]);
  });

  it('refuses a settings file with comments (Gemini reads them, JSON does not) and leaves it untouched', () => {
    const { t, file } = setup();
    writeFileSync(file, '{\n  // my settings\n  "ui": {"theme": "GitHub"}\n}\n');
    expect(() => install(t)).toThrow(SettingsError);
    expect(readFileSync(file, 'utf8')).toContain('// my settings');
  });

  it('finds Gemini CLI on the machine by its ~/.gemini folder', () => {
    const home = tempDir();
    expect(agentPresent('gemini', home)).toBe(false);
    mkdirSync(join(home, '.gemini'));
    expect(agentPresent('gemini', home)).toBe(true);
  });
});

describe('which Gemini hooks ran', () => {
  it('matches tool matchers as Gemini does (a regular expression found anywhere in the name)', () => {
    expect(matcherMatches('AfterTool', 'write', 'write_file', 'gemini')).toBe(true);
    expect(matcherMatches('AfterTool', 'write', 'write_file')).toBe(false);
    expect(matcherMatches('BeforeTool', 'write_file|replace', 'run_shell_command', 'gemini')).toBe(false);
  });

  it('lists the user’s hooks and ours for a Gemini event, with the agent’s own event name', () => {
    const { t } = setup();
    install(t);
    const cache = new HookConfigCache(t.home);
    const ran = cache.ran('gemini', undefined, 'BeforeTool', 'replace');
    expect(ran.map((h) => h.command)).toEqual([
      '$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh',
      "'~/.agentmeter/bin/agentmeter-hook.sh' gemini",
    ]);
    expect(cache.ran('gemini', undefined, 'BeforeTool', 'read_file').map((h) => h.matcher)).toEqual(['*']);
  });
});
