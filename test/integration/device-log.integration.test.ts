// The request log never holds a device sign-in's user code: the approval page's API puts it in the path
// (GET and POST /api/v0/auth/device/requests/{userCode}), and a log reader holding a pending code could
// approve it with their own account (the machine would then deliver to them) or deny it. The page's own
// ?code= is redacted as every query parameter named code is (api/http/request-log.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { buildServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const logFile = join(tempDir(), 'server.log');
let db: Db;
let app: FastifyInstance;
let ownerKey: string;

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'device-log.duckdb'));
  const log = createLogger({ name: 'test', level: 'info', destination: logFile });
  ({ app } = await buildServer({ db, log, decodeWorkers: 0 }));
  const accounts = new AccountStore(db);
  const org = await accounts.createOrg('Acme');
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@acme.example.com', role: 'owner' });
  ownerKey = (await accounts.createKey(owner)).key;
});
afterAll(async () => {
  await app.close();
  await db.close();
});

it('writes no user code to the request log, in the path or the query, before or after its approval', async () => {
  const started = await app.inject({ method: 'POST', url: '/api/v0/auth/device', payload: { name: 'install.sh on ana-laptop' } });
  expect(started.statusCode, started.body).toBe(201);
  const { userCode, deviceCode } = started.json() as { userCode: string; deviceCode: string };
  const bare = userCode.replace('-', '');
  for (const typed of [userCode, bare.toLowerCase()]) {
    const res = await app.inject({ method: 'GET', url: `/api/v0/auth/device/requests/${typed}`, headers: bearer(ownerKey) });
    expect(res.statusCode, res.body).toBe(200);
  }
  await app.inject({ method: 'GET', url: `/device?code=${userCode}` });
  const approved = await app.inject({
    method: 'POST',
    url: `/api/v0/auth/device/requests/${userCode}`,
    headers: bearer(ownerKey),
    payload: { decision: 'approve' },
  });
  expect(approved.statusCode, approved.body).toBe(200);
  const log = readFileSync(logFile, 'utf8');
  expect(log).toContain('/api/v0/auth/device/requests/[redacted]');
  for (const secret of [userCode, bare, bare.toLowerCase(), deviceCode]) expect(log).not.toContain(secret);
});
