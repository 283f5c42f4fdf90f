// The sample replay's hook driver (sample-data/replay.ts): the real hook script, installed by the real
// installer, run by one long-lived sh per replay worker. What reaches the spool and the agent's files must be
// exactly what the plan says, whatever characters it holds, and a failing step must fail the replay.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { LIMITS_PATH } from '../../api/limits/schema.ts';
import { install, installedScriptPath } from '../../collector/install/installer.ts';
import { parseSpoolFile, spoolDirs } from '../../collector/spool.ts';
import { ME_STATUS_PATH } from '../../collector/status-cache.ts';
import { createLogger } from '../../common/logger.ts';
import { generate, type PlannedEvent } from '../../sample-data/generator.ts';
import { ProjectRepos } from '../../sample-data/project-repos.ts';
import { DRIVER_NICENESS, HookDriver, replay, SHIPPING_MOST, segmentScript, segments } from '../../sample-data/replay.ts';
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

  it('runs its hooks and git at the lowest priority, below the server and the collectors', async () => {
    const { home } = userHome();
    const driver = new HookDriver(home);
    // What a command the driver starts (a hook, a git) is given: `nice` alone prints its nice value.
    await driver.run(`nice > ${join(home, 'niceness')}\n`);
    await driver.close();
    expect(readFileSync(join(home, 'niceness'), 'utf8').trim()).toBe(String(DRIVER_NICENESS));
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

/**
 * A server that answers ingest as the real one answers new records, and holds each limit and status
 * request until records of another key have arrived (at most HOLD_MS; those answered so are counted).
 */
async function holdingServer() {
  const HOLD_MS = 10_000;
  const ingested = new Set<string>();
  const held: { key: string; res: ServerResponse; timer: NodeJS.Timeout }[] = [];
  const timedOut: string[] = [];
  const notFound = (res: ServerResponse) => res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  const release = () => {
    for (const h of held.splice(0)) {
      if ([...ingested].some((k) => k !== h.key)) {
        clearTimeout(h.timer);
        notFound(h.res);
      } else held.push(h);
    }
  };
  const server = createServer((req, res) => {
    const key = req.headers.authorization ?? '';
    if (req.method === 'POST' && req.url === '/api/v1/ingest/events') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n').filter(Boolean).length;
        ingested.add(key);
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ received: n, stored: n, duplicates: 0, rejected: [] }));
        release();
      });
    } else if (req.url === LIMITS_PATH || req.url === ME_STATUS_PATH) {
      const h = {
        key,
        res,
        timer: setTimeout(() => {
          held.splice(held.indexOf(h), 1);
          timedOut.push(key);
          notFound(res);
        }, HOLD_MS),
      };
      held.push(h);
      release();
    } else notFound(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ingested,
    timedOut,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('sample replay shipping', () => {
  it("a driver goes on to the next user while the last user's shipment waits for the server", { timeout: 60_000 }, async () => {
    // Two users of one day (one shipment each), one driver: the first user's limit and status requests are
    // answered only once the second user's records have arrived, which they can only if the driver did not
    // wait for the first user's shipment to end.
    const plan = generate({ seed: 2, lastDay: '2026-03-13', days: 1, users: 2 });
    expect(plan.events.map((e) => segments(e).length)).toEqual([1, 1]);
    const server = await holdingServer();
    try {
      const log = createLogger({ name: 'test', level: 'silent' });
      const result = await replay(plan, { server: server.url, keys: ['am_one', 'am_two'], workDir: tempDir(), log, concurrency: 1 });
      expect(result.shipped).toBeGreaterThan(0);
      expect([...server.ingested].sort()).toEqual(['Bearer am_one', 'Bearer am_two']);
      expect(server.timedOut).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('ships at most as many users at once as the server takes of one organization', { timeout: 60_000 }, async () => {
    // Each ingest request is held until every user's first one has arrived (at most 3 s): without a bound,
    // all of them are in flight at once, and the real server answers those past its bound 429.
    const plan = generate({ seed: 2, lastDay: '2026-03-13', days: 1, users: 20 });
    const users = plan.events.flatMap((e, u) => (e.length ? [u] : []));
    expect(users.length).toBeGreaterThan(SHIPPING_MOST);
    let inFlight = 0;
    let most = 0;
    const seen = new Set<string>();
    const waiting: (() => void)[] = [];
    const server = createServer((req, res) => {
      if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      inFlight++;
      most = Math.max(most, inFlight);
      seen.add(req.headers.authorization ?? '');
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const n = gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n').filter(Boolean).length;
        const answer = () => {
          inFlight--;
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ received: n, stored: n, duplicates: 0, rejected: [] }));
        };
        if (seen.size === users.length) for (const w of [answer, ...waiting.splice(0)]) w();
        else {
          const timer = setTimeout(() => waiting.splice(waiting.indexOf(release), 1) && answer(), 3000);
          const release = () => {
            clearTimeout(timer);
            answer();
          };
          waiting.push(release);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const keys = plan.users.map((_, u) => `am_${u}`);
      const log = createLogger({ name: 'test', level: 'silent' });
      await replay(plan, { server: url, keys, workDir: tempDir(), log, concurrency: users.length });
      expect(seen.size).toBe(users.length);
      expect(most).toBe(SHIPPING_MOST);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
