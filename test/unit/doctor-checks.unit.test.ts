// The doctor's verdicts on fixed facts: what counts as a problem, and the fix each problem names.
import { describe, expect, it } from 'vitest';
import {
  BACKLOG_AGE_MS,
  type Connection,
  checkAbandoned,
  checkClock,
  checkCollector,
  checkHook,
  checkKey,
  checkLastShip,
  checkQuarantine,
  checkServer,
  checkService,
  checkSettingsFile,
  checkSpool,
  collectCommand,
  DoctorReport,
  describeAbandoned,
  type HookPlace,
  MAX_SKEW_MS,
  report,
  type ServiceFacts,
} from '../../cli/doctor/checks.ts';

const NOW = Date.parse('2026-11-23T10:00:00Z');
/** The installed program: every fix starts with its absolute path, since `agentmeter` is not on PATH. */
const PROGRAM = '/h/.agentmeter/bin/agentmeter';
const fromEnv: Connection = { program: PROGRAM, server: 'http://am.internal:8080', serverFromEnv: true, hasKey: true, keyFromEnv: true };
const fromFlags: Connection = {
  program: PROGRAM,
  server: 'http://am.internal:8080',
  serverFromEnv: false,
  hasKey: true,
  keyFromEnv: false,
};
const user = (over: Partial<HookPlace> = {}): HookPlace => ({
  kind: 'user',
  file: '/h/.claude/settings.json',
  installed: true,
  partial: true,
  scripts: [{ path: '/h/.agentmeter/bin/agentmeter-hook.sh', runnable: true }],
  blockers: [],
  ...over,
});
const managed = (over: Partial<HookPlace> = {}): HookPlace => ({
  ...user(over),
  kind: 'managed',
  file: '/etc/claude-code/managed-settings.json',
  scripts: [{ path: '/usr/local/lib/agentmeter/agentmeter-hook.sh', runnable: true }],
  ...over,
});

const unit = (over: Partial<ServiceFacts> = {}): ServiceFacts => ({
  manager: 'systemd',
  file: '/h/.config/systemd/user/agentmeter-collector.service',
  installed: true,
  ours: true,
  state: 'running',
  detail: 'active (running), enabled',
  logs: 'journalctl --user -u agentmeter-collector.service',
  restart: 'systemctl --user restart agentmeter-collector.service',
  ...over,
});
const notInstalled = (reachable: boolean) =>
  unit({
    installed: false,
    ours: false,
    state: 'not installed',
    detail: 'no /h/.config/systemd/user/agentmeter-collector.service',
    reachable,
  });

describe('collect command in fixes', () => {
  it('repeats the flags the doctor was given, never the key', () => {
    expect(collectCommand(fromEnv, true)).toBe('/h/.agentmeter/bin/agentmeter collect --once');
    expect(collectCommand(fromFlags, false)).toBe(
      '/h/.agentmeter/bin/agentmeter collect --server http://am.internal:8080 --key <your key>',
    );
    expect(collectCommand({ program: PROGRAM, serverFromEnv: false, hasKey: false, keyFromEnv: false }, false)).toBe(
      '/h/.agentmeter/bin/agentmeter collect --server <server URL> --key <your key>',
    );
  });
});

