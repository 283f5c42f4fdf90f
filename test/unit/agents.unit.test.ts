// The agents are written once (common/agents.ts): the wire's AgentName, the installer's per-agent
// settings and the collector's adapters cover exactly those agents, and no other source spells the list
// out again (a second list is the one a new agent gets forgotten in).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_HOOKS } from '../../collector/agents/hooks-table.ts';
import { ADAPTERS } from '../../collector/agents/index.ts';
import {
  AGENT_BINARY,
  AGENT_EVENTS,
  AGENT_HOME_DIR,
  SUPPORTS_ASYNC,
  TIMEOUT_UNIT,
  userSettingsLocation,
} from '../../collector/install/settings.ts';
import { AGENTS } from '../../common/agents.ts';
import { AgentName } from '../../common/wire.ts';
import { ROOT } from '../helpers/processes.ts';

const sorted = (names: Iterable<string>) => [...names].sort();

describe('the list of agents', () => {
  it('is what the wire, the installer and the collector each cover, no more and no fewer', () => {
    expect(AgentName.options).toEqual([...AGENTS, 'unknown']);
    expect(sorted(Object.keys(ADAPTERS))).toEqual(sorted(AGENTS));
    for (const [name, adapter] of Object.entries(ADAPTERS)) expect(adapter.name).toBe(name);
    for (const perAgent of [AGENT_EVENTS, AGENT_HOME_DIR, AGENT_BINARY, SUPPORTS_ASYNC, TIMEOUT_UNIT])
      expect(sorted(Object.keys(perAgent))).toEqual(sorted(AGENTS));
    for (const agent of AGENTS) {
      expect(AGENT_EVENTS[agent].length).toBeGreaterThan(0);
      expect(userSettingsLocation(agent, '/home/dev').file.startsWith('/home/dev/')).toBe(true);
    }
  });

  it('has every part of every agent: its folder, hooks description, usage reader and state, vocabulary, page', () => {
    const home = '/home/dev';
    const cwd = '/home/dev/src/app';
    for (const agent of AGENTS) {
      const adapter = ADAPTERS[agent];
      const folder = join(ROOT, 'collector', 'agents', agent);
      for (const file of ['index.ts', 'hooks.ts', 'usage.ts', 'events.ts'])
        expect(existsSync(join(folder, file)), `${agent}/${file}`).toBe(true);
      expect(existsSync(join(ROOT, 'docs', 'agents', `${agent}.md`)), `docs/agents/${agent}.md`).toBe(true);
      const { hooks, usage, tools } = adapter;
      expect(hooks.events.length, agent).toBeGreaterThan(0);
      expect(hooks.homeDir.startsWith('.'), agent).toBe(true);
      const user = hooks.userSettings(home).file;
      expect(user.startsWith(`${home}/`), agent).toBe(true);
      // The file the installer writes is one whose hooks the collector reads as run.
      const files = hooks.hookFiles(home, cwd).map((f) => f.file);
      expect(files, agent).toContain(user);
      expect(
        files.some((f) => f.startsWith(`${cwd}/`)),
        `${agent}: project settings`,
      ).toBe(true);
      expect(hooks.settingsDir(home, {}).startsWith(`${home}/`), agent).toBe(true);
      if ('refused' in hooks.managed) expect(hooks.managed.refused, agent).toMatch(/\w/);
      else for (const path of Object.values(hooks.managed)) expect(path, agent).toMatch(/^(\/|[A-Z]:\\)/);
      // Its piece of the collector state: an empty one is what its schema reads back.
      expect(usage.state.parse(usage.empty()), agent).toEqual(usage.empty());
      expect(tools.writes('NoSuchTool', {}, {}), agent).toEqual([]);
      expect(adapter.otherHost({}, { hook_event_name: 'SessionStart', session_id: 's' }), agent).toBeUndefined();
    }
  });

  it("the installer's light table of hooks descriptions is each adapter's own", () => {
    for (const agent of AGENTS) expect(AGENT_HOOKS[agent], agent).toBe(ADAPTERS[agent].hooks);
  });

  it('is written in common/agents.ts only', () => {
    // Three or more agent names in a row, quoted and separated by commas or bars: an array, an enum or a
    // union of them. (Two in a row are data, such as the sample's users of two agents.)
    const name = `['"](?:${AGENTS.join('|')})['"]`;
    const list = new RegExp(`${name}(?:\\s*[,|]\\s*${name}){2,}`);
    const sources = (dir: string): string[] =>
      readdirSync(dir).flatMap((entry) => {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) return ['node_modules', 'dist', 'out'].includes(entry) ? [] : sources(path);
        return /\.(ts|tsx|mjs)$/.test(entry) ? [path] : [];
      });
    const folders = readdirSync(ROOT).filter(
      (entry) =>
        !entry.startsWith('.') &&
        !['node_modules', 'dist', 'test', 'data', 'docs'].includes(entry) &&
        statSync(join(ROOT, entry)).isDirectory(),
    );
    expect(folders).toEqual(expect.arrayContaining(['api', 'cli', 'collector', 'common', 'web']));
    const found = folders
      .flatMap((folder) => sources(join(ROOT, folder)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (list.test(line) ? [`${relative(ROOT, file)}:${i + 1}`] : [])),
      );
    expect(found).toEqual(['common/agents.ts:5']);
  });
});
