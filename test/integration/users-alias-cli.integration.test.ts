// `agentmeter users alias add|remove` (docs/metrics.md §5 "Landed"): an owner gives a user another address
// (a code host's no-reply address) so that commits it authored land for them; with the database file the
// operator acts as an owner. The HTTP route it calls through a server is tested in code-commits.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AliasStore } from '../../api/aliases/store.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { lastLine, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('agentmeter users alias', () => {
  it("adds and removes an address, refuses another user's, and the store answers the same", { timeout: 300_000 }, async () => {
    const db = join(tempDir(), 'a.duckdb');
    const org = lastLine(runCli(['orgs', 'add', '--db', db, '--name', 'Acme']).stdout).match(/org_[A-Za-z0-9_]+/)![0];
    for (const email of ['ana@example.com', 'bo@example.com'])
      expect(runCli(['users', 'add', '--db', db, '--org', org, '--email', email, '--role', 'member']).status).toBe(0);
    const alias = (change: string, user: string, email: string) =>
      runCli(['users', 'alias', change, '--db', db, '--org', org, '--user', user, '--email', email]);
    const added = alias('add', 'ana@example.com', '1+Ana@users.noreply.github.com');
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toBe('aliases of ana@example.com: 1+ana@users.noreply.github.com\n');
    const taken = alias('add', 'bo@example.com', '1+ana@users.noreply.github.com');
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/another user's address/);
    expect(alias('add', 'bo@example.com', 'ANA@example.com').stderr).toMatch(/another user's address/);
    expect(alias('add', 'bo@example.com', 'not an address').stderr).toMatch(/not an e-mail address/);
    const handle = await openDb(db);
    try {
      const users = await handle.all<{ id: string; email: string }>('SELECT id, email FROM users ORDER BY email');
      expect(await new AliasStore(handle).addresses(org, users[0]!.id)).toEqual(['ana@example.com', '1+ana@users.noreply.github.com']);
    } finally {
      await handle.close();
    }
    expect(alias('remove', 'ana@example.com', '1+ana@users.noreply.github.com').stdout).toBe('aliases of ana@example.com: none\n');
    expect(alias('remove', 'ana@example.com', '1+ana@users.noreply.github.com').stderr).toMatch(/is not an alias/);
  });
});
