-- Each agent session's dollars per day (docs/metrics.md §10), from the records priced in pipeline/cost.ts
-- (the temp table usage_cost of the tokens step, the chunk's records): the cost a pull request takes its share of.
DELETE FROM agg_session_cost_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_session_cost_day (org_id, day, user_id, agent, session_id, cost_usd)
SELECT u.org_id, u.day, u.user_id, u.agent, u.session_id,
       CASE WHEN bool_or(u.cost_usd IS NULL) THEN NULL ELSE sum(u.cost_usd) END AS cost_usd
FROM usage_cost u
  -- One fact, one count (docs/metrics.md §11), as the tokens step counts it.
WHERE NOT (u.source IS NOT DISTINCT FROM 'otel' AND (u.org_id, u.user_id, u.agent, u.session_id) IN (SELECT org_id, user_id, agent, session_id FROM otel_shadowed))
GROUP BY ALL;
