-- The breakdown arrays of the analytics endpoints, and the rows of group_by=agent, per organization and day:
-- the sums of the users' own (45_user_breakdowns.sql, which reads the events). Kinds: tool, mcp_server,
-- skill, slash_command, extension, language; client and agent_users (a user counts once under each client
-- and agent of the day: their per-user row is 1, so the sum is the distinct users); agent_calls.
DELETE FROM agg_breakdown_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_breakdown_day
SELECT org_id, day, kind, key, sum(count)
FROM agg_user_breakdown_day
WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild)
GROUP BY ALL;
