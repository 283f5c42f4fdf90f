-- The organization's scalar figures per day. Weekly and monthly active users read agg_user_day over
-- D-6..D and D-29..D, so they see late events folded into earlier days. A quiet day still has a row when
-- someone was active in the 30 days before it: its WAU and MAU are not 0 (a careful reader expects the
-- Sunday after a busy week to show last week's users); every other figure of such a day is 0.
DELETE FROM agg_org_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_org_day
WITH users AS (
  SELECT u.* FROM agg_user_day u JOIN rebuild r USING (org_id, day)
),
per_day AS (
  SELECT org_id, day,
         count(*) FILTER (WHERE active) AS dau,
         sum(sessions) AS sessions, sum(user_messages) AS user_messages, sum(assistant_messages) AS assistant_messages,
         sum(tool_calls) AS tool_calls,
         count(*) FILTER (WHERE mcp_calls > 0) AS mcp_users,
         sum(skill_calls) AS skills, sum(slash_commands) AS slash, sum(hooks) AS hooks,
         count(*) FILTER (WHERE list_contains(clients, 'web')) AS web_users,
         -- Over the users who had a turn that day (users with no turn have no ratio).
         coalesce(avg(autonomy_ratio), 0) AS ratio_avg,
         coalesce(quantile_cont(autonomy_ratio, 0.5), 0) AS ratio_p50,
         coalesce(quantile_cont(autonomy_ratio, 0.9), 0) AS ratio_p90,
         sum(files_created) AS files_created, sum(files_edited) AS files_edited,
         sum(git_commits) AS git_commits, sum(git_prs_created) AS git_prs_created,
         -- A session belongs to one user, so sessions with events add up over users.
         sum(sessions_with_events) AS sessions_with_events, sum(user_turns) AS turns,
         sum(calls_auto_high) AS high, sum(calls_auto_medium) AS medium, sum(calls_auto_low) AS low, sum(calls_manual) AS manual
  FROM users GROUP BY ALL
),
windows AS (
  SELECT r.org_id, r.day,
         count(DISTINCT u.user_id) FILTER (WHERE u.day > r.day - 7) AS wau,
         count(DISTINCT u.user_id) AS mau
  FROM rebuild r
  JOIN agg_user_day u ON u.org_id = r.org_id AND u.active AND u.day BETWEEN r.day - 29 AND r.day
  GROUP BY ALL
)
SELECT r.org_id, r.day, coalesce(p.dau, 0), coalesce(w.wau, 0), coalesce(w.mau, 0), coalesce(p.sessions, 0),
       coalesce(p.user_messages, 0), coalesce(p.assistant_messages, 0), coalesce(p.tool_calls, 0), coalesce(p.mcp_users, 0),
       coalesce(p.skills, 0), coalesce(p.slash, 0), coalesce(p.hooks, 0), coalesce(p.web_users, 0),
       coalesce(p.ratio_avg, 0), coalesce(p.ratio_p50, 0), coalesce(p.ratio_p90, 0),
       CASE WHEN p.sessions_with_events > 0 THEN p.tool_calls / p.sessions_with_events ELSE 0 END,
       CASE WHEN p.sessions_with_events > 0 THEN p.turns / p.sessions_with_events ELSE 0 END,
       CASE WHEN p.tool_calls > 0 THEN p.high / p.tool_calls ELSE 0 END,
       CASE WHEN p.tool_calls > 0 THEN p.medium / p.tool_calls ELSE 0 END,
       CASE WHEN p.tool_calls > 0 THEN p.low / p.tool_calls ELSE 0 END,
       CASE WHEN p.tool_calls > 0 THEN p.manual / p.tool_calls ELSE 0 END,
       coalesce(p.files_created, 0), coalesce(p.files_edited, 0), coalesce(p.git_commits, 0), coalesce(p.git_prs_created, 0)
FROM rebuild r
LEFT JOIN per_day p USING (org_id, day)
LEFT JOIN windows w USING (org_id, day)
WHERE p.org_id IS NOT NULL OR w.mau > 0;
