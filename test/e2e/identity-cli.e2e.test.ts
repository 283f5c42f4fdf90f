// The identity admin commands as subprocesses: `scim token create|list|revoke` on the database file
// (server stopped) and through a running server with an owner's key; the token printed on the last line
// is what the directory then uses on /scim/v2.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastLine, runCli, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const scimUsers = (url: string, token: string) => fetch(`${url}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });

describe('agentmeter scim token', { timeout: 180_000 }, () => {
  it('on the database file, then through a running server with an owner key (not a manager)', async () => {
    const db = join(tempDir(), 'scim.duckdb');
    const { org, key: ownerKey } = await seedAccount(db, 'owner', 'owner@example.com');
    const { key: managerKey } = await seedAccount(db, 'manager', 'manager@example.com', org);
    const created = runCli(['scim', 'token', 'create', '--db', db, '--org', org, '--name', 'okta']);
    expect(created.status, created.stderr).toBe(0);
    const fileToken = lastLine(created.stdout);
    expect(fileToken).toMatch(/^amscim_/);
    const tokenId = /SCIM token (sct_[0-9a-f]+)/.exec(created.stdout)![1]!;
    const listed = runCli(['scim', 'token', 'list', '--db', db, '--org', org, '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: tokenId, name: 'okta', revokedAt: null }]);
    expect(listed.stdout).not.toContain(fileToken);
    expect(runCli(['scim', 'token', 'create', '--db', db]).stderr).toContain('--org is required');

    const server = await startServerProcess(db);
    try {
      expect((await scimUsers(server.url, fileToken)).status).toBe(200);
      const viaServer = runCli(['scim', 'token', 'create', '--server', server.url, '--key', ownerKey]);
      expect(viaServer.status, viaServer.stderr).toBe(0);
      const serverToken = lastLine(viaServer.stdout);
      expect(serverToken).toMatch(/^amscim_/);
      expect((await scimUsers(server.url, serverToken)).status).toBe(200);
      const refused = runCli(['scim', 'token', 'create', '--server', server.url, '--key', managerKey]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('403');
      const revoked = runCli(['scim', 'token', 'revoke', tokenId, '--server', server.url, '--key', ownerKey]);
      expect(revoked.stdout, revoked.stderr).toContain(`revoked ${tokenId}`);
      expect((await scimUsers(server.url, fileToken)).status).toBe(401);
      expect((await scimUsers(server.url, serverToken)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