describe('hook check', () => {
  it('passes with the hook in user or managed settings and its script runnable', () => {
    expect(checkHook({ agent: 'claude', present: true, places: [user()] }, PROGRAM).ok).toBe(true);
    const onlyManaged = checkHook(
      { agent: 'claude', present: true, places: [user({ installed: false, partial: false }), managed()] },
      PROGRAM,
    );
    expect(onlyManaged).toMatchObject({ ok: true });
    expect(onlyManaged.detail).toContain('/etc/claude-code/managed-settings.json (managed)');
  });

  it('fails when the file has the hook but the agent will not run it (a switch, or Codex trust), with what turns it on', () => {
    const codex = checkHook(
      {
        agent: 'codex',
        present: true,
        places: [
          user({
            file: '/h/.codex/hooks.json',
            blockers: ['Codex skips the agentmeter hook where it is not trusted: Stop (untrusted)'],
            blockerFix: 'trust them in /hooks',
          }),
        ],
      },
      PROGRAM,
    );
    expect(codex).toMatchObject({ ok: false, fix: 'trust them in /hooks' });
    expect(codex.detail).toBe(
      'installed in /h/.codex/hooks.json, but the agent will not run it: Codex skips the agentmeter hook where it is not trusted: Stop (untrusted)',
    );
    const qwen = checkHook(
      {
        agent: 'qwen',
        present: true,
        places: [user({ file: '/h/.qwen/settings.json', blockers: ['"hooks.enabled": false turns every hook off'] })],
      },
      PROGRAM,
    );
    expect(qwen).toMatchObject({
      ok: false,
      fix: "turn the agent's hooks back on in /h/.qwen/settings.json (see /h/.agentmeter/bin/agentmeter hooks status --agent qwen)",
    });
  });

  it('fails when missing, partly installed, not runnable or in a malformed file, with the fix for each', () => {
    expect(checkHook({ agent: 'droid', present: true, places: [user({ installed: false, partial: false })] }, PROGRAM)).toMatchObject({
      ok: false,
      fix: '/h/.agentmeter/bin/agentmeter hooks install --agent droid',
    });
    expect(
      checkHook(
        { agent: 'claude', present: true, places: [user({ installed: false }), managed({ installed: false, partial: false })] },
        PROGRAM,
      ),
    ).toMatchObject({
      ok: false,
      fix: '/h/.agentmeter/bin/agentmeter hooks install --agent claude',
    });
    const gone = checkHook(
      {
        agent: 'claude',
        present: true,
        places: [managed({ scripts: [{ path: '/usr/local/lib/agentmeter/agentmeter-hook.sh', runnable: false }] })],
      },
      PROGRAM,
    );
    expect(gone).toMatchObject({
      ok: false,
      fix: 'sudo /h/.agentmeter/bin/agentmeter hooks install --agent claude --managed --hook-path /usr/local/lib/agentmeter/agentmeter-hook.sh',
    });
    expect(gone.detail).toContain('missing or not executable');
    const malformed = checkHook(
      { agent: 'claude', present: true, places: [user({ error: 'x is not valid JSON', installed: false })] },
      PROGRAM,
    );
    expect(malformed).toMatchObject({ ok: false, detail: 'x is not valid JSON' });
  });

  it('skips an agent this machine does not use', () => {
    expect(
      checkHook({ agent: 'droid', present: false, places: [user({ installed: false, partial: false, scripts: [] })] }, PROGRAM).ok,
    ).toBe(true);
  });
});

