// `uninstall --purge` removes agentmeter's home folder only when it holds nothing but what agentmeter
// makes: AGENTMETER_HOME (or install.sh --home) may name a folder of the user's, even their HOME.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A home folder as a collector leaves it (spool, state, machine id), with `extra` files of the user's. */
function agentmeterHome(at: string, extra: Record<string, string> = {}): void {
  ensureSpool(spoolDirs(at));
  mkdirSync(join(at, 'collector'), { recursive: true, mode: 0o700 });
  writeFileSync(join(at, 'machine-id'), '0123456789abcdef\n');
  writeFileSync(join(at, 'status.json.tmp-123'), '{}');
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(at, name), text);
}

const purge = (home: string, agentmeterHomeDir: string) =>
  runCli(['uninstall', '--purge'], { HOME: home, AGENTMETER_HOME: agentmeterHomeDir, AGENTMETER_SERVER: '', AGENTMETER_API_KEY: '' });

describe('uninstall --purge', () => {
  it("removes a home folder that holds only agentmeter's own entries", () => {
    const home = tempDir();
    const am = join(home, '.agentmeter');
    agentmeterHome(am);
    const run = purge(home, am);
    expect(run.stdout).toContain(`removed ${am}`);
    expect(existsSync(am)).toBe(false);
  });

  it('keeps a folder that holds files of the user, and says which', () => {
    const home = tempDir();
    const am = join(home, 'tools');
    agentmeterHome(am, { 'thesis.tex': 'chapter one' });
    const run = purge(home, am);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`kept ${am}: it holds thesis.tex, which agentmeter did not make`);
    expect(readFileSync(join(am, 'thesis.tex'), 'utf8')).toBe('chapter one');
    expect(existsSync(join(am, 'spool'))).toBe(true);
  });

  it("keeps the user's HOME when AGENTMETER_HOME names it", () => {
    const home = tempDir();
    agentmeterHome(home);
    const run = purge(home, home);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`kept ${home}: it holds your own files`);
    expect(existsSync(join(home, 'machine-id'))).toBe(true);
  });
});
