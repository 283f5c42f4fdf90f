// Migration 095: the per-user and per-session aggregate tables carry no primary key (the batch's GROUP BY
// makes their rows unique; the key's index only slowed the batch's DELETEs), and a database built before it
// keeps every built row, its columns in the same order, and its defaults.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

/** Each table 095 unkeys, with the primary key it had before. */
const KEYS: Record<string, string> = {
  agg_code_edit_day: 'org_id, day, user_id, agent, model, language, repo',
  agg_code_landed_agent_day: 'org_id, day, user_id, repo, agent, model',
  agg_code_landed_day: 'org_id, day, user_id, repo',
  agg_session_cost_day: 'org_id, day, user_id, agent, session_id',
  agg_tokens_day: 'org_id, day, user_id, agent, model',
  agg_tokens_repo_day: 'org_id, day, user_id, repo',
  agg_user_breakdown_day: 'org_id, day, user_id, kind, key',
  agg_user_day: 'org_id, day, user_id',
  agg_user_hooks_day: 'org_id, day, user_id, event, matcher, command',
  agg_user_model_day: 'org_id, day, user_id, model',
};
const UNKEYED = Object.keys(KEYS);
const KEYED = ['agg_breakdown_day', 'agg_hooks_day', 'agg_org_day'];

const keyedTables = (db: Awaited<ReturnType<typeof openDb>>) =>
  db
    .all<{ table_name: string }>(
      "SELECT DISTINCT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name LIKE 'agg_%' ORDER BY 1",
    )
    .then((rows) => rows.map((r) => r.table_name));

describe('migration 095', () => {
  it('leaves only the organization-level aggregate tables keyed', async () => {
    const db = await openDb(':memory:');
    try {
      expect(await keyedTables(db)).toEqual(KEYED);
    } finally {
      await db.close();
    }
  });

  it('keeps the rows, columns and defaults of a database built before it', async () => {
    const db = await openDb(join(tempDir(), 'm095.duckdb'));
    try {
      const columns = async () =>
        db.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
          `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
           WHERE table_name IN (SELECT unnest(string_split($tables, ','))) ORDER BY table_name, ordinal_position`,
          { tables: UNKEYED.join(',') },
        );
      const after = await columns();
      // The state before 095: each table keyed again, with one built row.
      await db.run('DELETE FROM schema_migrations WHERE version = 95');
      for (const table of UNKEYED) await db.run(`ALTER TABLE ${table} ADD PRIMARY KEY (${KEYS[table]})`);
      await db.run(`INSERT INTO agg_user_day (org_id, day, user_id, active, tool_calls, user_turns, mcp_calls, skill_calls, slash_commands,
          hooks, sessions, user_messages, assistant_messages, files_created, files_edited, git_commits, git_prs_created, billable_tokens,
          languages, clients, calls_manual, cost_usd)
        VALUES ('o', DATE '2026-11-01', 'u', true, 3, 1, 0, 0, 0, 2, 1, 1, 4, 0, 1, 0, 0, 120, ['TypeScript'], ['web'], 3, 0.25)`);
      await db.run(`INSERT INTO agg_session_cost_day VALUES ('o', DATE '2026-11-01', 'u', 'claude', 's1', 0.25)`);
      expect((await keyedTables(db)).length).toBeGreaterThan(KEYED.length);

      expect(await migrate(db)).toEqual(['095_aggregates_without_keys.sql']);
      expect(await keyedTables(db)).toEqual(KEYED);
      expect(
        await db.all('SELECT user_id, tool_calls, calls_manual, sessions_with_events, lines_added, languages, cost_usd FROM agg_user_day'),
      ).toEqual([
        {
          user_id: 'u',
          tool_calls: 3,
          calls_manual: 3,
          sessions_with_events: 0,
          lines_added: 0,
          languages: ['TypeScript'],
          cost_usd: 0.25,
        },
      ]);
      expect(await db.all('SELECT session_id, cost_usd FROM agg_session_cost_day')).toEqual([{ session_id: 's1', cost_usd: 0.25 }]);
      // Same columns in the same order, the same types, NOT NULL where they were, the same defaults.
      expect(await columns()).toEqual(after);
      // A row without a required column is still refused.
      await expect(
        db.run(`INSERT INTO agg_session_cost_day (org_id, day, user_id, agent) VALUES ('o', DATE '2026-11-01', 'u', 'claude')`),
      ).rejects.toThrow(/NOT NULL/);
    } finally {
      await db.close();
    }
  });
});
