// A user removed with erasure while a batch of theirs is in the store (api/ingest/store.ts, removeSender):
// the erasure never leaves a row of theirs behind. A batch whose transaction is open when the removal
// comes is written first and erased with the rest; a batch authenticated before the removal but not yet
// written is refused (401 through the routes), nothing of it stored.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { type DecodedBatch, decodeItems } from '../../api/ingest/decode.ts';
import { IngestStore, SenderRemoved, type StoreResult } from '../../api/ingest/store.ts';
import { removeUser } from '../../api/users/remove.ts';
import type { User } from '../../api/users/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import type { OrgId } from '../../common/ids.ts';
import { claudeAcceptedEdits } from '../helpers/otlp.ts';
import { call } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const day = '2026-03-02';

/**
 * The next `pauses` transactions of `db` and of the connections it makes stop after their BEGIN until
 * released, in the order they began.
 */
function pausable(db: Db) {
  const paused: (() => void)[] = [];
  let pauses = 0;
  const wrap = (on: Db) => {
    const transaction = on.transaction.bind(on);
    on.transaction = (fn, order) =>
      transaction(async (tx) => {
        if (pauses > 0) {
          pauses--;
          await new Promise<void>((resolve) => paused.push(resolve));
        }
        return fn(tx);
      }, order);
    return on;
  };
  const connection = db.connection.bind(db);
  db.connection = async () => wrap(await connection());
  wrap(db);
  return {
    pause(n: number) {
      pauses = n;
    },
    /** Resolves once `n` transactions are paused. */
    async reached(n: number) {
      while (paused.length < n) await sleep(5);
    },
    release() {
      paused.shift()!();
    },
  };
}

const events = (n: number) =>
  decodeItems(
    Array.from({ length: n }, () => call('Bash', day)),
    10_000,
  );