describe('collector and spool checks', () => {
  it('the collector runs under its service or by its pid file; otherwise the fix starts it', () => {
    expect(checkCollector({ service: unit({ state: 'running', pid: 7 }), pidAlive: false }, fromEnv)).toMatchObject({
      ok: true,
      detail: 'running (systemd service, pid 7)',
    });
    expect(checkCollector({ pidFile: 42, pidAlive: true }, fromEnv).detail).toBe('running (pid 42)');
    expect(
      checkCollector({ service: unit({ state: 'failed', detail: 'failed (failed), enabled' }), pidAlive: false }, fromEnv),
    ).toMatchObject({
      ok: false,
      detail: 'not running: its systemd service is failed (failed (failed), enabled)',
      fix: 'systemctl --user restart agentmeter-collector.service (why it stopped: journalctl --user -u agentmeter-collector.service)',
    });
    // No service manager here: the collector by hand.
    expect(checkCollector({ pidFile: 42, pidAlive: false }, fromFlags)).toMatchObject({
      ok: false,
      fix: '/h/.agentmeter/bin/agentmeter collect --server http://am.internal:8080 --key <your key>',
    });
    // A reachable service manager and no service: install it (or run the collector by hand).
    expect(checkCollector({ service: notInstalled(true), pidAlive: false }, fromFlags).fix).toBe(
      '/h/.agentmeter/bin/agentmeter service install --server http://am.internal:8080 --key <your key> (or, under your own supervisor: /h/.agentmeter/bin/agentmeter collect --server http://am.internal:8080 --key <your key>)',
    );
    expect(checkCollector({ service: notInstalled(false), pidAlive: false }, fromEnv).fix).toBe('/h/.agentmeter/bin/agentmeter collect');
  });

  it('the service: fine when not installed or when a collector runs without it; an installed one that is down is a problem', () => {
    expect(checkService({ pidAlive: false }, fromEnv)).toMatchObject({ ok: true });
    expect(checkService({ service: notInstalled(false), pidFile: 42, pidAlive: true }, fromEnv)).toEqual({
      name: 'service',
      ok: true,
      detail: 'not installed (/h/.config/systemd/user/agentmeter-collector.service); the collector runs without one (pid 42)',
    });
    expect(checkService({ service: notInstalled(true), pidAlive: false }, fromEnv)).toMatchObject({
      ok: true,
      detail:
        'not installed (/h/.config/systemd/user/agentmeter-collector.service); to start it at every login: /h/.agentmeter/bin/agentmeter service install',
    });
    expect(checkService({ service: unit({ state: 'running', detail: 'active (running), enabled' }), pidAlive: false }, fromEnv)).toEqual({
      name: 'service',
      ok: true,
      detail: '/h/.config/systemd/user/agentmeter-collector.service: active (running), enabled',
    });
    expect(
      checkService(
        { service: unit({ state: 'failed', detail: 'failed (failed), enabled, last exit status 78' }), pidAlive: false },
        fromEnv,
      ),
    ).toEqual({
      name: 'service',
      ok: false,
      detail: '/h/.config/systemd/user/agentmeter-collector.service is failed: failed (failed), enabled, last exit status 78',
      fix: 'systemctl --user restart agentmeter-collector.service (why it stopped: journalctl --user -u agentmeter-collector.service)',
    });
    expect(checkService({ service: unit({ state: 'stopped' }), pidFile: 42, pidAlive: true }, fromEnv).ok).toBe(true);
    const mac = unit({
      manager: 'launchd',
      file: '/Users/d/Library/LaunchAgents/dev.agentmeter.collector.plist',
      state: 'stopped',
      detail: 'not loaded (installed but not bootstrapped)',
      logs: 'tail /Users/d/.agentmeter/logs/collector.err.log /Users/d/.agentmeter/logs/collector.out.log',
      restart: 'launchctl kickstart -k gui/501/dev.agentmeter.collector',
    });
    expect(checkService({ service: mac, pidAlive: false }, fromEnv).fix).toBe(
      'launchctl kickstart -k gui/501/dev.agentmeter.collector (why it stopped: tail /Users/d/.agentmeter/logs/collector.err.log /Users/d/.agentmeter/logs/collector.out.log)',
    );
    expect(DoctorReport.parse(report([], mac)).service).toEqual(mac);
  });

  it('a backlog is a problem when nothing ships it, or when it is older than the collector would let it be', () => {
    const spool = { dir: '/h/.agentmeter/spool/new', pending: 3, oldestMs: NOW - 60_000 };
    const running = { pidFile: 42, pidAlive: true };
    const stopped = { pidAlive: false };
    expect(checkSpool(spool, running, fromEnv, NOW).ok).toBe(true);
    expect(checkSpool(spool, stopped, fromEnv, NOW)).toMatchObject({ ok: false, fix: '/h/.agentmeter/bin/agentmeter collect --once' });
    expect(checkSpool(spool, stopped, fromEnv, NOW).detail).toContain('the oldest from 2026-11-23T09:59:00.000Z (60 s ago)');
    const stale = checkSpool({ ...spool, oldestMs: NOW - BACKLOG_AGE_MS - 1 }, running, fromEnv, NOW);
    expect(stale).toMatchObject({ ok: false });
    expect(stale.detail).toContain('the collector is not keeping up');
    // Not `collect --once` beside the running collector, which refuses to run then: the running one restarts.
    expect(stale.fix).toBe('stop the collector you started (pid 42) and start it again: /h/.agentmeter/bin/agentmeter collect');
    const asService = { service: unit({ state: 'running' }), pidAlive: false };
    expect(checkSpool({ ...spool, oldestMs: NOW - BACKLOG_AGE_MS - 1 }, asService, fromEnv, NOW).fix).toBe(
      `${unit({}).restart} (why it fell behind: ${unit({}).logs})`,
    );
    expect(checkSpool({ dir: 'd', pending: 0 }, stopped, fromEnv, NOW).ok).toBe(true);
    expect(checkSpool({ dir: 'd', pending: 0, problem: 'd is a symbolic link' }, running, fromEnv, NOW).ok).toBe(false);
  });

  it('abandoned tmp/ files are named with their age and when the sweep removes them, and are no problem', () => {
    const fiveHoursAgo = NOW - 5 * 3600_000;
    const facts = {
      dir: '/h/.agentmeter/spool/new',
      pending: 0,
      tmpDir: '/h/.agentmeter/spool/tmp',
      abandoned: 2,
      oldestAbandonedMs: fiveHoursAgo,
    };
    const check = checkAbandoned(facts, NOW);
    expect(check.ok).toBe(true);
    expect(check.detail).toBe(
      '2 abandoned files in /h/.agentmeter/spool/tmp (a hook stopped before it finished copying its event; never shipped), ' +
        'the oldest last written 2026-11-23T05:00:00.000Z (5.0 h ago); a running collector removes each 36 h after its last write, ' +
        'the oldest at 2026-11-24T17:00:00.000Z (in 31.0 h)',
    );
    expect(describeAbandoned(1, NOW - 40 * 3600_000, NOW, 't')).toContain('1 abandoned file in t ');
    expect(describeAbandoned(1, NOW - 40 * 3600_000, NOW, 't')).toContain('the oldest at its next sweep (hourly)');
    expect(checkAbandoned({ dir: 'd', pending: 0, abandoned: 0 }, NOW)).toEqual({
      name: 'spool tmp',
      ok: true,
      detail: 'no abandoned files',
    });
  });

  it('collector.env: absent is fine, refused is a problem with its reason', () => {
    expect(checkSettingsFile('/h/.agentmeter/collector.env', false, undefined)).toMatchObject({ ok: true });
    expect(checkSettingsFile('/h/.agentmeter/collector.env', true, undefined).detail).toBe('/h/.agentmeter/collector.env (server and key)');
    const refused = checkSettingsFile('/h/.agentmeter/collector.env', true, 'it can be read by others: chmod 600 f');
    expect(refused).toMatchObject({ ok: false, detail: 'it can be read by others: chmod 600 f' });
    expect(refused.fix).toContain('install.sh');
  });

  it('quarantined files are listed with their reasons', () => {
    const check = checkQuarantine('/h/.agentmeter/spool/bad', [
      { name: 'a1', reason: 'no header: the file does not come from the agentmeter hook' },
    ]);
    expect(check).toMatchObject({ ok: false });
    expect(check.detail).toContain('a1: no header');
    expect(check.fix).toContain('cat /h/.agentmeter/spool/bad/*.reason');
    expect(checkQuarantine('d', []).ok).toBe(true);
  });
});

