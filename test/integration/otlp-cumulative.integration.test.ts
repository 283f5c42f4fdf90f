// The server's OTLP routes count a cumulative counter's point by what it adds to the last one seen, per
// user. Those running totals outlive the server: after a restart, the next export of the same series
// counts from them, not again from zero (api/otlp/routes.ts, migration 098).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits } from '../helpers/otlp.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-otlp-cumulative', level: 'silent' });
let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const serve = async (path: string): Promise<{ server: RunningServer; db: Db }> => {
  const db = await openDb(path);
  running = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, batchAt: null, decodeWorkers: 0 });
  return { server: running, db };
};

/** Claude Code's cumulative count of accepted Edit decisions in one session, as OTLP/JSON. */
const acceptedEdits = (total: number) =>
  JSON.stringify(
    claudeAcceptedEdits(total, { cumulative: true, timeNanos: String(1_795_000_000_000_000_000n + BigInt(total) * 1_000_000_000n) }),
  );

describe("the server's cumulative OTLP totals", () => {
  it('survive a restart: a cumulative 5, a restart, then 7 store 7 decisions, not 12', async () => {
    const path = join(tempDir(), 'otlp.duckdb');
    let { server, db } = await serve(path);
    const org = await server.services.accounts.createOrg('Otlp');
    const user = await server.services.accounts.createUser({ orgId: org.id, email: 'ana@otlp.example.com', role: 'member' });
    const key = (await server.services.accounts.createKey(user)).key;
    const send = async (total: number) => {
      const res = await fetch(`${server.url}/v1/metrics`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: acceptedEdits(total),
      });
      expect(res.status, await res.text()).toBe(200);
    };
    await send(5);
    await server.close();
    ({ server, db } = await serve(path));
    await send(7);
    const [row] = await db.all<{ n: number }>('SELECT CAST(sum(count) AS INTEGER) AS n FROM edit_decisions WHERE org_id = $org', {
      org: org.id,
    });
    expect(row!.n).toBe(7);
  });
});
