// `agentmeter collect` by hand. `--once` claims the spool as the daemon does: beside a running collector it
// is refused before it drains (two collectors on one spool ship each other's files, and Droid's usage, a
// difference from the totals each last saw, would be counted by both); a pid file whose collector is gone
// is no bar. `status` only reads: a corrupt state file is reported, and left for the collector to set aside.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectorPidPath } from '../../collector/pidfile.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { loadState, statePath } from '../../collector/state.ts';
import { HOOK_SCRIPT, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A home whose spool holds one event, and the CLI's environment for it (a server nothing listens on). */
function homeWithAnEvent(): { amHome: string; env: Record<string, string>; spooled: () => string[] } {
  const home = tempDir();
  const amHome = join(home, '.agentmeter');
  const dirs = spoolDirs(amHome);
  ensureSpool(dirs);
  const hook = spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
    input: '{"hook_event_name":"Stop","session_id":"s1"}',
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: amHome },
  });
  expect(hook.status).toBe(0);
  const env = { HOME: home, AGENTMETER_HOME: amHome, AGENTMETER_SERVER: 'http://127.0.0.1:9', AGENTMETER_API_KEY: 'am_test' };
  return { amHome, env, spooled: () => readdirSync(dirs.new) };
}

describe('collect --once', () => {
  it('is refused while another collector runs on the spool, and ships nothing', async () => {
    const { amHome, env, spooled } = homeWithAnEvent();
    // A live process whose command line runs `collect`, named by the pid file, as a running daemon is.
    const running = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'collect'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => running.once('spawn', resolve));
      mkdirSync(join(amHome, 'collector'), { recursive: true, mode: 0o700 });
      writeFileSync(collectorPidPath(amHome), `${running.pid}\n`, { mode: 0o600 });

      const once = runCli(['collect', '--once'], env);

      expect(once.status).not.toBe(0);
      expect(once.stderr).toContain(`another collector (pid ${running.pid}) already ships`);
      expect(once.stdout).not.toContain('shipped');
      expect(spooled()).toHaveLength(1);
    } finally {
      running.kill();
      await new Promise((resolve) => running.once('exit', resolve));
    }
  });

  it('runs when the pid file names a collector that is gone', () => {
    const { amHome, env } = homeWithAnEvent();
    mkdirSync(join(amHome, 'collector'), { recursive: true, mode: 0o700 });
    writeFileSync(collectorPidPath(amHome), '999999\n', { mode: 0o600 });

    const once = runCli(['collect', '--once'], env);

    // Nothing listens at the server's address: it tried, so it was not refused.
    expect(once.stderr).not.toContain('another collector');
    expect(once.stdout).toContain('not shipped');
  });
});

describe('collect status', () => {
  it('reports a corrupt state file and changes nothing; a collector start sets it aside', () => {
    const { amHome, env } = homeWithAnEvent();
    mkdirSync(join(amHome, 'collector'), { recursive: true, mode: 0o700 });
    writeFileSync(statePath(amHome), '{"version": 2, "agents": ', { mode: 0o600 });

    const status = runCli(['collect', 'status'], env);

    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`collector state: ${statePath(amHome)} is unreadable (`);
    expect(status.stdout).toContain('pending: 1');
    expect(readFileSync(statePath(amHome), 'utf8')).toBe('{"version": 2, "agents": ');
    expect(readdirSync(join(amHome, 'collector')).filter((name) => name.includes('corrupt'))).toEqual([]);

    expect(loadState(amHome).problem).toMatch(/^state file was unreadable .*; set aside as /);
    expect(existsSync(statePath(amHome))).toBe(false);
  });
});
