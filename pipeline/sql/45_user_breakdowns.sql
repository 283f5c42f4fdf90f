-- Per-user breakdowns, hook executions and unrounded billable tokens of the rebuilt days: what the team
-- figures (docs/metrics.md §6) sum over a team's members, and what the organization's breakdowns and hook
-- counts (50_breakdowns, 51_hooks) are sums of, so the events are grouped once, by user.

-- Edit decisions an agent reported through OpenTelemetry (docs/metrics.md §11) on the rebuilt days, with the
-- breakdown kind they count under: edits_accepted_<by> or edits_rejected_<by>.
CREATE OR REPLACE TEMP TABLE decision_keys AS
SELECT d.org_id, CAST(d.ts AS DATE) AS day, d.user_id, d.agent, coalesce(d.tool_name, 'unknown') AS tool, d.language, d.count,
       CASE d.decision WHEN 'accept' THEN 'edits_accepted_' ELSE 'edits_rejected_' END AS prefix
FROM edit_decisions d
WHERE d.ts >= CAST($chunk_first AS TIMESTAMP) AND d.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
  AND (d.org_id, CAST(d.ts AS DATE)) IN (SELECT org_id, day FROM rebuild);

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
SELECT org_id, day, user_id, 'extension', ext, sum(n) FROM file_touch WHERE ext <> '' GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, 'language', language, sum(n) FROM file_touch WHERE language IS NOT NULL GROUP BY ALL
UNION ALL
SELECT DISTINCT org_id, day, user_id, 'client', client, 1 FROM ev_sessions
UNION ALL
SELECT org_id, day, user_id, 'agent_calls', agent, sum(n) FROM ev_keys WHERE is_call GROUP BY ALL
UNION ALL
SELECT DISTINCT org_id, day, user_id, 'agent_users', agent, 1 FROM ev_sessions
-- The edit decisions, by agent, tool and language (the totals are the sums of the agent rows).
UNION ALL
SELECT org_id, day, user_id, prefix || 'agent', agent, sum(count) FROM decision_keys GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, prefix || 'tool', tool, sum(count) FROM decision_keys GROUP BY ALL
UNION ALL
SELECT org_id, day, user_id, prefix || 'language', language, sum(count) FROM decision_keys WHERE language IS NOT NULL GROUP BY ALL;

DELETE FROM agg_user_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_hooks_day
SELECT org_id, day, user_id, event, matcher, command, n FROM ev_hooks;

DELETE FROM agg_user_model_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_model_day
SELECT org_id, day, user_id, model, raw_billable FROM usage_priced;
