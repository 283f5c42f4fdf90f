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

/** The line of common/agents.ts that holds the table. */
const AGENTS_LINE =
  readFileSync(join(ROOT, 'common', 'agents.ts'), 'utf8')
    .split('\n')
    .findIndex((line) => line.startsWith('export const AGENTS = ')) + 1;

/** Every .ts file under a folder, relative to the root. */
const tsFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return ['node_modules', 'dist', 'fixtures'].includes(entry) ? [] : tsFiles(path);
    return entry.endsWith('.ts') ? [path] : [];
  });

/** The parts every agent's folder holds (common/agents.ts says what each is). */
const PARTS = ['index.ts', 'hooks.ts', 'otel.ts', 'sample.ts', 'fixtures'];

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

  it('is one row per folder: every folder under collector/agents/ is an agent of the table, with every part', () => {
    const agentsDir = join(ROOT, 'collector', 'agents');
    const folders = readdirSync(agentsDir).filter((entry) => statSync(join(agentsDir, entry)).isDirectory());
    expect(sorted(folders)).toEqual(sorted(AGENTS));
    for (const agent of AGENTS) {
      for (const part of PARTS) expect(existsSync(join(agentsDir, agent, part)), `collector/agents/${agent}/${part}`).toBe(true);
      const sources = readdirSync(join(agentsDir, agent, 'fixtures'), { recursive: true }).map(String);
      expect(
        sources.some((file) => file.endsWith('SOURCE.md')),
        `collector/agents/${agent}/fixtures: a SOURCE.md says where its files come from`,
      ).toBe(true);
    }
  });

  it("nothing outside an agent's folder names a module of it: the folder and the table are all there is", () => {
    // What reaches into a folder by its name. Each exception is a fact of its own: Claude Code's hook also
    // runs under VS Code's Copilot agent (claude/hosts.ts knows VS Code's tools); the state file's version 1
    // kept Codex's rollouts by path.
    const EXCEPTIONS = new Set([
      'collector/agents/claude/hosts.ts → collector/agents/copilot/tools.ts',
      'collector/state.ts → collector/agents/codex/paths.ts',
    ]);
    const folderOf = (file: string) => /^collector\/agents\/([^/]+)\//.exec(file)?.[1];
    const found: string[] = [];
    for (const top of ['api', 'cli', 'collector', 'common', 'computer', 'pipeline', 'readiness', 'sample-data', 'web']) {
      if (!existsSync(join(ROOT, top))) continue;
      for (const file of tsFiles(top)) {
        const text = readFileSync(join(ROOT, file), 'utf8');
        for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*['"`]([^'"`]+)['"`]/g)) {
          if (!spec!.startsWith('.')) continue;
          const module = relative(ROOT, join(ROOT, file, '..', spec!));
          const folder = folderOf(module);
          if (!folder || folder === folderOf(file) || folder.includes('$')) continue;
          const edge = `${file} → ${module}`;
          if (!EXCEPTIONS.has(edge)) found.push(edge);
        }
      }
    }
    expect(found).toEqual([]);
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
    expect(found).toEqual([`common/agents.ts:${AGENTS_LINE}`]);
  });
});
