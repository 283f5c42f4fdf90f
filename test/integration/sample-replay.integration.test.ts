// The sample replay's hook driver (sample-data/replay.ts): the real hook script, installed by the real
// installer, run by one long-lived sh per replay worker. What reaches the spool and the agent's files must be
// exactly what the plan says, whatever characters it holds, and a failing step must fail the replay.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { install, installedScriptPath } from '../../collector/install/installer.ts';
import { parseSpoolFile, spoolDirs } from '../../collector/spool.ts';
import type { PlannedEvent } from '../../sample-data/generator.ts';
import { ProjectRepos } from '../../sample-data/project-repos.ts';
import { HookDriver, segmentScript, segments } from '../../sample-data/replay.ts';
import { tempDir } from '../helpers/tmp.ts';

// Quotes, a percent sign, backslashes, a line break, `$(…)` and a here-document's end marker: each one
// would change the bytes if the shell or printf interpreted it.
const AWKWARD = `it's 100% "quoted" \\n \\\\ $(touch pwned) \`x\`\nAGENTMETER_SAMPLE_EVENT_END\n%s%d`;

function userHome() {
  const home = tempDir();
  const agentmeterHome = join(home, '.agentmeter');
  install({ agent: 'claude', home, agentmeterHome, defaultAgentmeterHome: true });
  return { home, agentmeterHome, script: installedScriptPath(agentmeterHome) };
}

const event = (at: number, payload: Record<string, unknown>, before: PlannedEvent['before'] = []): PlannedEvent => ({
  at,
  agent: 'claude',
  env: { CLAUDE_CODE_ENTRYPOINT: 'cli', AGENTMETER_CLIENT: "we'b" },
  payload,
  before,
});

function spooled(agentmeterHome: string) {
  const dirs = spoolDirs(agentmeterHome);
  return readdirSync(dirs.new).map((name) => {
    const parsed = parseSpoolFile(name, readFileSync(join(dirs.new, name)), 0);
    if (parsed.kind !== 'ok') throw new Error(`${name} is not a hook's spool file`);
    return parsed.value;
  });
}

