// The batch counts the events of the organizations it rebuilds and no other's: a run of one organization
// leaves another's events of the same days alone, and events under an organization id that is not
// registered (written around the server) are counted by no run that does not rebuild that id. Each kind
// of event grouping is exercised: counts, hooks, sessions and clients, tool calls, files and edit lines.
import { describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { runBatch } from '../../pipeline/batch.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const NOW = new Date('2026-03-20T09:00:00Z'); // yesterday: 2026-03-19

type Db = Awaited<ReturnType<typeof openDb>>;

/** One successful Edit call that wrote a .ts file (3 lines added), with one hook that ran for it. */
const edit = (db: Db, org: string, id: string, ts: string) =>
  db.run(
    `INSERT INTO events (org_id, id, user_id, received_at, ts, agent, event, session_id, client, autonomy, tool_name, tool_success,
                         files, hooks, edits)
     VALUES ($org, $id, 'u1', TIMESTAMP '2026-03-19 12:00:00', CAST($ts AS TIMESTAMP), 'claude', 'PostToolUse', 's-' || $org,
             'terminal-ui', 'auto-high', 'Edit', true, [{'ext': 'ts', 'name': NULL, 'op': 'edit'}],
             [{'event': 'PostToolUse', 'matcher': '*', 'command': 'hook.sh'}],
             [{'ext': 'ts', 'name': NULL, 'lines_added': 3, 'lines_deleted': 0, 'repo_id': NULL, 'repo': NULL}])`,
    { org, id, ts },
  );

/** What the batch wrote for an organization, table by table. */
const written = async (db: Db, org: string) => ({
  userDays: await db.all(
    `SELECT CAST(day AS VARCHAR) AS day, tool_calls, hooks, sessions, files_edited, lines_added, clients
     FROM agg_user_day WHERE org_id = $org ORDER BY day`,
    { org },
  ),
  hooks: await db.all('SELECT CAST(day AS VARCHAR) AS day, command, count FROM agg_user_hooks_day WHERE org_id = $org ORDER BY day', {
    org,
  }),
  breakdowns: await db.all(
    `SELECT CAST(day AS VARCHAR) AS day, kind, key, count FROM agg_user_breakdown_day WHERE org_id = $org ORDER BY day, kind, key`,
    { org },
  ),
  edits: await db.all('SELECT CAST(day AS VARCHAR) AS day, language, lines_added FROM agg_code_edit_day WHERE org_id = $org ORDER BY day', {
    org,
  }),
});

const nothing = { userDays: [], hooks: [], breakdowns: [], edits: [] };

describe('the organizations a batch counts events of', () => {
  it("counts one organization's events in its run, and an unregistered id's in none that skips it", async () => {
    const db = await openDb(':memory:');
    try {
      await db.run("INSERT INTO orgs (id, name) VALUES ('org_a', 'A'), ('org_b', 'B')");
      for (const org of ['org_a', 'org_b', 'org_ghost']) {
        await edit(db, org, `${org}-1`, '2026-03-18 10:00:00');
        await edit(db, org, `${org}-2`, '2026-03-18 11:00:00');
      }

      // A run of org_a alone, over the day all three have events.
      await runBatch(db, { trigger: 'api', log, now: NOW, orgId: 'org_a', from: '2026-03-18', to: '2026-03-18' });
      const a = await written(db, 'org_a');
      expect(a.userDays).toEqual([
        { day: '2026-03-18', tool_calls: 2, hooks: 2, sessions: 1, files_edited: 2, lines_added: 6, clients: ['terminal-ui'] },
      ]);
      expect(a.hooks).toEqual([{ day: '2026-03-18', command: 'hook.sh', count: 2 }]);
      expect(a.breakdowns).toContainEqual({ day: '2026-03-18', kind: 'tool', key: 'Edit', count: 2 });
      expect(a.breakdowns).toContainEqual({ day: '2026-03-18', kind: 'extension', key: 'ts', count: 2 });
      expect(a.edits).toEqual([{ day: '2026-03-18', language: 'TypeScript', lines_added: 6 }]);
      expect(await written(db, 'org_b')).toEqual(nothing);
      expect(await written(db, 'org_ghost')).toEqual(nothing);

      // Every registered organization, twice: the same figures, and none for the unregistered id.
      await runBatch(db, { trigger: 'cli', log, now: NOW, from: '2026-03-18', to: '2026-03-19' });
      await runBatch(db, { trigger: 'cli', log, now: NOW, from: '2026-03-18', to: '2026-03-19' });
      expect(await written(db, 'org_a')).toEqual(a);
      expect(await written(db, 'org_b')).toEqual(a);
      expect(await written(db, 'org_ghost')).toEqual(nothing);
    } finally {
      await db.close();
    }
  });
});
