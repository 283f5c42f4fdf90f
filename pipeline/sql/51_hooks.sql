-- Hook executions per (event, matcher, command): every configured hook that ran for an event. The sums of
-- the users' own (45_user_breakdowns.sql).
DELETE FROM agg_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_hooks_day
SELECT org_id, day, event, matcher, command, sum(count)
FROM agg_user_hooks_day
WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild)
GROUP BY ALL;