describe('server, key, last ship and clock checks', () => {
  const healthy = {
    url: 'http://am.internal:8080',
    health: { status: 200, date: new Date(NOW).toUTCString() },
    me: { status: 200, who: 'a@b.c, member' },
  };

  it('passes on a reachable server, an accepted key and a clock in step', () => {
    const checks = [checkServer(healthy, fromEnv), checkKey(healthy, fromEnv), checkClock(healthy, NOW + 900)];
    expect(DoctorReport.parse(report(checks)).ok).toBe(true);
    expect(checkClock(healthy, NOW + 900).detail).toBe('in step with the server');
  });

  it('reports an unreachable server, a refused key and a skewed clock', () => {
    expect(checkServer({ url: 'http://x', health: { error: 'ECONNREFUSED' } }, fromEnv)).toMatchObject({
      ok: false,
      detail: 'http://x cannot be reached: ECONNREFUSED',
    });
    expect(checkServer({}, fromEnv).ok).toBe(false);
    const refused = checkKey({ ...healthy, me: { status: 401, detail: 'unknown API key' } }, fromEnv);
    expect(refused).toMatchObject({
      ok: false,
      detail: 'the server refuses the key (401: unknown API key); the collector stops on a refused key',
    });
    expect(checkKey(healthy, { ...fromEnv, hasKey: false }).ok).toBe(false);
    const skewed = checkClock(healthy, NOW + MAX_SKEW_MS + 60_000);
    expect(skewed).toMatchObject({ ok: false });
    expect(skewed.detail).toContain('6 min ahead of the server');
    expect(checkClock(healthy, NOW - MAX_SKEW_MS).ok).toBe(true);
  });

  it('reports the last ship, a failed attempt, and a backlog nothing was ever shipped from', () => {
    const state = { lastShipAt: NOW - 120_000, lastShipRecords: 7, totalShipped: 70, lastError: null, lastErrorAt: null };
    const stopped = { pidAlive: false };
    expect(checkLastShip(state, 0, stopped, fromEnv, NOW)).toMatchObject({
      ok: true,
      detail: '2026-11-23T09:58:00.000Z (2 min ago, 7 records); 70 records shipped in total',
    });
    expect(checkLastShip({ ...state, lastError: 'server answered 503', lastErrorAt: NOW }, 0, stopped, fromEnv, NOW).ok).toBe(false);
    expect(checkLastShip({ ...state, lastShipAt: null }, 4, stopped, fromEnv, NOW)).toMatchObject({
      ok: false,
      fix: '/h/.agentmeter/bin/agentmeter collect --once',
    });
    expect(
      checkLastShip({ ...state, lastError: 'server answered 503', lastErrorAt: NOW }, 0, { pidFile: 7, pidAlive: true }, fromEnv, NOW).fix,
    ).toBe(
      'fix what the server and key checks say, then: stop the collector you started (pid 7) and start it again: /h/.agentmeter/bin/agentmeter collect',
    );
  });
});
