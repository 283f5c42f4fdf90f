-- The breakdown arrays of the analytics endpoints, and the rows of group_by=agent, per organization and day.
DELETE FROM agg_breakdown_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_breakdown_day
SELECT org_id, day, 'tool', tool, count(*) FROM ev WHERE is_call GROUP BY ALL
UNION ALL
SELECT org_id, day, 'mcp_server', mcp_server, count(*) FROM ev WHERE is_call AND mcp_server IS NOT NULL GROUP BY ALL
UNION ALL
SELECT org_id, day, 'skill', coalesce(skill, 'unknown'), count(*) FROM ev WHERE is_call AND (tool = 'Skill' OR skill IS NOT NULL) GROUP BY ALL
UNION ALL
SELECT org_id, day, 'slash_command', slash_command, count(*) FROM ev WHERE event = 'UserPromptSubmit' AND slash_command IS NOT NULL GROUP BY ALL
UNION ALL
SELECT org_id, day, 'extension', ext, count(*) FROM file_touch WHERE ext <> '' GROUP BY ALL
UNION ALL
SELECT org_id, day, 'language', language, count(*) FROM file_touch WHERE language IS NOT NULL GROUP BY ALL
UNION ALL
-- A user active on several clients counts once in DAU and once in each client.
SELECT org_id, day, 'client', client, count(DISTINCT user_id) FROM ev_sessions GROUP BY ALL
UNION ALL
-- group_by=agent (our extension): tool calls per agent, and users with an event of the agent (a user of
-- two agents that day counts once in DAU and once under each agent, as with clients).
SELECT org_id, day, 'agent_calls', agent, count(*) FROM ev WHERE is_call GROUP BY ALL
UNION ALL
SELECT org_id, day, 'agent_users', agent, count(DISTINCT user_id) FROM ev_sessions GROUP BY ALL;