describe('a removal with erasure while batches of the removed user are in the store', () => {
  let db: Db;
  let ingest: IngestStore;
  let orgId: OrgId;
  let ana: User;
  let bo: User;
  beforeEach(async () => {
    db = await openDb(`${tempDir()}/removal.duckdb`);
    const accounts = new AccountStore(db);
    orgId = (await accounts.createOrg('Acme')).id;
    await accounts.createUser({ orgId, email: 'owner@acme.example.com', role: 'owner' });
    ana = await accounts.createUser({ orgId, email: 'ana@acme.example.com', role: 'member' });
    bo = await accounts.createUser({ orgId, email: 'bo@acme.example.com', role: 'member' });
  });
  afterEach(async () => {
    ingest.close();
    await db.close();
  });

  const countOf = async (user: User) =>
    (await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM events WHERE user_id = $user', { user: user.id }))[0]!.n;
  const erase = (user: User) => ingest.removeSender(user.org_id, user.id, () => removeUser(db, user, true));

  it('refuses a batch that waited for the writer while the removal came first', async () => {
    const gate = pausable(db);
    ingest = new IngestStore(db);
    gate.pause(1);
    const first = ingest.store(orgId, bo.id, await events(3));
    await gate.reached(1);
    // Ana's batch waits for the writer behind Bo's; her removal is asked for before it is written.
    const anaBatch = await events(5);
    const anas = ingest.store(orgId, ana.id, anaBatch).catch((error: unknown) => error);
    const removal = erase(ana);
    gate.release();
    expect(await first).toEqual({ stored: 3, duplicates: 0, refused: [] } satisfies StoreResult);
    expect((await removal).erased).toMatchObject({ events: 0 });
    expect(await anas).toBeInstanceOf(SenderRemoved);
    expect(await countOf(ana)).toBe(0);
    expect(await countOf(bo)).toBe(3);
    // Her later batches too.
    await expect(ingest.store(orgId, ana.id, await events(2))).rejects.toBeInstanceOf(SenderRemoved);
    expect(await countOf(ana)).toBe(0);
  });

  it('erases a full batch written beside the writer while the removal waited', async () => {
    const gate = pausable(db);
    ingest = new IngestStore(db);
    gate.pause(2);
    // Bo's on the writer, Ana's beside it (over 2,000 records, while the writer is busy): both open.
    const bos = ingest.store(orgId, bo.id, await events(2_500));
    await gate.reached(1);
    const anas = ingest.store(orgId, ana.id, await events(2_500));
    await gate.reached(2);
    let settled = false;
    const removal = erase(ana).finally(() => {
      settled = true;
    });
    gate.release();
    // The removal must not run while Ana's transaction is open: given the chance to, it has not.
    await Promise.race([removal, sleep(300)]);
    expect(settled).toBe(false);
    gate.release();
    const [boAnswer, anaAnswer, report] = await Promise.all([bos, anas, removal]);
    expect(ingest.transactions.beside.committed).toBe(1);
    expect(boAnswer.stored).toBe(2_500);
    expect((anaAnswer as StoreResult).stored).toBe(2_500);
    expect(report.erased).toMatchObject({ events: 2_500 });
    expect(await countOf(ana)).toBe(0);
    expect(await countOf(bo)).toBe(2_500);
  });

  it('a removal the store refuses (the last owner) refuses nothing of the user’s batches', async () => {
    ingest = new IngestStore(db);
    const owner = (await db.all<User & Record<string, unknown>>("SELECT id, org_id FROM users WHERE role = 'owner'"))[0]!;
    await expect(ingest.removeSender(orgId, owner.id, () => removeUser(db, owner, true))).rejects.toThrow(/last owner/);
    const batch: DecodedBatch = await events(2);
    expect((await ingest.store(orgId, owner.id, batch)).stored).toBe(2);
  });
});

describe('through the routes, a batch of a sender removed after it was authenticated', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await testServer({ decodeWorkers: 0 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('is answered 401 on ingest and on /v1/metrics, nothing of it stored', async () => {
    const org = await server.seedOrg('Acme');
    const member = org.users.member;
    const { ingest } = server.services;
    // Removed in the store's eyes only: the key still authenticates, as a request authenticated just
    // before the removal was.
    await ingest.removeSender(org.orgId as OrgId, member.id as User['id'], async () => undefined);
    const posted = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(member.key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipNdjson([call('Bash', day)]),
    });
    expect(posted.statusCode, posted.body).toBe(401);
    expect(posted.json()).toMatchObject({
      status: 401,
      detail: 'the user of this credential was removed; nothing of this batch was stored',
    });
    const metrics = await server.app.inject({
      method: 'POST',
      url: '/v1/metrics',
      headers: { ...bearer(member.key), 'content-type': 'application/json' },
      payload: JSON.stringify(claudeAcceptedEdits(4, { cumulative: true })),
    });
    expect(metrics.statusCode, metrics.body).toBe(401);
    for (const table of ['events', 'edit_decisions', 'otlp_cumulative'])
      expect(await server.db.all(`SELECT count(*)::INTEGER AS n FROM ${table}`)).toEqual([{ n: 0 }]);
  });

  it('stored just before the removal leaves no OpenTelemetry running totals after it', async () => {
    const org = await server.seedOrg('Acme');
    const member = org.users.member;
    const { ingest } = server.services;
    const user = (await server.services.accounts.getUser(org.orgId, member.id))!;
    // The removal with erasure lands between the request's store and its saving of the running totals.
    const store = ingest.store.bind(ingest);
    ingest.store = async (...args) => {
      const result = await store(...args);
      await ingest.removeSender(user.org_id, user.id, () => removeUser(server.db, user, true));
      return result;
    };
    const metrics = await server.app.inject({
      method: 'POST',
      url: '/v1/metrics',
      headers: { ...bearer(member.key), 'content-type': 'application/json' },
      payload: JSON.stringify(claudeAcceptedEdits(4, { cumulative: true })),
    });
    expect(metrics.statusCode, metrics.body).toBe(200);
    expect(await server.db.all('SELECT count(*)::INTEGER AS n FROM otlp_cumulative')).toEqual([{ n: 0 }]);
  });
});
