-- Spend by repository (group_by=repo on /tokens): each usage record under the repository of its session's
-- working directory, the repository of the session's latest hook event that names one (any day: a session
-- that began yesterday in a repository is still there). Sessions in no repository are in no row.

-- The sessions with usage on the rebuilt days (usage_cost holds the chunk's records of those days).
CREATE OR REPLACE TEMP TABLE usage_sessions AS
SELECT DISTINCT org_id, session_id FROM usage_cost;

-- Their events on the rebuilt days give their latest event naming a repository through ev_sessions; their
-- other events are read: before the chunk, after it, and on a day of it that is not rebuilt (chunk_gaps).
CREATE OR REPLACE TEMP TABLE session_repo AS
SELECT org_id, session_id, arg_max(repo, ts) AS repo
FROM (
  SELECT s.org_id, s.session_id, s.repo, s.repo_ts AS ts
  FROM ev_sessions s
  WHERE s.repo_ts IS NOT NULL AND (s.org_id, s.session_id) IN (SELECT org_id, session_id FROM usage_sessions)
  UNION ALL
  SELECT e.org_id, e.session_id, e.repo, e.ts
  FROM events e
  WHERE e.repo IS NOT NULL AND e.ts < CAST($chunk_first AS TIMESTAMP)
    AND (e.org_id, e.session_id) IN (SELECT org_id, session_id FROM usage_sessions)
  UNION ALL
  SELECT e.org_id, e.session_id, e.repo, e.ts
  FROM events e
  WHERE e.repo IS NOT NULL AND e.ts >= CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
    AND (e.org_id, e.session_id) IN (SELECT org_id, session_id FROM usage_sessions)
  UNION ALL
  SELECT e.org_id, e.session_id, e.repo, e.ts
  FROM events e
  JOIN chunk_gaps g ON g.org_id = e.org_id AND g.day = CAST(e.ts AS DATE)
  WHERE e.repo IS NOT NULL AND e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
    AND (e.org_id, e.session_id) IN (SELECT org_id, session_id FROM usage_sessions)
)
GROUP BY org_id, session_id;

DELETE FROM agg_tokens_repo_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

-- The chunk's usage records of the rebuilt days are usage_cost's (pipeline/cost.ts).
INSERT INTO agg_tokens_repo_day
SELECT u.org_id, u.day, u.user_id, s.repo,
       sum(u.input_tokens), sum(u.output_tokens), sum(u.cache_read_tokens), sum(u.cache_write_tokens),
       sum(coalesce(mp.multiplier, 1.0) * (u.input_tokens + u.output_tokens + u.cache_write_tokens + u.cache_read_tokens / 10.0)),
       CASE WHEN bool_or(u.cost_usd IS NULL) THEN NULL ELSE sum(u.cost_usd) END
FROM usage_cost u
JOIN session_repo s ON s.org_id = u.org_id AND s.session_id = u.session_id
LEFT JOIN model_price mp ON mp.model = u.model AND mp.day = u.day
GROUP BY ALL;
