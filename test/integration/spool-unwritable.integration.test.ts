// A spool the hook cannot write (issue 28, item 16): the hook still exits 0 and stays silent (it must
// never disturb the agent), so `doctor` and `collect status` are where the dropped events show, naming the
// folder; and a collector whose spool cannot even be created ends in one line naming the path, not a
// stack trace.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../cli/doctor/checks.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { HOOK_SCRIPT, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeUnwritable } from '../helpers/unwritable.ts';

const undo: (() => void)[] = [];
afterEach(() => {
  for (const u of undo.splice(0)) u();
});

function unwritable(dir: string): boolean {
  const u = makeUnwritable(dir);
  if (u) undo.push(u);
  return u !== undefined;
}

describe('an unwritable spool', { timeout: 120_000 }, () => {
  it('the hook exits 0 and writes nothing; doctor and collect status name the folder', async (ctx) => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const dirs = spoolDirs(amHome);
    ensureSpool(dirs);
    if (!unwritable(dirs.tmp)) ctx.skip();

    const hook = spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
      input: '{"hook_event_name":"Stop","session_id":"s1"}',
      env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: amHome },
      encoding: 'utf8',
    });
    expect(hook.status).toBe(0);
    expect(hook.stderr).toBe('');
    expect(readdirSync(dirs.new)).toEqual([]);

    const env = { HOME: home, AGENTMETER_HOME: amHome, AGENTMETER_SERVER: 'http://127.0.0.1:9', AGENTMETER_API_KEY: 'am_x' };
    const doctor = runCli(['doctor', '--json'], env);
    const spool = DoctorReport.parse(JSON.parse(doctor.stdout)).checks.find((c) => c.name === 'spool');
    expect(spool).toMatchObject({ ok: false });
    expect(spool?.detail).toContain(`the spool cannot be written: ${dirs.tmp} refuses writes`);
    expect(spool?.detail).toContain('the hook drops every event');
    expect(doctor.status).not.toBe(0);

    const status = runCli(['collect', 'status'], env);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`not writable: the spool cannot be written: ${dirs.tmp} refuses writes`);
  });

  it('a spool that cannot be created: the collector ends with one line naming the path', async (ctx) => {
    const amHome = join(tempDir(), 'agentmeter-home');
    mkdirSync(amHome, { mode: 0o700 });
    if (!unwritable(amHome)) ctx.skip();
    const run = runCli(['collect', '--once'], {
      AGENTMETER_HOME: amHome,
      AGENTMETER_SERVER: 'http://127.0.0.1:9',
      AGENTMETER_API_KEY: 'am_x',
    });
    expect(run.status).not.toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^agentmeter: cannot create the folder ${join(amHome, 'spool')}`));
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
