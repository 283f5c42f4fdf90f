// Batches that wait for the writer together share one transaction (api/ingest/store.ts, together): each
// batch's answer and the stored rows are what the same batches give written one after another, a group
// that fails is written again batch by batch, and a full-size batch is written alone.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DecodedBatch, decodeItems } from '../../api/ingest/decode.ts';
import { IngestStore, type StoreResult } from '../../api/ingest/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
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

/** A database whose transactions are counted. */
async function countedDb(name: string): Promise<{ db: Db; transactions: () => number }> {
  const db = await openDb(join(tempDir(), `${name}.duckdb`));
  let transactions = 0;
  const transaction = db.transaction;
  db.transaction = (fn) => {
    transactions++;
    return transaction(fn);
  };
  return { db, transactions: () => transactions };
}

const decoded = (sent: Sent): Promise<DecodedBatch> => decodeItems(sent.records, 10_000);

/** Every row of the three tables, ordered, without the time each arrived. */
async function rows(db: Db): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const table of ['events', 'usage', 'assistant_messages'])
    out.push(await db.all(`SELECT * EXCLUDE (received_at) FROM ${table} ORDER BY org_id, id`));
  return out;
}

/**
 * The batches stored in a fresh database, `first` one by one, then `rest` all at once (waiting for the
 * writer together) or one by one; the answers of `rest`, the rows and the transactions made for `rest`.
 */
async function store(name: string, first: Sent[], rest: Sent[], together: boolean) {
  const { db, transactions } = await countedDb(name);
  const ingest = new IngestStore(db);
  try {
    for (const sent of first) await ingest.store(sent.org, sent.user, await decoded(sent));
    const batches = await Promise.all(rest.map(decoded));
    const before = transactions();
    let answers: StoreResult[] = [];
    if (together) answers = await Promise.all(rest.map((sent, i) => ingest.store(sent.org, sent.user, batches[i]!)));
    else for (const [i, sent] of rest.entries()) answers.push(await ingest.store(sent.org, sent.user, batches[i]!));
    return { answers, rows: await rows(db), transactions: transactions() - before };
  } finally {
    ingest.close();
    await db.close();
  }
}

const day = '2026-03-02';

describe('batches waiting for the writer together', () => {
  it('share a transaction, and each answer and every row is as when written one after another', async () => {
    // Small batches of three people of two organizations, events, usage and messages mixed.
    const rest: Sent[] = Array.from({ length: 6 }, (_, i) => ({
      org: i === 5 ? OTHER_ORG : ORG,
      user: i % 2 ? BO : ANA,
      records: [
        call('Bash', day),
        usage('claude-sonnet-4', day, { input_tokens: 10 + i, output_tokens: 3 }),
        message(day),
        call('Read', day),
      ],
    }));
    const apart = await store('apart', [], rest, false);
    const together = await store('together', [], rest, true);
    expect(together.answers).toEqual(apart.answers);
    expect(together.answers.every((a) => a.stored === 4 && a.duplicates === 0 && a.refused.length === 0)).toBe(true);
    expect(together.rows).toEqual(apart.rows);
    expect(apart.transactions).toBe(6);
    // The first is written at once; the five that arrived while it was written share the next transaction.
    expect(together.transactions).toBe(2);
  });

  it('a group one batch of which repeats a stored id or takes another user’s is rolled back and written batch by batch', async () => {
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
    expect(together.answers[2]!.refused).toEqual([expect.objectContaining({ index: 0, id: stored[1]!.id })]);
    expect(together.rows).toEqual(apart.rows);
    // One more than apart: the group of the three that waited, rolled back before each was written alone.
    expect(together.transactions).toBe(apart.transactions + 1);
  });

  it('a full-size batch is written alone', async () => {
    const big = (n: number): Sent => ({ org: ORG, user: ANA, records: Array.from({ length: n }, () => call('Bash', day)) });
    const together = await store('big', [], [big(1), big(2_500), big(1)], true);
    expect(together.answers.map((a) => a.stored)).toEqual([1, 2_500, 1]);
    // The first alone, the big one alone (over the group's bound), then the last.
    expect(together.transactions).toBe(3);
  });
});
