// What validation accepts, the store accepts: records that pass zod are stored (DuckDB's read_json loads
// the whole temporary file, so one record it refuses used to fail the batch with a 500 forever); what the
// store still refuses is a 422 the collector can narrow down; the temporary files are private and a
// killed server's leftovers are removed at the next start.

import { lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { decodeNdjson } from '../../api/ingest/decode.ts';
import { BatchRefused, IngestStore, ingestTempRoot } from '../../api/ingest/store.ts';
import { buildServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { MAX_TOKENS } from '../../common/wire.ts';
import { bearer, ndjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const T = Date.UTC(2026, 2, 1, 12);
const event = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'event',
  id,
  agent: 'claude',
  event: 'PreToolUse',
  ts: T,
  session_id: 's1',
  client: 'terminal-ui',
  autonomy: 'manual',
  ...extra,
});
const usage = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'usage',
  id,
  agent: 'claude',
  session_id: 's1',
  ts: T,
  model: 'claude-sonnet-4',
  input_tokens: 1,
  output_tokens: 2,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  thinking_tokens: 0,
  thinking: false,
  ...extra,
});
const message = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  id,
  agent: 'claude',
  session_id: 's1',
  ts: T,
  ...extra,
});

/** A lone surrogate as the JSON escape a hook payload carries (JSON.stringify writes it so, too). */
const LONE = '\udfff';

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(decodeWorkers = 0) {
  const s = await testServer({ decodeWorkers });
  servers.push(s);
  const org = await s.seedOrg();
  const post = (body: string, contentType = 'application/x-ndjson') =>
    s.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': contentType },
      payload: body,
    });
  return { s, org, post };
}

const count = async (db: Db, table: string) => Number((await db.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);

describe('ill-formed Unicode is rejected per record; the rest of the batch is stored', () => {
  // Every string field of every record kind, nested ones included, with a lone high or low surrogate.
  const bad = [
    event('e-tool', { tool_name: `Bash${LONE}` }),
    event(`e-id${LONE}`),
    event('e-event', { event: `Pre\ud800` }),
    event('e-session', { session_id: `s${LONE}` }),
    event('e-mcp', { mcp_server: `m${LONE}` }),
    event('e-skill', { skill: `k${LONE}` }),
    event('e-slash', { slash_command: `/x${LONE}` }),
    event('e-reason', { reason: `r${LONE}` }),
    event('e-agent-id', { agent_id: `a${LONE}` }),
    event('e-agent-type', { agent_type: `t${LONE}` }),
    event('e-file', { files: [{ ext: `t${LONE}`, op: 'edit' }] }),
    event('e-file-name', { files: [{ ext: '', name: `Make${LONE}`, op: 'edit' }] }),
    event('e-hook', { hooks: [{ event: 'PreToolUse', matcher: '', command: `echo ${LONE}` }] }),
    event('e-reversed-pair', { tool_name: 'x\ude00\ud83d' }),
    usage('u-model', { model: `m${LONE}` }),
    usage(`u-id${LONE}`),
    message('m-model', { model: `m${LONE}` }),
  ];
  const good = [event('good-1', { tool_name: 'Bash' }), event('good-pair', { tool_name: 'emoji 😀' }), usage('good-u'), message('good-m')];

  for (const [label, workers, contentType] of [
    ['NDJSON decoded on the event loop', 0, 'application/x-ndjson'],
    ['NDJSON decoded on a worker', 1, 'application/x-ndjson'],
    ['a JSON array', 0, 'application/json'],
  ] as const) {
    it(`${label}: 200, each bad record rejected with its reason, the good ones stored`, async () => {
      const { s, post } = await server(workers);
      const records = [good[0], ...bad, ...good.slice(1)];
      const res = await post(contentType === 'application/json' ? JSON.stringify(records) : ndjson(records), contentType);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { received: number; stored: number; rejected: { index: number; reason: string }[] };
      expect(body.received).toBe(records.length);
      expect(body.rejected.map((r) => r.index)).toEqual(bad.map((_, i) => i + 1));
      for (const r of body.rejected) expect(r.reason).toMatch(/not well-formed Unicode/);
      expect(body.stored).toBe(good.length);
      expect(await count(s.db, 'events')).toBe(2);
      expect(await count(s.db, 'usage')).toBe(1);
      expect(await count(s.db, 'assistant_messages')).toBe(1);
      const pair = await s.db.all<{ tool_name: string }>("SELECT tool_name FROM events WHERE id = 'good-pair'");
      expect(pair[0]!.tool_name).toBe('emoji 😀');
    });
  }

  it('token counts beyond what a day of BIGINT sums can hold are rejected', async () => {
    const { s, post } = await server();
    const res = await post(ndjson([usage('u-max', { cache_read_tokens: MAX_TOKENS }), usage('u-over', { input_tokens: MAX_TOKENS + 1 })]));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ stored: 1, rejected: [{ index: 1, id: 'u-over' }] });
    expect(await count(s.db, 'usage')).toBe(1);
  });
});

