// The identity admin commands as subprocesses: `scim token create|list|revoke` on the database file
// (server stopped) and through a running server with an owner's key; the token printed on the last line
// is what the directory then uses on /scim/v2.
import { writeFileSync } from 'node:fs';
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

describe('agentmeter orgs oidc', { timeout: 180_000 }, () => {
  it('sets the provider on the database file, then through a running server with an owner key; the secret comes from a file', async () => {
    const dir = tempDir();
    const db = join(dir, 'oidc.duckdb');
    const { org, key: ownerKey } = await seedAccount(db, 'owner', 'owner@example.com');
    const { key: managerKey } = await seedAccount(db, 'manager', 'manager@example.com', org);
    const secretFile = join(dir, 'secret.txt');
    writeFileSync(secretFile, 'file-secret-0123456789\n');
    const args = ['--issuer', 'https://login.example.com', '--client-id', 'agentmeter', '--client-secret-file', secretFile];
    // On the file the CLI cannot ask the server where browsers reach it: --public-url says so.
    const noUrl = runCli(['orgs', 'oidc', '--db', db, '--org', org, ...args]);
    expect(noUrl.status).toBe(1);
    expect(noUrl.stderr).toContain('--public-url is required with --db');
    const publicUrl = ['--public-url', 'https://agentmeter.example.com'];
    // An http or loopback issuer is refused on the file too, naming the flag that allows it.
    for (const issuer of ['http://login.example.com', 'https://[::ffff:7f00:1]']) {
      const refused = runCli(['orgs', 'oidc', '--db', db, '--org', org, ...publicUrl, ...args.slice(2), '--issuer', issuer]);
      expect(refused.status, issuer).toBe(1);
      expect(refused.stderr, issuer).toContain('--allow-private-oidc');
    }
    const onFile = runCli(['orgs', 'oidc', '--db', db, '--org', org, ...publicUrl, ...args, '--provision', 'member']);
    expect(onFile.status, onFile.stderr).toBe(0);
    expect(onFile.stdout).toContain(`sign-in starts at https://agentmeter.example.com/auth/oidc/${org}/login`);
    expect(onFile.stdout).toContain('register https://agentmeter.example.com/auth/oidc/callback as the redirect URI');
    expect(onFile.stdout).not.toContain('<server>');
    expect(onFile.stdout).not.toContain('file-secret');
    expect(
      runCli(['orgs', 'oidc', '--db', db, '--org', org, ...args.slice(0, 4), '--client-secret-file', join(dir, 'missing')]).stderr,
    ).toContain('cannot read');

    const server = await startServerProcess(db);
    try {
      const shown = await fetch(`${server.url}/api/v0/organization/oidc`, { headers: { authorization: `Bearer ${ownerKey}` } });
      expect(await shown.json()).toMatchObject({
        provider: { issuer: 'https://login.example.com', provision: 'member', groupsClaim: null },
      });
      const refused = runCli(['orgs', 'oidc', '--server', server.url, '--key', managerKey, ...args]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('403');
      // The server checks the issuer: a loopback provider needs serve --allow-private-oidc.
      const loopback = runCli([
        'orgs',
        'oidc',
        '--server',
        server.url,
        '--key',
        ownerKey,
        ...args.slice(2),
        '--issuer',
        'https://127.0.0.1:9443',
      ]);
      expect(loopback.status).toBe(1);
      expect(loopback.stderr).toContain('--allow-private-oidc');
      const http = runCli([
        'orgs',
        'oidc',
        '--server',
        server.url,
        '--key',
        ownerKey,
        ...args.slice(2),
        '--issuer',
        'http://login.example.com',
      ]);
      expect(http.status).toBe(1);
      expect(http.stderr).toContain('--allow-private-oidc');
      const viaServer = runCli(['orgs', 'oidc', '--server', server.url, '--key', ownerKey, ...args, '--groups-claim', 'groups']);
      expect(viaServer.status, viaServer.stderr).toBe(0);
      // The server answers where it is reached (its --public-url, else the address the CLI used).
      expect(viaServer.stdout).toContain(`register ${server.url}/auth/oidc/callback as the redirect URI`);
      const after = await fetch(`${server.url}/api/v0/organization/oidc`, { headers: { authorization: `Bearer ${ownerKey}` } });
      expect(await after.json()).toMatchObject({ provider: { provision: 'none', groupsClaim: 'groups' } });
    } finally {
      await server.stop();
    }
  });
});
