// Batches that wait for the writer together share one transaction (api/ingest/store.ts, together): each
// batch's answer and the stored rows are what the same batches give written one after another; the batch
// that fails a group is written alone and the others grouped again; a full-size batch is written alone.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DecodedBatch, decodeItems } from '../../api/ingest/decode.ts';
import { BatchRefused, IngestStore, type StoreResult } from '../../api/ingest/store.ts';
import { type Db, openDb, walSize } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { call, message, usage, type WireRecord } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const ORG = 'org_group' as OrgId;
const OTHER_ORG = 'org_other' as OrgId;
const ANA = 'usr_ana' as UserId;
const BO = 'usr_bo' as UserId;

interface Sent {
  org: OrgId;
  user: UserId;
  records: WireRecord[];
}

/** A database whose transactions, and the statements run in them, are counted. */
async function countedDb(name: string): Promise<{ db: Db; transactions: () => number; statements: () => number }> {
  const db = await openDb(join(tempDir(), `${name}.duckdb`));
  let transactions = 0;
  let statements = 0;
  const transaction = db.transaction;
  db.transaction = (fn, order) => {
    transactions++;
    return transaction((tx) => {
      const run = tx.run;
      tx.run = (sql, params) => {
        statements++;
        return run(sql, params);
      };
      return fn(tx);
    }, order);
  };
  return { db, transactions: () => transactions, statements: () => statements };
}

/** Every row of the three tables, ordered, without the time each arrived. */
async function rows(db: Db): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const table of ['events', 'usage', 'assistant_messages'])
    out.push(await db.all(`SELECT * EXCLUDE (received_at) FROM ${table} ORDER BY org_id, id`));
  return out;
}

/**
 * The batches stored in a fresh database, `first` one by one, then `rest` all at once (waiting for the
 * writer together) or one by one: the answers of `rest` (a failure as its error), the rows, and the
 * transactions made for `rest`. `alter` may change a decoded batch of `rest` before it is stored.
 */
async function store(name: string, first: Sent[], rest: Sent[], together: boolean, alter?: (batch: DecodedBatch, i: number) => void) {
  const { db, transactions, statements } = await countedDb(name);
  const ingest = new IngestStore(db);
  const decoded = (sent: Sent) => decodeItems(sent.records, 10_000);
  try {
    for (const sent of first) await ingest.store(sent.org, sent.user, await decoded(sent));
    const batches = await Promise.all(rest.map(decoded));
    if (alter) batches.forEach(alter);
    const before = transactions();
    const statementsBefore = statements();
    const one = (i: number): Promise<StoreResult | Error> =>
      ingest.store(rest[i]!.org, rest[i]!.user, batches[i]!).catch((error: unknown) => error as Error);
    const answers: (StoreResult | Error)[] = [];
    if (together) answers.push(...(await Promise.all(rest.map((_, i) => one(i)))));
    else for (const i of rest.keys()) answers.push(await one(i));
    return {
      answers,
      rows: await rows(db),
      transactions: transactions() - before,
      statements: statements() - statementsBefore,
      counted: structuredClone(ingest.transactions),
    };
  } finally {
    ingest.close();
    await db.close();
  }
}

const day = '2026-03-02';

/** No transaction of a shape. */
const NONE = { committed: 0, rolledBack: 0 };

/**
 * Small batches of three people of two organizations, events, usage and messages mixed; batch i holds
 * i + 3 records, so that an answer given to another batch would show.
 */
const mixedBatches = (): Sent[] =>
  Array.from({ length: 6 }, (_, i) => ({
    org: i === 5 ? OTHER_ORG : ORG,
    user: i % 2 ? BO : ANA,
    records: [
      usage('claude-sonnet-4', day, { input_tokens: 10 + i, output_tokens: 3 }),
      message(day),
      ...Array.from({ length: i + 1 }, () => call('Read', day)),
    ],
  }));

