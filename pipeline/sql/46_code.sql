-- Code the agents wrote (docs/metrics.md §5), per organization, day and user of the rebuilt days: the edit lines
-- of successful file-writing calls by agent, model, language and repository, the landed commits by
-- repository, their agent lines by agent and model, and the two fields of the per-user record.

-- The model of each assistant message of the sessions with events on the rebuilt days.
CREATE OR REPLACE TEMP TABLE session_models AS
SELECT org_id, session_id, ts, model FROM assistant_messages
WHERE model IS NOT NULL AND model <> '' AND model <> '<synthetic>'
  AND ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
  AND (org_id, session_id) IN (SELECT org_id, session_id FROM ev_sessions);

-- The lines each edit wrote, with the model of its session's latest assistant message at or before the
-- call (an ASOF join, for the sessions with a message; 'unknown' when the session has none), the file's
-- language key (as file_touch has it) and its repository's host/path ('' outside a work tree or without an
-- origin remote), summed per organization, day, user, agent, model, language key and repository: the
-- language join below reads those few rows, not one per file.
CREATE OR REPLACE TEMP TABLE code_edit AS
WITH e AS MATERIALIZED (
  SELECT org_id, user_id, ts, day, agent, session_id, unnest(edits) AS f
  FROM chunk_events($chunk_first, $chunk_last)
  WHERE edits IS NOT NULL AND tool_success AND event = 'PostToolUse'
),
modelled AS (
  SELECT e.*, coalesce(m.model, 'unknown') AS model
  FROM (SELECT * FROM e WHERE (org_id, session_id) IN (SELECT org_id, session_id FROM session_models)) e
  ASOF LEFT JOIN session_models m ON e.org_id = m.org_id AND e.session_id = m.session_id AND m.ts <= e.ts
  UNION ALL
  SELECT *, 'unknown' FROM e WHERE (org_id, session_id) NOT IN (SELECT org_id, session_id FROM session_models)
)
SELECT org_id, day, user_id, agent, model,
       CASE WHEN f.ext <> '' THEN 'ext:' || f.ext ELSE 'name:' || coalesce(f.name, '') END AS lang_key,
       coalesce(f.repo, '') AS repo, sum(f.lines_added) AS lines_added, sum(f.lines_deleted) AS lines_deleted
FROM modelled
GROUP BY ALL
HAVING org_id IN (SELECT org_id FROM rebuild);

DELETE FROM agg_code_edit_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_code_edit_day
SELECT c.org_id, c.day, c.user_id, c.agent, c.model, coalesce(l.language, '') AS language, c.repo, sum(c.lines_added), sum(c.lines_deleted)
FROM code_edit c
LEFT JOIN (SELECT kind || ':' || key AS lang_key, language FROM languages) l USING (lang_key)
GROUP BY ALL
HAVING sum(c.lines_added) > 0 OR sum(c.lines_deleted) > 0;

-- Landed commits of the rebuilt days, dated by their committer time.
CREATE OR REPLACE TEMP TABLE code_landed AS
SELECT org_id, CAST(ts AS DATE) AS day, user_id, repo, lines_added, lines_deleted, agent_lines, by_agent, by_session
FROM landed_commits
WHERE ts >= CAST($chunk_first AS TIMESTAMP) AND ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
  AND (org_id, CAST(ts AS DATE)) IN (SELECT org_id, day FROM rebuild);

DELETE FROM agg_code_landed_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_code_landed_day
SELECT org_id, day, user_id, repo, count(*), count(*) FILTER (WHERE agent_lines > 0), sum(lines_added), sum(lines_deleted), sum(agent_lines)
FROM code_landed GROUP BY ALL;

DELETE FROM agg_code_landed_agent_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_code_landed_agent_day
SELECT org_id, day, user_id, repo, a.agent, a.model, sum(a.lines)
FROM (SELECT org_id, day, user_id, repo, unnest(by_agent) AS a FROM code_landed)
GROUP BY ALL;

-- The sessions' lines the same commits hold, which /code's landed dollars split each session's cost by.
DELETE FROM agg_code_landed_session_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_code_landed_session_day
SELECT org_id, day, user_id, s.session_id, sum(s.lines)
FROM (SELECT org_id, day, user_id, unnest(by_session) AS s FROM code_landed)
WHERE s.session_id <> ''
GROUP BY ALL;

-- A landed commit is a record of its user's day like an event (docs/code.md "Per-user fields"): a day
-- with landed commits and no other record still gets its per-user row, inactive (it counts in no active
-- users) and otherwise zero, so that the users' landed_agent_lines add up to the organization's.
INSERT INTO agg_user_day (
  org_id, day, user_id, active, tool_calls, user_turns, mcp_calls, skill_calls, slash_commands, hooks, sessions,
  user_messages, assistant_messages, files_created, files_edited, git_commits, git_prs_created, billable_tokens,
  languages, clients)
SELECT DISTINCT l.org_id, l.day, l.user_id, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, [], []
FROM agg_code_landed_day l
WHERE (l.org_id, l.day) IN (SELECT org_id, day FROM rebuild)
  AND NOT EXISTS (SELECT 1 FROM agg_user_day a WHERE a.org_id = l.org_id AND a.day = l.day AND a.user_id = l.user_id);

-- The per-user record's lines_added (edits) and landed_agent_lines, on the rows 40_user_day just built
-- (and the landed-only rows above).
UPDATE agg_user_day a SET lines_added = s.lines_added, landed_agent_lines = s.landed_agent_lines
FROM (
  SELECT org_id, day, user_id, sum(lines_added) AS lines_added, sum(landed_agent_lines) AS landed_agent_lines
  FROM (
    SELECT org_id, day, user_id, lines_added, 0 AS landed_agent_lines FROM agg_code_edit_day
    WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild)
    UNION ALL
    SELECT org_id, day, user_id, 0, agent_lines FROM agg_code_landed_day
    WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild)
  )
  GROUP BY ALL
) s
WHERE a.org_id = s.org_id AND a.day = s.day AND a.user_id = s.user_id;
