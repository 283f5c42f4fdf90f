// Droid's cumulative usage when a batch is stored but never acknowledged (docs/design/at-least-once.md: the
// answer lost, the collector keeps its old state and reads again): a real session settings file read by the
// collector's Droid reader, the records stored by the real ingest store, and the usage table summed. The
// second reading starts from the same committed totals as the lost one; the session went on in between.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDroidUsage } from '../../collector/agents/droid/usage.ts';
import { emptyState } from '../../collector/state.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { WireRecord } from '../../common/wire.ts';
import { type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

const zero = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0 };

describe('Droid usage read again after a batch the server stored but never acknowledged', () => {
  it('sums to the session’s cumulative totals: the lost reading’s difference is not counted twice', async () => {
    const o = await server.seedOrg('droidredeliver');
    const store = (records: WireRecord[]) => server.services.ingest.storeRecords(o.orgId as OrgId, o.users.member.id as UserId, records);
    const home = tempDir();
    const dir = join(home, '.factory', 'sessions', '-home-dev-project');
    mkdirSync(dir, { recursive: true });
    const settings = join(dir, 'sess-r.settings.json');
    const write = (inputTokens: number, outputTokens: number) =>
      writeFileSync(settings, JSON.stringify({ model: 'claude-opus-4-1', tokenUsage: { ...zero, inputTokens, outputTokens } }));
    const touch = (hour: number) => ({ sessionId: 'sess-r', latestTs: Date.UTC(2026, 2, 1, hour), transcriptPaths: new Set<string>() });

    // Reading 1 (1000 in, 100 out) is shipped and acknowledged: the state is committed.
    write(1000, 100);
    const committed = emptyState();
    await store(readDroidUsage(touch(10), committed, home).records);
    // Reading 2 (1500, 160) goes out in a batch the server stores, but its answer is lost: the draft is dropped.
    write(1500, 160);
    await store(readDroidUsage(touch(11), structuredClone(committed), home).records);
    // The session goes on (1800, 200); the next drain reads again from the committed state and ships.
    write(1800, 200);
    await store(readDroidUsage(touch(12), structuredClone(committed), home).records);

    const rows = await server.db.all<{ input: number; output: number }>(
      "SELECT sum(input_tokens)::INTEGER AS input, sum(output_tokens)::INTEGER AS output FROM usage WHERE session_id = 'sess-r'",
    );
    // The session used 1800 in and 200 out; counting reading 2's difference twice gave 2300 and 260.
    expect(rows).toEqual([{ input: 1800, output: 200 }]);
  });
});
