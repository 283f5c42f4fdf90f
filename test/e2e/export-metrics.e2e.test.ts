// The real CLI: `serve` with the metrics token from the environment (and a too-short --metrics-token
// refused), `export` refused with a clear error while the server holds the database, and run once it stopped.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const TOKEN = 'an-e2e-metrics-token-of-32-characters-or-more';
const db = join(tempDir(), 'agentmeter.duckdb');
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
});

describe('serve --metrics-token and export', () => {
  it('refuses a metrics token shorter than 32 characters', () => {
    const res = runCli(['serve', '--db', db, '--port', '0', '--metrics-token', 'short']);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('--metrics-token takes at least 32 characters');
  });

  it('serves /metrics to the token of AGENTMETER_METRICS_TOKEN', async () => {
    server = await startServerProcess(db, undefined, { AGENTMETER_METRICS_TOKEN: TOKEN });
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('agentmeter_database_bytes{file="db"}');
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
  });

  it('export says why it cannot run while the server holds the database, then runs once it stopped', async () => {
    const out = join(tempDir(), 'export');
    const busy = runCli(['export', '--db', db, '--from', '2026-03-01', '--to', '2026-03-02', '--out', out]);
    expect(busy.status).not.toBe(0);
    expect(busy.stderr).toContain('in use by another process');
    expect(busy.stderr).toContain('stop the server');
    expect(await server!.stop()).toBe(0);
    server = undefined;
    const done = runCli(['export', '--db', db, '--from', '2026-03-01', '--to', '2026-03-02', '--out', out, '--format', 'csv'], {
      LOG_LEVEL: 'info',
    });
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Exported 0 rows in 9 tables to ${out} (csv, formula-like text prefixed with an apostrophe)`);
    expect(done.stderr.match(/table exported/g)).toHaveLength(9);
    expect(existsSync(join(out, 'agg_org_day'))).toBe(true);
  });
});