describe('every record validation accepts, the store accepts', () => {
  it('stores a corpus of edge values, lines kept as sent and lines written again alike', async () => {
    const { s, post } = await server();
    const lines = [
      JSON.stringify(event('nul', { tool_name: 'a\u0000b' })),
      JSON.stringify(event('controls', { tool_name: '\u0001\u001f\u007f\u0085', reason: '\t\n\r' })),
      JSON.stringify(event('separators', { tool_name: '\u2028\u2029\ufeff\ufffe\uffff' })),
      JSON.stringify(event('astral', { tool_name: '𝄞😀', skill: '\ud83d\ude00' })),
      JSON.stringify(
        event('x'.repeat(256), {
          tool_name: 'y'.repeat(1024),
          hooks: [{ event: 'e'.repeat(512), matcher: '', command: 'c'.repeat(1024) }],
        }),
      ),
      JSON.stringify(event('ts-low', { ts: 946_684_800_000 })),
      JSON.stringify(event('ts-high', { ts: 4_102_444_800_000 })),
      `{"kind":"event","id":"ts-exp","agent":"claude","event":"Stop","ts":1.7723e12,"session_id":"s","client":"web","autonomy":"spec"}`,
      `{"kind":"event",\t"id":"tab","agent":"claude","event":"Stop","ts":1772366400000,"session_id":"s","client":"web","autonomy":"spec"}`,
      `{"kind":"event","id":"esc\\u0041\\/","agent":"claude","event":"Stop","ts":1772366400000.0,"session_id":"s","client":"web","autonomy":"spec"}`,
      JSON.stringify(usage('u-max', { input_tokens: MAX_TOKENS, output_tokens: MAX_TOKENS, cache_write_tokens: MAX_TOKENS })),
      `{"kind":"usage","id":"u-exp","agent":"droid","session_id":"s","ts":1772366400000,"model":"m","input_tokens":1e3,"output_tokens":-0,"cache_read_tokens":5.0,"cache_write_tokens":0,"thinking_tokens":0,"thinking":true}`,
      JSON.stringify(message('m-none')),
      JSON.stringify(message('m-empty', { model: '' })),
    ];
    const res = await post(`${lines.join('\n')}\n`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: lines.length, stored: lines.length, duplicates: 0, rejected: [] });
    const stored = await s.db.all<{ id: string; tool_name: string | null }>('SELECT id, tool_name FROM events');
    expect(stored.find((r) => r.id === 'nul')?.tool_name).toBe('a\u0000b');
    expect(stored.some((r) => r.id === 'escA/')).toBe(true);
  });
});

