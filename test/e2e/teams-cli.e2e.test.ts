// `agentmeter teams` as a subprocess: import and list on the database file (--db, server stopped) and
// through a running server (--server/--key); a bad roster refused whole with every bad line on stderr;
// a manager's key may list but not import.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('agentmeter teams', { timeout: 180_000 }, () => {
  it('imports and lists on the database file, and through a running server', async () => {
    const dir = tempDir();
    const db = join(dir, 't.duckdb');
    const { org, key: ownerKey } = await seedAccount(db, 'owner', 'owner@example.com');
    const { key: managerKey } = await seedAccount(db, 'manager', 'ana@example.com', org);
    await seedAccount(db, 'member', 'bo@example.com', org);
    const good = join(dir, 'roster.csv');
    writeFileSync(good, 'email,team,parent,from,to\nana@example.com,Web,Engineering,2026-03-01,\nbo@example.com,"Web",,,2026-03-10\n');
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'email,team,parent,from,to\nnobody@example.com,Web,,,\nbo@example.com,Data,,2026-13-01,\n');

    const imported = runCli(['teams', 'import', good, '--db', db, '--org', org]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('imported: 1 team, 2 memberships; created Engineering, Web');
    const refused = runCli(['teams', 'import', bad, '--db', db, '--org', org]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('line 2: no user of the organization has the e-mail nobody@example.com');
    expect(refused.stderr).toContain('line 3: from "2026-13-01" is not a date');
    const listed = JSON.parse(runCli(['teams', 'list', '--db', db, '--org', org, '--json']).stdout) as {
      teams: { name: string; parent: string | null; members: unknown[] }[];
    };
    expect(listed.teams.map((t) => [t.name, t.parent, t.members.length])).toEqual([
      ['Engineering', null, 0],
      ['Web', 'Engineering', 2],
    ]);
    expect(runCli(['teams', 'list', '--db', db, '--org', 'org_nope']).stderr).toContain('no organization org_nope');

    const server = await startServerProcess(db);
    try {
      const byManager = runCli(['teams', 'import', good, '--server', server.url, '--key', managerKey]);
      expect(byManager.status).toBe(1);
      expect(byManager.stderr).toContain('403');
      const remoteBad = runCli(['teams', 'import', bad, '--server', server.url, '--key', ownerKey]);
      expect(remoteBad.status).toBe(1);
      expect(remoteBad.stderr).toContain('line 2: no user');
      expect(remoteBad.stderr).toContain('line 3: from');
      writeFileSync(good, 'email,team,parent,from,to\nbo@example.com,Data,Engineering,,\n');
      const remote = runCli(['teams', 'import', good, '--server', server.url, '--key', ownerKey]);
      expect(remote.status, remote.stderr).toBe(0);
      expect(remote.stdout).toContain('created Data');
      expect(runCli(['teams', 'min-size', '2', '--server', server.url, '--key', ownerKey]).status).toBe(0);
      const text = runCli(['teams', 'list', '--server', server.url, '--key', managerKey]);
      expect(text.status, text.stderr).toBe(0);
      expect(text.stdout).toContain('Data (in Engineering): 1 membership');
      expect(text.stdout).toContain('  bo@example.com\talways to now');
      expect(text.stdout).toContain('Web (in Engineering): 2 memberships');
      expect(text.stdout).toContain('minimum team size: 2');
    } finally {
      await server.stop();
    }
  });
});