describe('sample replay hook driver', () => {
  it('each event reaches the spool through the real hook with its payload, time and client; file writes are byte-exact', async () => {
    const { home, agentmeterHome, script } = userHome();
    mkdirSync(join(home, '.claude', 'projects', 'p'), { recursive: true });
    const transcript = '.claude/projects/p/s.jsonl';
    const events = [
      event(Date.UTC(2026, 2, 1, 9), { hook_event_name: 'UserPromptSubmit', prompt: AWKWARD, cwd: '~/src/app' }),
      event(Date.UTC(2026, 2, 1, 10), { hook_event_name: 'Stop' }, [
        { path: transcript, mode: 'append', content: `${AWKWARD}\n` },
        { path: transcript, mode: 'append', content: 'second\n' },
      ]),
    ];
    const driver = new HookDriver(home);
    await driver.run(segmentScript(events, home, script));
    // Written before the hook of its event: after the first segment the transcript holds both lines.
    expect(readFileSync(join(home, transcript), 'utf8')).toBe(`${AWKWARD}\nsecond\n`);
    await driver.run(
      segmentScript(
        [event(Date.UTC(2026, 2, 2, 9), { hook_event_name: 'Stop' }, [{ path: transcript, mode: 'replace', content: AWKWARD }])],
        home,
        script,
      ),
    );
    await driver.close();
    // Nothing in an event or a file's content ran as a command (the driver runs in the user's HOME).
    expect(readdirSync(home)).not.toContain('pwned');
    expect(readFileSync(join(home, transcript), 'utf8')).toBe(AWKWARD);

    const files = spooled(agentmeterHome).sort((a, b) => a.header['time']!.localeCompare(b.header['time']!));
    expect(files.map((f) => f.header['time'])).toEqual([
      '2026-03-01T09:00:00.000Z',
      '2026-03-01T10:00:00.000Z',
      '2026-03-02T09:00:00.000Z',
    ]);
    // The hook keeps what survives its header rule of each environment value.
    expect(files.map((f) => [f.header['agent'], f.header['entrypoint'], f.header['client']])).toEqual(
      Array(3).fill(['claude', 'cli', 'we']),
    );
    // The payload as the agent sends it (HOME-relative paths expanded), one line on the hook's stdin.
    expect(JSON.parse(files[0]!.body.toString('utf8'))).toEqual({
      hook_event_name: 'UserPromptSubmit',
      prompt: AWKWARD,
      cwd: `${home}/src/app`,
    });
  });

  it("one driver serves user after user: each hook runs in its user's HOME and spools there", async () => {
    const first = userHome();
    const second = userHome();
    const driver = new HookDriver(tempDir());
    const hours = [9, 10];
    for (const [i, user] of [first, second].entries()) {
      await driver.useHome(user.home);
      // The hook is installed without AGENTMETER_HOME: it finds its spool through $HOME.
      await driver.run(segmentScript([event(Date.UTC(2026, 2, 1, hours[i]!), { hook_event_name: 'Stop' })], user.home, user.script));
    }
    await driver.close();
    expect(spooled(first.agentmeterHome).map((f) => f.header['time'])).toEqual(['2026-03-01T09:00:00.000Z']);
    expect(spooled(second.agentmeterHome).map((f) => f.header['time'])).toEqual(['2026-03-01T10:00:00.000Z']);
  });

  it('a step that fails ends the replay with an error, not a hang', async () => {
    const { home, script } = userHome();
    const driver = new HookDriver(home);
    // The folder of this file does not exist: the write fails and the driver exits 3.
    const failing = segmentScript(
      [event(0, { hook_event_name: 'Stop' }, [{ path: 'missing/dir/t.jsonl', mode: 'append', content: 'x' }])],
      home,
      script,
    );
    await expect(driver.run(failing)).rejects.toThrow('sample replay: the hook driver exited 3');
  });

  it('a git command of the project repositories that fails ends the replay, saying so', async () => {
    const { home } = userHome();
    const workDir = tempDir();
    // Where the project's origin goes, a file: `git init --bare` cannot make it.
    mkdirSync(join(workDir, 'project-origins'));
    writeFileSync(join(workDir, 'project-origins', 'u0-shop.git'), 'not a repository');
    const driver = new HookDriver(home);
    await driver.useHome(home);
    const script = new ProjectRepos(home, workDir, 0, 'dev@example.com').create(['shop'], Date.UTC(2026, 2, 1));
    await expect(driver.run(script)).rejects.toThrow(
      "sample replay: the hook driver exited 6 (a git command of the user's project repositories failed)",
    );
  });

  it('shipments are cut only at a midnight that a Droid session runs across', () => {
    const day = (d: number, h: number) => Date.UTC(2026, 2, d, h);
    const e = (d: number, h: number, agent: 'claude' | 'droid', session: string) => ({
      ...event(day(d, h), { session_id: session }),
      agent,
    });
    const plan = [
      e(1, 9, 'claude', 'c1'),
      e(2, 9, 'droid', 'd1'),
      e(2, 10, 'droid', 'd1'),
      // A Claude session across midnight needs no cut: its usage lines carry their own times.
      e(2, 23, 'claude', 'c2'),
      e(3, 1, 'claude', 'c2'),
      // A Droid session across midnight: its settings are read at the end of day 4, then again later.
      e(4, 23, 'droid', 'd2'),
      e(5, 1, 'droid', 'd2'),
      e(6, 9, 'droid', 'd3'),
    ];
    const days = segments(plan).map((s) => s.map((x) => new Date(x.at).getUTCDate()));
    expect(days).toEqual([
      [1, 2, 2, 2, 3, 4],
      [5, 6],
    ]);
  });
});
