-- Per-user breakdowns, hook executions and unrounded billable tokens of the rebuilt days: what the team
-- figures (docs/metrics.md §6) sum over a team's members, and what the organization's breakdowns and hook
-- counts (50_breakdowns, 51_hooks) are sums of, so the events are grouped once, by user.
DELETE FROM agg_user_breakdown_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_breakdown_day
SELECT org_id, day, user_id, 'tool', tool, sum(n) FROM ev_keys WHERE is_call GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, 'mcp_server', mcp_server, sum(n) FROM ev_keys WHERE is_call AND mcp_server IS NOT NULL GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, 'skill', coalesce(skill, 'unknown'), sum(n) FROM ev_keys WHERE is_call AND (tool = 'Skill' OR skill IS NOT NULL) GROUP BY ALL
UNION ALL
-- The rows that are no call are the slash commands (a turn is never a call).
SELECT org_id, day, user_id, 'slash_command', slash_command, sum(n) FROM ev_keys WHERE NOT is_call GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, 'extension', ext, count(*) FROM file_touch WHERE ext <> '' GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, 'language', language, count(*) FROM file_touch WHERE language IS NOT NULL GROUP BY ALL
UNION ALL
SELECT DISTINCT org_id, day, user_id, 'client', client, 1 FROM ev_sessions
UNION ALL
SELECT org_id, day, user_id, 'agent_calls', agent, sum(n) FROM ev_keys WHERE is_call GROUP BY ALL
UNION ALL
SELECT DISTINCT org_id, day, user_id, 'agent_users', agent, 1 FROM ev_sessions;

DELETE FROM agg_user_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_hooks_day
SELECT org_id, day, user_id, h.event, h.matcher, h.command, count(*)
FROM (
  SELECT e.org_id, CAST(e.ts AS DATE) AS day, e.user_id, unnest(e.hooks) AS h
  FROM events e
  WHERE e.hooks IS NOT NULL AND e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
    AND (e.org_id, CAST(e.ts AS DATE)) IN (SELECT org_id, day FROM rebuild)
)
GROUP BY ALL;

DELETE FROM agg_user_model_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_model_day
SELECT org_id, day, user_id, model, raw_billable FROM usage_priced;
