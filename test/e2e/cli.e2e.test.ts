// The CLI as a subprocess: admin with the server stopped (--db) and running (--server/--key), the lock
// message, help texts, and a record the server refuses landing in quarantine with its reason.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastLine, ROOT, runCli, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

// Each CLI run starts Node and tsx (about a second, more while other suites load the machine).
describe('agentmeter CLI', { timeout: 180_000 }, () => {
  // Every command's --help is checked in one process (unit/cli-help), the binary's own in cli-startup.
  it('an unknown command or a bad option value: one line on stderr, non-zero exit', () => {
    const bad = runCli(['frobnicate']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('agentmeter:');
    const badWorkers = runCli(['serve', '--db', join(tempDir(), 'w.duckdb'), '--decode-workers', '1.5']);
    expect(badWorkers.status).not.toBe(0);
    expect(badWorkers.stderr).toContain('--decode-workers takes a whole number from 0 to 64');
    for (const [flag, value, message] of [
      ['--cache-entries', '-1', '--cache-entries takes a whole number, 0 or more'],
      ['--cache-entries', 'many', '--cache-entries takes a whole number, 0 or more'],
      ['--cache-mb', '-5', '--cache-mb takes a number of MiB, 0 or more'],
      ['--analytics-rows', '2.5', '--analytics-rows takes a whole number, 0 or more'],
    ]) {
      const badCache = runCli(['serve', '--db', join(tempDir(), 'c.duckdb'), flag!, value!]);
      expect(badCache.status, `${flag} ${value}`).not.toBe(0);
      expect(badCache.stderr).toContain(message);
    }
  });

  it('admin on the database file: org, user with a key on the last line, keys create, list, revoke', () => {
    const db = join(tempDir(), 'a.duckdb');
    const org = lastLine(runCli(['orgs', 'add', '--db', db, '--name', 'Test org']).stdout);
    const added = runCli(['users', 'add', '--db', db, '--org', org, '--email', 'ana@example.com', '--role', 'owner']);
    expect(added.status, added.stderr).toBe(0);
    const key = lastLine(added.stdout);
    expect(org).toMatch(/^org_[0-9a-f]{16}$/);
    expect(key).toMatch(/^am_[A-Za-z0-9_-]{43}$/);
    const created = runCli([
      'keys',
      'create',
      '--db',
      db,
      '--org',
      org,
      '--user',
      'ana@example.com',
      '--name',
      'laptop',
      '--scope',
      'collector',
    ]);
    expect(created.status, created.stderr).toBe(0);
    const second = lastLine(created.stdout);
    expect(second).toMatch(/^am_/);
    const keyId = /key (key_[0-9a-f]+)/.exec(created.stdout)![1]!;
    const listed = runCli(['keys', 'list', '--db', db, '--org', org, '--user', 'ana@example.com', '--json']);
    const keys = JSON.parse(listed.stdout) as {
      id: string;
      revokedAt: string | null;
      prefix: string;
      kind: string;
      scope: string;
      createdBy: string | null;
    }[];
    expect(keys).toHaveLength(2);
    // The operator's keys (on the database file) are the user's own; the second has the scope asked for.
    expect(keys.map((k) => [k.kind, k.scope, k.createdBy])).toEqual([
      ['personal', 'personal', null],
      ['personal', 'collector', null],
    ]);
    expect(listed.stdout).not.toContain(second);
    expect(runCli(['keys', 'revoke', keyId, '--db', db, '--org', org]).stdout).toContain(`revoked ${keyId}`);
    const after = JSON.parse(runCli(['keys', 'list', '--db', db, '--org', org, '--user', 'ana@example.com', '--json']).stdout) as {
      id: string;
      revokedAt: string | null;
    }[];
    expect(after.find((k) => k.id === keyId)!.revokedAt).not.toBeNull();
    const dup = runCli(['users', 'add', '--db', db, '--org', org, '--email', 'ana@example.com', '--role', 'member']);
    expect(dup.status).toBe(1);
    expect(dup.stderr).toContain('already a user');
    const badRole = runCli(['users', 'add', '--db', db, '--org', org, '--email', 'z@example.com', '--role', 'admin']);
    expect(badRole.status).not.toBe(0);
  });

  it('while the server runs: a clear lock message for --db, and the same admin through --server with an owner key', async () => {
    const dir = tempDir();
    const db = join(dir, 'b.duckdb');
    const { org, key: ownerKey } = await seedAccount(db, 'owner', 'owner@example.com');
    const server = await startServerProcess(db);
    try {
      const locked = runCli(['orgs', 'add', '--db', db, '--name', 'Other']);
      expect(locked.status).toBe(1);
      expect(locked.stderr).toContain('is in use by another process');
      expect(locked.stderr).toContain('--server');
      const added = runCli(['users', 'add', '--server', server.url, '--key', ownerKey, '--email', 'bo@example.com', '--role', 'member']);
      expect(added.status, added.stderr).toBe(0);
      expect(added.stdout).toContain(org);
      const memberKey = lastLine(added.stdout);
      expect(memberKey).toMatch(/^am_/);
      const created = runCli(['keys', 'create', '--server', server.url, '--key', ownerKey, '--user', 'bo@example.com']);
      expect(created.status, created.stderr).toBe(0);
      const keyId = /key (key_[0-9a-f]+)/.exec(created.stdout)![1]!;
      expect(runCli(['keys', 'revoke', keyId, '--server', server.url, '--key', ownerKey]).status).toBe(0);
      // Through the server, the owner minted both of bo's keys: an invitation, then a delegated key.
      const collector = runCli([
        'keys',
        'create',
        '--server',
        server.url,
        '--key',
        ownerKey,
        '--user',
        'bo@example.com',
        '--scope',
        'collector',
      ]);
      expect(collector.status, collector.stderr).toBe(0);
      expect(collector.stdout).toContain(', collector) for ');
      const bos = runCli(['keys', 'list', '--server', server.url, '--key', ownerKey, '--user', 'bo@example.com', '--json']);
      expect((JSON.parse(bos.stdout) as { kind: string; scope: string }[]).map((k) => [k.kind, k.scope])).toEqual([
        ['invitation', 'personal'],
        ['delegated', 'personal'],
        ['delegated', 'collector'],
      ]);
      // The collector key reads no organization data: the CLI's admin commands are refused with it.
      const withCollector = runCli(['users', 'list', '--server', server.url, '--key', lastLine(collector.stdout)]);
      expect(withCollector.status).toBe(1);
      expect(withCollector.stderr).toContain('403');
      // A member cannot add users.
      const refused = runCli(['users', 'add', '--server', server.url, '--key', memberKey, '--email', 'c@example.com', '--role', 'guest']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('403');
      // A record the server refuses (a clock from 1990) goes to quarantine with the server's reason.
      const amHome = join(dir, 'am');
      writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's' }, { time: '1990-01-01T00:00:00Z' });
      // Three days ago: the first day the organization has data, where its range batch below begins.
      const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
      writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's' }, { time: `${day(3)}T12:00:00Z` });
      const shipped = runCli(['collect', '--once', '--server', server.url, '--key', memberKey], { HOME: dir, AGENTMETER_HOME: amHome });
      expect(shipped.status, shipped.stderr).toBe(0);
      expect(shipped.stdout).toContain('shipped 1, quarantined 1');
      const bad = readdirSync(join(amHome, 'spool', 'bad'));
      expect(bad).toHaveLength(2);
      const reason = readFileSync(join(amHome, 'spool', 'bad', bad.find((f) => f.endsWith('.reason'))!), 'utf8');
      expect(reason).toContain('server rejected: ts');
      // The batch runs inside the server for a manager; a member is refused.
      // Asked for 30 days, it rebuilds the organization's 3 that can hold data: from its first record to yesterday.
      const batch = runCli(['batch', '--server', server.url, '--key', ownerKey, '--from', day(30), '--to', day(1)]);
      expect(batch.status, batch.stderr).toBe(0);
      expect(batch.stdout).toContain(`: 3 days rebuilt (${day(3)} … ${day(1)})`);
      const refusedBatch = runCli(['batch', '--server', server.url, '--key', memberKey]);
      expect(refusedBatch.status).toBe(1);
      expect(refusedBatch.stderr).toContain('403');
      // A readiness report uploaded from the command line, and one refused before it leaves the machine.
      const reportFile = join(dir, 'report.json');
      writeFileSync(
        reportFile,
        JSON.stringify({
          repoUrl: 'git@github.com:acme/app.git',
          apps: { '.': { description: 'app' } },
          report: { readme: { numerator: 1, denominator: 1, rationale: 'README.md present' } },
        }),
      );
      const uploaded = runCli(['readiness', 'upload', reportFile, '--server', server.url, '--key', memberKey]);
      expect(uploaded.status, uploaded.stderr).toBe(0);
      expect(lastLine(uploaded.stdout)).toMatch(/^[0-9a-f-]{36}$/);
      writeFileSync(
        reportFile,
        JSON.stringify({ repoUrl: 'x', apps: {}, report: { readme: { numerator: 2, denominator: 1, rationale: '' } } }),
      );
      const invalid = runCli(['readiness', 'upload', reportFile, '--server', server.url, '--key', memberKey]);
      expect(invalid.status).toBe(1);
      expect(invalid.stderr).toContain('numerator must not exceed denominator');
      // Evaluate this very repository and upload the report.
      const evaluated = runCli(['readiness', 'evaluate', ROOT, '--upload', '--server', server.url, '--key', memberKey]);
      expect(evaluated.status, evaluated.stderr).toBe(0);
      expect(evaluated.stdout).toMatch(/^readiness level [1-5] of 5/);
      expect(lastLine(evaluated.stdout)).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await server.stop();
    }
  });

  it('batch on the database file: incremental, then a range with JSON output; bad dates are refused', async () => {
    const db = join(tempDir(), 'c.duckdb');
    await seedAccount(db);
    const first = runCli(['batch', '--db', db, '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ runId: 1, mode: 'incremental', days: 1, unpricedModels: [] });
    const range = runCli(['batch', '--db', db, '--from', '2026-02-01', '--to', '2026-02-10', '--json']);
    expect(JSON.parse(range.stdout)).toMatchObject({ runId: 2, mode: 'range', days: 10, firstDay: '2026-02-01', lastDay: '2026-02-10' });
    const bad = runCli(['batch', '--db', db, '--from', '2026-02-10', '--to', '2026-02-01']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('after');
    // A range over 400 days is refused before the database is opened; a longer backfill is a loop of ranges.
    const tooLong = runCli(['batch', '--db', join(tempDir(), 'never.duckdb'), '--from', '2025-01-01', '--to', '2026-02-05']);
    expect(tooLong.status).toBe(1);
    expect(tooLong.stderr).toContain('at most 400 days');
    const impossible = runCli(['batch', '--db', db, '--from', '2026-02-30']);
    expect(impossible.status).toBe(1);
    expect(impossible.stderr).toContain('real calendar day');
  });

  it('hooks status and uninstall through the CLI; a malformed settings file is reported, not overwritten', () => {
    const home = tempDir();
    const env = { HOME: home, AGENTMETER_HOME: join(home, '.agentmeter') };
    expect(runCli(['hooks', 'status', '--agent', 'claude'], env).stdout).toContain('not installed');
    expect(runCli(['hooks', 'install', '--agent', 'claude'], env).status).toBe(0);
    expect(runCli(['hooks', 'status', '--agent', 'claude'], env).stdout).toContain('claude: installed');
    const removed = runCli(['hooks', 'uninstall', '--agent', 'claude'], env);
    expect(removed.stdout).toContain('- Stop');
    // The install created the file (no backup of an earlier one): uninstall leaves no file, as before.
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
    const project = join(home, 'settings.json');
    // A settings file may hold a key: the message says where the error is, never what is around it.
    const text = '{"env": {"ANTHROPIC_API_KEY": sk-ant-0123456789}}';
    writeFileSync(project, text);
    const broken = runCli(['hooks', 'install', '--agent', 'claude', '--settings', project], env);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain(`${project} is not JSON; it was left untouched`);
    expect(broken.stderr).not.toContain('sk-ant');
    expect(readFileSync(project, 'utf8')).toBe(text);
    expect(existsSync(`${project}.agentmeter-backup`)).toBe(false);
  });
});
