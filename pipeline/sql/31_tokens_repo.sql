-- Spend by repository (group_by=repo on /tokens): each usage record under the repository of its session's
-- working directory, the repository of the session's latest hook event that names one (any day: a session
-- that began yesterday in a repository is still there). Sessions in no repository are in no row.
CREATE OR REPLACE TEMP TABLE session_repo AS
SELECT e.org_id, e.session_id, arg_max(e.repo, e.ts) AS repo
FROM events e
WHERE e.repo IS NOT NULL
  AND (e.org_id, e.session_id) IN (SELECT DISTINCT org_id, session_id FROM usage_cost)
GROUP BY e.org_id, e.session_id;

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