describe('batches waiting for the writer together', () => {
  it('share a transaction, and each answer and every row is as when written one after another', async () => {
    const rest = mixedBatches();
    const apart = await store('apart', [], rest, false);
    const together = await store('together', [], rest, true);
    expect(together.answers).toEqual(apart.answers);
    expect(together.answers).toEqual(rest.map((sent) => ({ stored: sent.records.length, duplicates: 0, refused: [] })));
    expect(together.rows).toEqual(apart.rows);
    expect(apart.transactions).toBe(6);
    // The first is written at once; the five that arrived while it was written share the next transaction.
    expect(together.transactions).toBe(2);
    // Apart, each batch runs its three statements (events, usage, messages). Together, the first does
    // so alone; then one statement loads the five others' events and one their messages, and each runs
    // its usage upsert (its count of changed rows is its own).
    expect(apart.statements).toBe(18);
    expect(together.statements).toBe(3 + 2 + 5);
    // What the server's metrics read (agentmeter_ingest_transactions_total).
    expect(together.counted).toEqual({ single: { committed: 1, rolledBack: 0 }, group: { committed: 1, rolledBack: 0 }, beside: NONE });
    expect(apart.counted).toEqual({ single: { committed: 6, rolledBack: 0 }, group: { committed: 0, rolledBack: 0 }, beside: NONE });
  });

  it('every file is read as written under a path of spaces, a comma, quotes, a non-ASCII letter and a key=value folder', async () => {
    // The files are in a folder beside the database. In a group, each row's organization and user come
    // from its file's name as DuckDB reports it, which must be the path the store gave; and a folder
    // named like a hive partition (id=…) must not become the rows' id.
    const rest = mixedBatches();
    const apart = await store("id=apart, 'odd' é", [], rest, false);
    const together = await store('id=together, \'odd\' "é"', [], rest, true);
    expect(apart.answers).toEqual(rest.map((sent) => ({ stored: sent.records.length, duplicates: 0, refused: [] })));
    expect(together.answers).toEqual(apart.answers);
    expect(together.rows).toEqual(apart.rows);
    const [events] = together.rows as { id: string }[][];
    const sentEvents = rest.flatMap((sent) => sent.records).filter((record) => record.kind === 'event');
    expect(events!.map((row) => row.id).sort()).toEqual(sentEvents.map((record) => record.id).sort());
    expect(together.statements).toBe(3 + 2 + 5);
    expect(together.counted.group).toEqual({ committed: 1, rolledBack: 0 });
  });

  it('a batch that repeats a stored id or takes another user’s fails its group: it is written alone, the others grouped again', async () => {
    const stored = [call('Edit', day), usage('claude-sonnet-4', day, { input_tokens: 7 })];
    const first: Sent[] = [{ org: ORG, user: ANA, records: stored }];
    const rest: Sent[] = [
      { org: ORG, user: BO, records: [call('Bash', day)] },
      // A re-delivery of Ana's stored event, with a new one beside it.
      { org: ORG, user: ANA, records: [stored[0]!, call('Grep', day)] },
      // Bo sends the id of Ana's usage record: refused, never merged.
      { org: ORG, user: BO, records: [{ ...stored[1]!, input_tokens: 900 } as WireRecord, message(day)] },
      { org: OTHER_ORG, user: BO, records: [call('Write', day)] },
    ];
    const apart = await store('apart-conflict', first, rest, false);
    const together = await store('together-conflict', first, rest, true);
    expect(together.answers).toEqual(apart.answers);
    expect(together.answers[1]).toMatchObject({ stored: 1, duplicates: 1, refused: [] });
    expect(together.answers[2]).toMatchObject({ stored: 1, refused: [expect.objectContaining({ index: 0, id: stored[1]!.id })] });
    expect(together.rows).toEqual(apart.rows);
    // Three more than apart. The three that waited: their group's one statement for all their events
    // fails at the re-delivered id, so they are grouped again, each running its own statements, which
    // fails at the re-delivery (written alone then). The last two: their group fails at Bo's copy of
    // Ana's usage id (then written alone) before the last is written.
    expect(together.transactions).toBe(apart.transactions + 3);
    // Apart: five batches commit; the re-delivery and Bo's copy each roll back their fast path before
    // the careful one commits. Together: the same single transactions, and the three groups rolled back.
    expect(apart.counted).toEqual({ single: { committed: 5, rolledBack: 2 }, group: { committed: 0, rolledBack: 0 }, beside: NONE });
    expect(together.counted).toEqual({ single: { committed: 5, rolledBack: 2 }, group: { committed: 0, rolledBack: 3 }, beside: NONE });
  });

  it('one id in two batches of a group: a usage record combines within it, an event is a duplicate, another user’s is refused', async () => {
    const shared = usage('claude-sonnet-4', day, { input_tokens: 5 });
    const usages: Sent[] = [
      { org: ORG, user: ANA, records: [call('Read', day)] },
      { org: ORG, user: ANA, records: [shared] },
      // Ana's usage record again in the same group, with more tokens: combined, and the group commits.
      { org: ORG, user: ANA, records: [{ ...shared, input_tokens: 8 } as WireRecord, message(day)] },
    ];
    const usageApart = await store('apart-usage', [], usages, false);
    const usageTogether = await store('together-usage', [], usages, true);
    expect(usageTogether.answers).toEqual(usageApart.answers);
    expect(usageTogether.rows).toEqual(usageApart.rows);
    expect(usageTogether.transactions).toBe(2);

    const event = call('Bash', day);
    const events: Sent[] = [
      { org: ORG, user: ANA, records: [call('Read', day)] },
      { org: ORG, user: ANA, records: [event, call('Grep', day)] },
      // The same event again from Ana (a duplicate), then from Bo (refused).
      { org: ORG, user: ANA, records: [event] },
      { org: ORG, user: BO, records: [event, message(day)] },
    ];
    const eventsApart = await store('apart-events', [], events, false);
    const eventsTogether = await store('together-events', [], events, true);
    expect(eventsTogether.answers).toEqual(eventsApart.answers);
    expect(eventsTogether.answers[2]).toMatchObject({ stored: 0, duplicates: 1, refused: [] });
    expect(eventsTogether.answers[3]).toMatchObject({ stored: 1, refused: [expect.objectContaining({ index: 0, id: event.id })] });
    expect(eventsTogether.rows).toEqual(eventsApart.rows);
  });

  it('a batch the store refuses fails alone; the other batches of its group are stored', async () => {
    const rest: Sent[] = Array.from({ length: 4 }, (_, i) => ({ org: ORG, user: i % 2 ? BO : ANA, records: [call('Bash', day)] }));
    // The net under validation (as in ingest-store's test): a row DuckDB refuses, in the third batch.
    const refuse = (batch: DecodedBatch, i: number) => {
      if (i !== 2) return;
      const bad =
        '{"kind":"event","id":"bad","agent":"claude","event":"Stop\\udfff","ts":1772366400000,"session_id":"s","client":"web","autonomy":"spec"}\n';
      batch.events.ndjson = Buffer.concat([batch.events.ndjson, Buffer.from(bad)]);
    };
    const apart = await store('apart-refused', [], rest, false, refuse);
    const together = await store('together-refused', [], rest, true, refuse);
    expect(apart.answers[2]).toBeInstanceOf(BatchRefused);
    expect(together.answers[2]).toBeInstanceOf(BatchRefused);
    expect(together.answers.filter((_, i) => i !== 2)).toEqual([0, 1, 3].map(() => ({ stored: 1, duplicates: 0, refused: [] })));
    expect(together.rows).toEqual(apart.rows);
  });

  it('a batch that arrives while a group’s shared statement fails joins the retry, which runs each batch’s own', async () => {
    const stored = call('Edit', day);
    const { db, transactions } = await countedDb('late-joiner');
    const ingest = new IngestStore(db);
    try {
      await ingest.store(ORG, ANA, await decodeItems([stored], 10_000));
      const late = await decodeItems([call('Write', day)], 10_000);
      // The late batch is sent as the group holding the re-delivery begins its transaction (the one after
      // the first batch of `rest` is written alone), so it waits and is grouped with the retried batches.
      const at = transactions() + 1;
      let lateAnswer: Promise<StoreResult> | undefined;
      const transaction = db.transaction;
      let waitingWithLate = -1;
      db.transaction = (fn) => {
        if (transactions() === at && !lateAnswer) {
          lateAnswer = ingest.store(ORG, BO, late);
          // The premise: the late batch waits for the writer now, alone (the group is out of the queue).
          waitingWithLate = (ingest as unknown as { waiting: unknown[] }).waiting.length;
        }
        return transaction(fn);
      };
      const rest: Sent[] = [
        { org: ORG, user: BO, records: [call('Bash', day)] },
        { org: ORG, user: BO, records: [call('Read', day)] },
        // A re-delivery of the stored event: the group's one insert of all its events fails on it.
        { org: ORG, user: ANA, records: [stored, call('Grep', day)] },
      ];
      const decoded = await Promise.all(rest.map((sent) => decodeItems(sent.records, 10_000)));
      const answers = await Promise.all(rest.map((sent, i) => ingest.store(sent.org, sent.user, decoded[i]!)));
      expect(lateAnswer).toBeDefined();
      expect(waitingWithLate).toBe(1);
      expect(answers).toEqual([
        { stored: 1, duplicates: 0, refused: [] },
        { stored: 1, duplicates: 0, refused: [] },
        { stored: 1, duplicates: 1, refused: [] },
      ]);
      expect(await lateAnswer).toEqual({ stored: 1, duplicates: 0, refused: [] });
      // Two group rollbacks: the shared insert, then the retry with the late batch in it, where each batch
      // ran its own statements and the re-delivery's failed. Had the late batch's being new made the retry
      // share one insert again, that insert would have failed on the same id: a third.
      expect(ingest.transactions.group).toEqual({ committed: 0, rolledBack: 2 });
      expect(ingest.transactions.single).toEqual({ committed: 5, rolledBack: 1 });
      expect(await db.all('SELECT count(*)::INTEGER AS n FROM events')).toEqual([{ n: 5 }]);
    } finally {
      ingest.close();
      await db.close();
    }
  });

  it('a full-size batch is written alone', async () => {
    const big = (n: number): Sent => ({ org: ORG, user: ANA, records: Array.from({ length: n }, () => call('Bash', day)) });
    const together = await store('big', [], [big(1), big(2_500), big(1)], true);
    expect(together.answers.map((a) => (a as StoreResult).stored)).toEqual([1, 2_500, 1]);
    // The first alone on the writer; the big one alone (over the group's bound) beside it, on the
    // store's second connection; then the last on the writer.
    expect(together.transactions).toBe(2);
    expect(together.counted).toEqual({ single: { committed: 2, rolledBack: 0 }, group: NONE, beside: { committed: 1, rolledBack: 0 } });
  });
});

