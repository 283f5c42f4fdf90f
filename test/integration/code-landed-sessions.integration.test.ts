// Migration 099: the sessions' lines that each day's landed commits hold (agg_code_landed_session_day, what
// /code's landed dollars split each session's cost by) start from the commits stored, for the days the
// batch had built, so an existing database keeps its dollars without a full rebuild; a day the batch had
// not built gets its rows from the next batch, with its landed counts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

const commit = (sha: string, day: string, sessions: [string, number][]) =>
  `INSERT INTO landed_commits (org_id, repo_id, commit_id, user_id, received_at, ts, repo, lines_added, lines_deleted, agent_lines,
     by_agent, author, by_session, parents)
   VALUES ('o', 'r', '${sha}', 'u', now()::TIMESTAMP, TIMESTAMP '${day} 10:00:00', 'github.com/a/b', 50, 0, 40, [],
     'u@example.com', [${sessions.map(([s, n]) => `{'agent': 'claude', 'session_id': '${s}', 'lines': ${n}}`).join(', ')}], [])`;

describe('migration 099', () => {
  it("fills the sessions' landed lines of the days the batch built, from the commits stored", async () => {
    const db = await openDb(join(tempDir(), 'm099.duckdb'));
    try {
      // The state before 099: no table, commits on a built day (11-01) and on one not built yet (11-02).
      await db.run('DROP TABLE agg_code_landed_session_day');
      await db.run('DELETE FROM schema_migrations WHERE version = 99');
      await db.run(
        commit('a'.repeat(40), '2026-11-01', [
          ['s1', 20],
          ['s2', 5],
        ]),
      );
      await db.run(
        commit('b'.repeat(40), '2026-11-01', [
          ['s1', 10],
          ['', 3],
        ]),
      );
      await db.run(commit('c'.repeat(40), '2026-11-02', [['s1', 7]]));
      await db.run(`INSERT INTO agg_code_landed_day VALUES ('o', DATE '2026-11-01', 'u', 'github.com/a/b', 2, 2, 100, 0, 80)`);
      expect(await migrate(db)).toEqual(['099_code_landed_sessions.sql']);
      expect(
        await db.all('SELECT CAST(day AS VARCHAR) AS day, session_id, lines FROM agg_code_landed_session_day ORDER BY session_id'),
      ).toEqual([
        { day: '2026-11-01', session_id: 's1', lines: 30 },
        { day: '2026-11-01', session_id: 's2', lines: 5 },
      ]);
    } finally {
      await db.close();
    }
  });
});
