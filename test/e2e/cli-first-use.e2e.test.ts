// What a new user meets first (issue 11, item 7): --version, output into a pipe that closes early, a
// busy port, and the LICENSE. The CLI runs as a subprocess, as a user would run it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, ROOT, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };

describe('agentmeter for a new user', { timeout: 120_000 }, () => {
  it('--version prints the version of package.json', () => {
    const run = runCli(['--version']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('the LICENSE matches package.json: MIT, the agentmeter authors, 2026', () => {
    expect(pkg.license).toBe('MIT');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 the agentmeter authors');
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it('output into a pipe whose reader has closed ends quietly (hooks install --dry-run | head)', async () => {
    const home = tempDir();
    const child = spawn(process.execPath, [CLI, 'hooks', 'install', '--agent', 'claude', '--dry-run'], {
      env: cliEnv({ HOME: home, AGENTMETER_HOME: join(home, '.agentmeter') }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the command writes its first line: every write meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});