describe('a batch decoded on a worker arrives in the store as it was sent', () => {
  // Bodies over 32 KiB are decoded on a worker, and an ASCII one's events cross back as the body's bytes.
  const withLists = (i: number, extra: Record<string, unknown> = {}) =>
    event(`w${i}`, {
      tool_name: 'Edit',
      files: [
        { ext: 'ts', op: 'edit' },
        { ext: '', name: 'Makefile', op: 'create' },
      ],
      edits: [{ ext: 'ts', lines_added: i, lines_deleted: 1, repo_id: 'repo_0123456789abcdef', repo: 'github.com/a/b' }],
      hooks: [{ event: 'PostToolUse', matcher: '*', command: `'/home/dev/.agentmeter/bin/agentmeter-hook.sh' claude ${i}` }],
      ...extra,
    });
  const ROWS = `SELECT id, tool_name, files, edits, hooks, epoch_ms(ts) AS ts, user_id FROM events ORDER BY id`;
  const expected = (records: Record<string, unknown>[], userId: string) =>
    records
      .map((r) => ({
        id: r.id,
        tool_name: r.tool_name,
        files: (r.files as { ext: string; name?: string; op: string }[]).map((f) => ({ ext: f.ext, name: f.name ?? null, op: f.op })),
        edits: (r.edits as Record<string, unknown>[]).map((e) => ({ name: null, ...e })),
        hooks: r.hooks,
        ts: r.ts,
        user_id: userId,
      }))
      .sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));

  it('ASCII and Unicode bodies, a repeated id, a re-delivery and another user’s id', async () => {
    const { s, org, post } = await server(2);
    const ascii = Array.from({ length: 200 }, (_, i) => withLists(i));
    // A repeated id (the first copy wins) and a line spaced out (kept as sent; DuckDB reads it alike).
    const lines = ascii.map((r) => JSON.stringify(r));
    lines.splice(50, 0, JSON.stringify(withLists(7, { tool_name: 'Later' })));
    lines[3] = lines[3]!.replace('"id":', '"id" : ');
    const body = `${lines.join('\n')}\n`;
    expect(body.length).toBeGreaterThan(32 * 1024);
    expect((await post(body)).json()).toEqual({ received: 201, stored: 200, duplicates: 1, rejected: [] });
    const member = org.users.member.id;
    expect(await s.db.all(ROWS)).toEqual(expected(ascii, member));

    // Not ASCII: cut from the text, the same rows byte for byte.
    const unicode = Array.from({ length: 200 }, (_, i) =>
      withLists(1000 + i, { tool_name: `Édit ${i} 😀`, hooks: [{ event: 'Stop', matcher: 'ü*', command: `notify — ${i} 𝄞` }] }),
    );
    const unicodeBody = `${unicode.map((r) => JSON.stringify(r)).join('\n')}\n`;
    expect((await post(unicodeBody)).json()).toEqual({ received: 200, stored: 200, duplicates: 0, rejected: [] });
    expect(await s.db.all(ROWS)).toEqual(expected([...ascii, ...unicode], member));

    // Delivered again (a lost acknowledgement): nothing changes, every record a duplicate.
    expect((await post(body)).json()).toEqual({ received: 201, stored: 0, duplicates: 201, rejected: [] });
    expect(await count(s.db, 'events')).toBe(400);

    // Another user of the organization sending one of those ids: refused, the row stays the member's.
    const other = await s.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.manager.key), 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify(withLists(9, { tool_name: 'Taken' }))}\n${JSON.stringify(withLists(5000))}\n`,
    });
    expect(other.json()).toMatchObject({ received: 2, stored: 1, rejected: [{ index: 0, id: 'w9' }] });
    expect(other.json().rejected[0].reason).toMatch(/another user of the organization/);
    expect(await s.db.all(`SELECT tool_name, user_id FROM events WHERE id = 'w9'`)).toEqual([{ tool_name: 'Edit', user_id: member }]);
  });
});

describe('a batch the store refuses as a whole', () => {
  const org = 'org_1' as OrgId;
  const user = 'usr_1' as UserId;

  it('is a BatchRefused with DuckDB reason and without the temporary file path', async () => {
    const db = await openDb(join(tempDir(), 'refuse.duckdb'));
    const store = new IngestStore(db);
    try {
      // The net under validation: a batch that skipped it, with a lone surrogate in its NDJSON.
      const batch = await decodeNdjson(`${JSON.stringify(event('a'))}\n`, 10);
      batch.events.ndjson = Buffer.concat([
        batch.events.ndjson,
        Buffer.from(
          '{"kind":"event","id":"b","agent":"claude","event":"Stop\\udfff","ts":1772366400000,"session_id":"s","client":"web","autonomy":"spec"}\n',
        ),
      ]);
      const error = await store.store(org, user, batch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BatchRefused);
      expect((error as Error).message).toMatch(/^Invalid Input Error: .*surrogate/);
      expect((error as Error).message).not.toContain('.ndjson');
      expect(await count(db, 'events')).toBe(0);
    } finally {
      store.close();
      await db.close();
    }
  });

  it('is answered 422 with the documented error body, nothing of the batch stored', async () => {
    const { s, post } = await server();
    const real = s.services.ingest.store.bind(s.services.ingest);
    s.services.ingest.store = async (orgId, userId, batch) => {
      batch.events.ndjson = Buffer.concat([
        batch.events.ndjson,
        Buffer.from(
          '{"kind":"event","id":"b","agent":"claude","event":"Stop\\ud800","ts":1772366400000,"session_id":"s","client":"web","autonomy":"spec"}\n',
        ),
      ]);
      return real(orgId, userId, batch);
    };
    const res = await post(ndjson([event('a')]));
    expect(res.statusCode).toBe(422);
    const body = ErrorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 422, title: 'Unprocessable Content' });
    expect(body.detail).toMatch(/the store refused this batch, nothing of it was stored: Invalid Input Error: .*surrogate/);
    expect(body.detail).not.toContain('.ndjson');
    expect(await count(s.db, 'events')).toBe(0);
  });
});

describe('temporary ingest files', () => {
  const log = createLogger({ name: 'test', level: 'silent' });

  it('a killed server leftovers are removed when the next server starts; the folder is 0700 and a link in its place is not followed', async () => {
    const dir = tempDir();
    const dbPath = join(dir, 'agentmeter.duckdb');
    const root = ingestTempRoot(dbPath);
    expect(root).toBe(`${dbPath}.ingest`);
    // What a kill -9 in the middle of a batch leaves: a store folder with raw events in it.
    mkdirSync(join(root, '4242-abcdef'), { recursive: true });
    writeFileSync(join(root, '4242-abcdef', '7-events.ndjson'), `${JSON.stringify(event('raw'))}\n`);
    writeFileSync(join(root, 'stray.ndjson'), 'x');
    const db = await openDb(dbPath);
    const { app, services } = await buildServer({ db, log, decodeWorkers: 0 });
    try {
      expect(services.ingest.swept).toBe(2);
      const left = readdirSync(root);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(new RegExp(`^${process.pid}-`));
      expect(statSync(root).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, left[0]!)).mode & 0o777).toBe(0o700);
    } finally {
      await app.close();
      await db.close();
    }
    expect(readdirSync(root)).toEqual([]);

    // A link where the folder should be: replaced by a folder of our own, its target untouched.
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'keep.txt'), 'keep');
    const linked = join(dir, 'linked.duckdb');
    symlinkSync(elsewhere, `${linked}.ingest`);
    expect(readlinkSync(`${linked}.ingest`)).toBe(elsewhere);
    const db2 = await openDb(linked);
    const store = new IngestStore(db2);
    try {
      expect(lstatSync(`${linked}.ingest`).isDirectory()).toBe(true);
      expect(readdirSync(elsewhere)).toEqual(['keep.txt']);
    } finally {
      store.close();
      await db2.close();
    }
  });

  it('are created 0600 whatever the umask, and removed once the batch is stored', async () => {
    const dbPath = join(tempDir(), 'modes.duckdb');
    const db = await openDb(dbPath);
    const seen: { name: string; mode: number }[] = [];
    // Look at the files while DuckDB reads them: inside the store's transaction.
    const spy: Db = {
      ...db,
      transaction: (fn, order) =>
        db.transaction(async (tx) => {
          for (const sub of readdirSync(ingestTempRoot(dbPath)))
            for (const name of readdirSync(join(ingestTempRoot(dbPath), sub)))
              seen.push({ name, mode: statSync(join(ingestTempRoot(dbPath), sub, name)).mode & 0o777 });
          return fn(tx);
        }, order),
    };
    const store = new IngestStore(spy);
    const previous = process.umask(0);
    try {
      const batch = await decodeNdjson(ndjson([event('a'), usage('u'), message('m')]), 10);
      expect(await store.store('org_1' as OrgId, 'usr_1' as UserId, batch)).toEqual({ stored: 3, duplicates: 0, refused: [] });
    } finally {
      process.umask(previous);
    }
    expect(seen.map((f) => f.name).sort()).toEqual(['1-events.ndjson', '1-messages.ndjson', '1-usage.ndjson']);
    for (const f of seen) expect(f.mode).toBe(0o600);
    const [own] = readdirSync(ingestTempRoot(dbPath));
    expect(readdirSync(join(ingestTempRoot(dbPath), own!))).toEqual([]);
    store.close();
    await db.close();
  });
});