describe('full batches beside the writer', () => {
  /** A full batch of `n` events of one person, and `usages` usage records. */
  const full = (user: UserId, n: number, usages: WireRecord[] = []): Sent => ({
    org: ORG,
    user,
    records: [...Array.from({ length: n }, () => call('Bash', day)), ...usages],
  });

  it('two people’s full batches are written at once, each answer and every row as when written one after another', async () => {
    const rest = [full(ANA, 2_500), full(BO, 2_500)];
    const apart = await store('apart-beside', [], rest, false);
    const together = await store('together-beside', [], rest, true);
    expect(together.answers).toEqual([
      { stored: 2_500, duplicates: 0, refused: [] },
      { stored: 2_500, duplicates: 0, refused: [] },
    ]);
    expect(together.answers).toEqual(apart.answers);
    expect(together.rows).toEqual(apart.rows);
    // Ana's on the writer, Bo's on the second connection at the same time.
    expect(together.counted).toEqual({ single: { committed: 1, rolledBack: 0 }, group: NONE, beside: { committed: 1, rolledBack: 0 } });
    expect(apart.counted).toEqual({ single: { committed: 2, rolledBack: 0 }, group: NONE, beside: NONE });
  });

  it('ids the batch on the writer holds are refused in the batch beside it, never merged: the writer writes it again', async () => {
    const anaUsage = Array.from({ length: 50 }, () => usage('claude-sonnet-4', day, { input_tokens: 7 }));
    const ana = full(ANA, 2_450, anaUsage);
    // Bo sends 50 of Ana's event ids and Ana's usage ids (with more tokens), among new ones of his own.
    const bo = full(BO, 2_400, [
      ...ana.records.slice(0, 50),
      ...anaUsage.map((record) => ({ ...record, input_tokens: 900 }) as WireRecord),
    ]);
    const apart = await store('apart-beside-taken', [], [ana, bo], false);
    const together = await store('together-beside-taken', [], [ana, bo], true);
    expect(together.answers).toEqual(apart.answers);
    const boAnswer = together.answers[1] as StoreResult;
    expect(boAnswer.stored).toBe(2_400);
    expect(boAnswer.refused.map((r) => r.index)).toEqual(Array.from({ length: 100 }, (_, i) => 2_400 + i));
    expect(together.rows).toEqual(apart.rows);
    const [, usageRows] = together.rows as { input_tokens: number; user_id: string }[][];
    expect(usageRows!.every((row) => row.input_tokens === 7 && row.user_id === ANA)).toBe(true);
    // Bo's fast path beside Ana's failed at its commit (DuckDB found Ana's keys), and the writer wrote it
    // again: its fast path failed on the stored ids, and its careful path refused them.
    expect(together.counted).toEqual({ single: { committed: 2, rolledBack: 1 }, group: NONE, beside: { committed: 0, rolledBack: 1 } });
  });

  it('the same full batch twice at once is stored once: the second is all duplicates', async () => {
    const ana = full(ANA, 2_500, [usage('claude-sonnet-4', day, { input_tokens: 3 })]);
    const apart = await store('apart-beside-twice', [], [ana, ana], false);
    const together = await store('together-beside-twice', [], [ana, ana], true);
    expect(together.answers).toEqual([
      { stored: 2_501, duplicates: 0, refused: [] },
      { stored: 0, duplicates: 2_501, refused: [] },
    ]);
    expect(together.answers).toEqual(apart.answers);
    expect(together.rows).toEqual(apart.rows);
    expect(together.counted.beside).toEqual({ committed: 0, rolledBack: 1 });
  });
});

