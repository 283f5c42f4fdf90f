// An incremental batch rebuilds each organization's own days, so a chunk's range can hold days it does not
// rebuild for an organization: here org_a's late record makes the chunk run from ten days ago to
// yesterday, while org_b rebuilds only yesterday. A session of org_b that began the day before and went on
// yesterday still began the day before, and its repository is still the one its earlier event named.
import { describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { runBatch } from '../../pipeline/batch.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const NOW = new Date('2026-03-20T09:00:00Z'); // yesterday: 2026-03-19

type Db = Awaited<ReturnType<typeof openDb>>;

const event = (db: Db, org: string, id: string, ts: string, received: string, repo: string | null) =>
  db.run(
    `INSERT INTO events (org_id, id, user_id, received_at, ts, agent, event, session_id, client, autonomy, repo)
     VALUES ($org, $id, 'u1', CAST($received AS TIMESTAMP), CAST($ts AS TIMESTAMP), 'claude', 'UserPromptSubmit', 's-' || $org, 'terminal-ui', 'manual', $repo)`,
    { org, id, ts, received, repo },
  );

describe('an incremental batch whose chunk holds days an organization does not rebuild', () => {
  it('finds where a session began and its repository on those days', async () => {
    const db = await openDb(':memory:');
    try {
      await db.run("INSERT INTO orgs (id, name) VALUES ('org_a', 'A'), ('org_b', 'B')");
      // org_b's session: begun on the 18th in a repository, went on on the 19th (no repository named then),
      // with usage on the 19th.
      await event(db, 'org_b', 'b1', '2026-03-18 23:00:00', '2026-03-19 00:00:00', 'github.com/acme/app');
      await event(db, 'org_b', 'b2', '2026-03-19 08:00:00', '2026-03-19 09:00:00', null);
      await db.run(
        `INSERT INTO usage (org_id, id, user_id, received_at, ts, agent, session_id, model, input_tokens, output_tokens,
                            cache_read_tokens, cache_write_tokens, thinking_tokens, thinking)
         VALUES ('org_b', 'x1', 'u1', TIMESTAMP '2026-03-19 09:00:00', TIMESTAMP '2026-03-19 08:00:00', 'claude', 's-org_b',
                 'claude-sonnet-4-5', 100, 10, 0, 0, 0, false)`,
      );
      await event(db, 'org_a', 'a1', '2026-03-18 10:00:00', '2026-03-19 00:00:00', null);
      await runBatch(db, { trigger: 'cli', log, now: NOW });

      // A late record of org_a for the 9th: org_a rebuilds the 9th to the 19th, org_b the 19th alone.
      await event(db, 'org_a', 'a2', '2026-03-09 10:00:00', '2026-03-20 08:00:00', null);
      const report = await runBatch(db, { trigger: 'cli', log, now: NOW });
      expect([report.firstDay, report.lastDay]).toEqual(['2026-03-09', '2026-03-19']);

      expect(await db.all("SELECT CAST(day AS VARCHAR) AS day, sessions FROM agg_user_day WHERE org_id = 'org_b' ORDER BY day")).toEqual([
        { day: '2026-03-18', sessions: 1 },
        { day: '2026-03-19', sessions: 0 },
      ]);
      expect(
        await db.all("SELECT CAST(day AS VARCHAR) AS day, repo, input_tokens FROM agg_tokens_repo_day WHERE org_id = 'org_b'"),
      ).toEqual([{ day: '2026-03-19', repo: 'github.com/acme/app', input_tokens: 100 }]);
    } finally {
      await db.close();
    }
  });
});
