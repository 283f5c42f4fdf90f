// The command line under bad or risky options (issue #20, item 10): a bad option is one line on stderr,
// never a stack trace; export refuses days that do not exist; serve warns when it believes a proxy's
// headers but was not told its public address.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const oneLine = (stderr: string) => {
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
};

describe('a bad option', () => {
  it.each([
    [['export', '--db', 'x.duckdb', '--from', '2026-02-30', '--to', '2026-03-01', '--out', 'o'], /--from takes a real calendar day/],
    [['export', '--db', 'x.duckdb', '--from', '2026-03-01', '--to', '2026-02-29', '--out', 'o'], /--to takes a real calendar day/],
    [
      ['export', '--db', 'x.duckdb', '--from', '2026-03-01', '--to', '2026-03-02', '--out', 'o', '--raw-csv'],
      /--raw-csv applies to --format csv/,
    ],
    [
      ['export', '--db', 'x.duckdb', '--from', '2026-03-01', '--to', '2026-03-02', '--out', 'o', '--org', 'acme'],
      /--org takes an organization id/,
    ],
    [['serve', '--db', 'x.duckdb', '--batch-at', '25:00'], /--batch-at takes HH:MM/],
    [['serve', '--db', 'x.duckdb', '--no-such-option'], /Unknown argument/],
  ])('%j prints one line and exits 2', (args, message) => {
    const result = runCli(args, {});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    oneLine(result.stderr);
  });

  it('export --format csv --raw-csv and --org reach the export (an unknown organization is its one-line error)', () => {
    const db = join(tempDir(), 'e.duckdb');
    expect(runCli(['orgs', 'list', '--db', db]).status).toBe(0);
    const args = ['export', '--db', db, '--from', '2026-03-01', '--to', '2026-03-01', '--out', join(tempDir(), 'o'), '--format', 'csv'];
    const result = runCli([...args, '--raw-csv', '--org', 'org_0123456789abcdef']);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no organization org_0123456789abcdef/);
    oneLine(result.stderr);
    const ok = runCli([...args, '--raw-csv']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/\(csv\)\n$/);
    const guarded = runCli(args);
    expect(guarded.stdout).toMatch(/\(csv, formula-like text prefixed with an apostrophe\)\n$/);
  });
});

describe('serve --trust-proxy', () => {
  const serveOutput = (extra: string[]) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'serve', '--db', join(tempDir(), 's.duckdb'), '--port', '0', '--no-batch', ...extra], {
        env: cliEnv({ LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const collect = (d: Buffer) => {
        out += d.toString();
        if (/listening on /.test(out)) child.kill('SIGTERM');
      };
      child.stdout!.on('data', collect);
      child.stderr!.on('data', collect);
      child.once('error', reject);
      child.once('exit', () => resolve(out));
    });

  it('without --public-url warns that install.sh trusts the forwarded Host; with it, no warning', async () => {
    const warned = await serveOutput(['--trust-proxy', '127.0.0.1']);
    expect(warned).toMatch(/"level":40[^\n]*--trust-proxy without --public-url/);
    const quiet = await serveOutput(['--trust-proxy', '127.0.0.1', '--public-url', 'https://agentmeter.example.com']);
    expect(quiet).toMatch(/listening on /);
    expect(quiet).not.toMatch(/--trust-proxy without --public-url/);
  });
});