describe('full and small batches of three people at once, their ids overlapping', () => {
  it('every record is stored once, for one sender, and each answer accounts for all of its records', async () => {
    // Six full batches, two each of Ana, Bo and Cy, each repeating 100 event ids and 20 usage ids of the
    // batch before it (another person's, or their own); between them, small batches (grouped on the
    // writer) of new records and of ids of the full batch before. Whichever is written first holds an id;
    // the others' copies are refused (another person) or duplicates (their own).
    const people = [ANA, BO, 'usr_cy' as UserId];
    const full = Array.from({ length: 6 }, () => [
      ...Array.from({ length: 2_300 }, () => call('Bash', day)),
      ...Array.from({ length: 60 }, () => usage('claude-sonnet-4', day, { input_tokens: 4 })),
    ]);
    const small = Array.from({ length: 6 }, () => [call('Read', day), usage('claude-sonnet-4', day, { input_tokens: 2 })]);
    const own = [...full, ...small];
    const rest: Sent[] = full.flatMap((records, i) => [
      {
        org: ORG,
        user: people[i % 3]!,
        records: [...records, ...(i > 0 ? [...full[i - 1]!.slice(0, 100), ...full[i - 1]!.slice(2_300, 2_320)] : [])],
      },
      {
        org: ORG,
        user: people[(i + 1) % 3]!,
        records: [...small[i]!, ...(i > 0 ? [full[i - 1]![200]!, full[i - 1]![2_350]!] : [])],
      },
    ]);
    const distinct = new Set(own.flat().map((record) => record.id));
    // Which batch holds an id depends on how the two connections' work interleaves: three rounds.
    for (const round of [1, 2, 3]) {
      const together = await store(`together-three-${round}`, [], rest, true);
      const answers = together.answers as StoreResult[];
      for (const [i, answer] of answers.entries()) {
        expect(answer).not.toBeInstanceOf(Error);
        expect(answer.stored + answer.duplicates + answer.refused.length).toBe(rest[i]!.records.length);
      }
      const [events, usageRows] = together.rows as { id: string; user_id: string }[][];
      expect(events!.length + usageRows!.length).toBe(distinct.size);
      expect(answers.reduce((sum, answer) => sum + answer.stored, 0)).toBe(distinct.size);
      // A row is its sender's: a record whose id another person holds was refused to its sender.
      const holder = new Map([...events!, ...usageRows!].map((row) => [row.id, row.user_id]));
      for (const [i, sent] of rest.entries()) {
        const refused = new Set(answers[i]!.refused.map((r) => r.id));
        for (const record of sent.records) if (holder.get(record.id) !== sent.user) expect(refused.has(record.id)).toBe(true);
      }
    }
  });
});

