import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { MASK } from '../../api/controls/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { buildServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const SECRET = 'sk-live-0123456789abcdef';
const HEADER_SECRET = 'Bearer hdr-secret-42';
const dir = tempDir();
const logFile = join(dir, 'server.log');
let db: Db;
let app: FastifyInstance;
const keys: Record<string, string> = {};
let otherOwner: string;

beforeAll(async () => {
  db = await openDb(join(dir, 'controls.duckdb'));
  // A real logger writing to a file, so the test can read every line the server wrote.
  ({ app } = await buildServer({ db, log: createLogger({ name: 'test', level: 'debug', destination: logFile }) }));
  const accounts = new AccountStore(db);
  const org = await accounts.createOrg('Acme');
  for (const role of ['owner', 'manager', 'member'] as const) {
    const user = await accounts.createUser({
      orgId: org.id,
      email: `${role}@acme.example.com`,
      role,
      firstName: role === 'owner' ? 'Olga' : undefined,
      lastName: role === 'owner' ? 'Owner' : undefined,
    });
    keys[role] = (await accounts.createKey(user)).key;
  }
  const other = await accounts.createOrg('Other');
  otherOwner = (await accounts.createKey(await accounts.createUser({ orgId: other.id, email: 'o@other.example.com', role: 'owner' }))).key;
});
afterAll(async () => {
  await app.close();
  await db.close();
});

const settings = (extra: Record<string, unknown> = {}) => ({
  sessionDefaultSettings: { model: 'claude-sonnet-4-5' },
  modelPolicy: { allowedModelIds: ['claude-sonnet-4-5'], allowCustomModels: true },
  customModels: [
    {
      id: 'corp-llm',
      model: 'corp',
      baseUrl: 'https://llm.corp.example.com',
      apiKey: SECRET,
      extraHeaders: { Authorization: HEADER_SECRET },
      maxOutputTokens: 4096,
    },
  ],
  sandbox: { enabled: true, network: { allowedDomains: ['github.com'], httpProxyPort: 8080 } },
  mcpPolicy: { allowlist: ['github'] },
  sessionRetentionDays: 30,
  ...extra,
});
const put = (key: string, body: unknown) =>
  app.inject({ method: 'PUT', url: '/api/v0/organization/enterprise-controls', headers: bearer(key), payload: body as object });
const history = (key: string, query = '') =>
  app.inject({ method: 'GET', url: `/api/v0/organization/enterprise-controls/history${query}`, headers: bearer(key) });

describe('enterprise controls', () => {
  it('stores revisions with who and when; secrets are masked in every response and never logged', async () => {
    const first = await put(keys['owner']!, { settings: settings() });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ revision: 1, user: { email: 'owner@acme.example.com', name: 'Olga Owner' } });
    expect(body.settings.customModels[0]).toMatchObject({
      apiKey: MASK,
      extraHeaders: { Authorization: MASK },
      baseUrl: 'https://llm.corp.example.com',
    });
    expect(body.settings.mcpPolicy).toEqual({ enabled: false, allowlist: ['github'] }); // the default applied
    // Sending the masked settings back keeps the stored secrets.
    const second = await put(keys['owner']!, { settings: { ...body.settings, sessionRetentionDays: 60 } });
    expect(second.json().revision).toBe(2);
    const stored = await db.all<{ settings: string }>(
      'SELECT CAST(settings AS VARCHAR) AS settings FROM enterprise_controls ORDER BY revision',
    );
    for (const row of stored) {
      expect(row.settings).toContain(SECRET);
      expect(row.settings).toContain(HEADER_SECRET);
    }
    const current = await app.inject({ method: 'GET', url: '/api/v0/organization/enterprise-controls', headers: bearer(keys['manager']!) });
    expect(current.json()).toMatchObject({ revision: 2, settings: { sessionRetentionDays: 60 } });
    const everything = JSON.stringify([body, second.json(), current.json(), (await history(keys['manager']!)).json()]);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('hdr-secret');
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('enterprise controls changed');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('hdr-secret');
  });

  it('history pages newest first to the end, no skip or repeat while revisions are added', async () => {
    for (let i = 0; i < 5; i++) await put(keys['owner']!, { settings: { sessionRetentionDays: 10 + i } });
    const seen: number[] = [];
    let cursor: string | undefined;
    let added = false;
    for (;;) {
      const page = (await history(keys['owner']!, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
      seen.push(...page.changes.map((c: { revision: number }) => c.revision));
      if (!added) {
        await put(keys['owner']!, { settings: { sessionRetentionDays: 99 } });
        added = true;
      }
      if (!page.pagination.hasMore) break;
      cursor = page.pagination.nextCursor;
    }
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('unknown keys and bad values are 400; only owners change, owners and managers read; other orgs see none', async () => {
    for (const body of [
      { settings: { surprise: true } },
      { settings: { sandbox: { network: { httpProxyPort: 70000 } } } },
      { settings: { customModels: [{ apiKey: 'x', temperature: 1 }] } },
      { settings: { byomComputersAllowedEmails: ['nope'] } },
      { other: {} },
    ]) {
      const res = await put(keys['owner']!, body);
      expect(res.statusCode).toBe(400);
      ErrorBodySchema.parse(res.json());
    }
    expect((await put(keys['manager']!, { settings: {} })).statusCode).toBe(403);
    expect((await put(keys['member']!, { settings: {} })).statusCode).toBe(403);
    expect((await history(keys['member']!)).statusCode).toBe(403);
    for (const q of ['?limit=0', '?limit=101', '?cursor=abc', '?cursor=0'])
      expect((await history(keys['owner']!, q)).statusCode, q).toBe(400);
    expect((await history(otherOwner)).json()).toEqual({ changes: [], pagination: { hasMore: false } });
    expect((await app.inject({ method: 'GET', url: '/api/v0/organization/enterprise-controls/history' })).statusCode).toBe(401);
    expect(
      (await app.inject({ method: 'PUT', url: '/api/v0/organization/enterprise-controls', payload: { settings: {} } })).statusCode,
    ).toBe(401);
  });
});