describe('the WAL while full batches are written beside the writer', () => {
  it('is checkpointed as it passes its threshold: a transaction open beside a commit does not hold the checkpoint off', async () => {
    const path = join(tempDir(), 'wal.duckdb');
    const db = await openDb(path, { threads: 1, checkpointThreshold: '2MB' });
    const ingest = new IngestStore(db);
    try {
      // Thirty batches of 2,500 events, three in flight: about 7 MB of WAL unless checkpointed on the way.
      const batches = await Promise.all(
        Array.from({ length: 30 }, () =>
          decodeItems(
            Array.from({ length: 2_500 }, () => call('Bash', day)),
            10_000,
          ),
        ),
      );
      let next = 0;
      let largestWal = 0;
      await Promise.all(
        Array.from({ length: 3 }, async () => {
          while (next < batches.length) {
            await ingest.store(ORG, ANA, batches[next++]!);
            largestWal = Math.max(largestWal, walSize(path));
          }
        }),
      );
      expect(ingest.transactions.beside.committed).toBeGreaterThan(0);
      expect(await db.all('SELECT count(*)::INTEGER AS n FROM events')).toEqual([{ n: 75_000 }]);
      // At most the threshold and the batches committed while a checkpoint could not start.
      expect(largestWal).toBeLessThan(4 * 2 ** 20);
    } finally {
      ingest.close();
      await db.close();
    }
  });
});
