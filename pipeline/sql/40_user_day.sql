-- One row per user and day with any record: the per-user figures of the users endpoint, and the base of
-- the active-user counts.
DELETE FROM agg_user_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_user_day (
  org_id, day, user_id, active, tool_calls, user_turns, mcp_calls, skill_calls, slash_commands, hooks, sessions,
  user_messages, assistant_messages, files_created, files_edited, git_commits, git_prs_created, billable_tokens,
  primary_model, primary_model_tier, autonomy_ratio, delegation_level, languages, clients,
  sessions_with_events, calls_auto_high, calls_auto_medium, calls_auto_low, calls_manual, cost_usd)
-- The event counts per user, from the per-level counts of 20_normalized_events (sums of counts), and the
-- MCP and skill calls from the calls per key.
WITH hook AS (
  SELECT org_id, day, user_id,
         CAST(sum(tool_calls) AS BIGINT) AS tool_calls,
         CAST(sum(user_turns) AS BIGINT) AS user_turns,
         CAST(sum(slash_commands) AS BIGINT) AS slash_commands,
         CAST(sum(git_commits) AS BIGINT) AS git_commits,
         CAST(sum(git_prs_created) AS BIGINT) AS git_prs_created,
         CAST(coalesce(sum(tool_calls) FILTER (WHERE autonomy = 'auto-high'), 0) AS BIGINT) AS calls_auto_high,
         CAST(coalesce(sum(tool_calls) FILTER (WHERE autonomy = 'auto-medium'), 0) AS BIGINT) AS calls_auto_medium,
         CAST(coalesce(sum(tool_calls) FILTER (WHERE autonomy = 'auto-low'), 0) AS BIGINT) AS calls_auto_low,
         CAST(coalesce(sum(tool_calls) FILTER (WHERE autonomy IN ('manual', 'spec')), 0) AS BIGINT) AS calls_manual
  FROM ev_counts GROUP BY ALL
),
hook_runs AS (
  SELECT org_id, day, user_id, sum(n) AS hooks FROM ev_hooks GROUP BY ALL
),
calls AS (
  SELECT org_id, day, user_id,
         CAST(coalesce(sum(n) FILTER (WHERE is_call AND mcp_server IS NOT NULL), 0) AS BIGINT) AS mcp_calls,
         -- A skill call: the Skill tool (Claude Code, Droid), or any call the collector named a skill for (Qwen Code: skill).
         CAST(coalesce(sum(n) FILTER (WHERE is_call AND (tool = 'Skill' OR skill IS NOT NULL)), 0) AS BIGINT) AS skill_calls
  FROM ev_keys GROUP BY ALL
),
-- Sessions with at least one event that day, and the clients used (from the distinct rows of
-- ev_sessions: far cheaper than distinct aggregates over the events).
active_sessions AS (
  SELECT org_id, day, user_id, count(DISTINCT session_id) AS sessions_with_events, list_sort(list(DISTINCT client)) AS clients
  FROM ev_sessions
  GROUP BY ALL
),
-- Delegation level: the level with the most tool calls; ties go to the more autonomous level. Levels
-- without a call do not count.
delegation AS (
  SELECT org_id, day, user_id,
         arg_max(autonomy, (calls, CASE autonomy WHEN 'auto-high' THEN 5 WHEN 'auto-medium' THEN 4 WHEN 'auto-low' THEN 3 WHEN 'spec' THEN 2 ELSE 1 END)) AS level
  FROM (SELECT org_id, day, user_id, autonomy, CAST(sum(tool_calls) AS BIGINT) AS calls FROM ev_counts GROUP BY ALL HAVING sum(tool_calls) > 0)
  GROUP BY ALL
),
sessions AS (
  SELECT s.org_id, s.start_day AS day, s.user_id, count(*) AS sessions
  FROM session_start s JOIN rebuild r ON r.org_id = s.org_id AND r.day = s.start_day
  GROUP BY ALL
),
assistant AS (
  SELECT m.org_id, CAST(m.ts AS DATE) AS day, m.user_id, count(*) AS assistant_messages
  FROM assistant_messages m JOIN rebuild r ON r.org_id = m.org_id AND r.day = CAST(m.ts AS DATE)
  WHERE m.ts >= CAST($chunk_first AS TIMESTAMP) AND m.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
  GROUP BY ALL
),
files AS (
  SELECT org_id, day, user_id,
         coalesce(sum(n) FILTER (WHERE op = 'create'), 0) AS files_created,
         coalesce(sum(n) FILTER (WHERE op = 'edit'), 0) AS files_edited,
         list_sort(list(DISTINCT language) FILTER (WHERE language IS NOT NULL)) AS languages
  FROM file_touch GROUP BY ALL
),
tokens AS (
  -- Primary model: most billable tokens; equal totals go to the alphabetically first model. A model used
  -- through two agents has a row per agent: summed first.
  SELECT org_id, day, user_id, sum(billable_tokens) AS billable_tokens, sum(cost_usd) AS cost_usd,
         list(model ORDER BY billable_tokens DESC, model)[1] AS primary_model,
         list(thinking ORDER BY billable_tokens DESC, model)[1] AS primary_thinking
  FROM (
    SELECT org_id, day, user_id, model, sum(billable_tokens) AS billable_tokens, bool_or(thinking) AS thinking,
           sum(cost_usd) AS cost_usd
    FROM agg_tokens_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild)
    GROUP BY ALL
  )
  GROUP BY ALL
),
who AS (
  SELECT org_id, day, user_id FROM hook
  UNION SELECT org_id, day, user_id FROM assistant
  UNION SELECT org_id, day, user_id FROM tokens
  UNION SELECT org_id, day, user_id FROM sessions
)
SELECT w.org_id, w.day, w.user_id,
       h.user_id IS NOT NULL AS active,
       coalesce(h.tool_calls, 0), coalesce(h.user_turns, 0), coalesce(c.mcp_calls, 0), coalesce(c.skill_calls, 0),
       coalesce(h.slash_commands, 0), coalesce(k.hooks, 0), coalesce(s.sessions, 0),
       coalesce(h.user_turns, 0) AS user_messages, coalesce(a.assistant_messages, 0),
       coalesce(f.files_created, 0), coalesce(f.files_edited, 0), coalesce(h.git_commits, 0), coalesce(h.git_prs_created, 0),
       coalesce(t.billable_tokens, 0),
       -- A model with no billable tokens that day is no primary model.
       CASE WHEN t.billable_tokens > 0 THEN t.primary_model END,
       CASE WHEN t.billable_tokens > 0 THEN CASE WHEN t.primary_thinking THEN 'thinking' ELSE 'standard' END END,
       CASE WHEN h.user_turns > 0 THEN h.tool_calls / h.user_turns END,
       d.level,
       coalesce(f.languages, []),
       coalesce(x.clients, []),
       coalesce(x.sessions_with_events, 0), coalesce(h.calls_auto_high, 0), coalesce(h.calls_auto_medium, 0),
       coalesce(h.calls_auto_low, 0), coalesce(h.calls_manual, 0),
       -- The user's priced usage: NULL when there is usage and none of it has a price, 0 without usage
       -- (docs/metrics.md §4, §8; usage under half a credit has 0 credits, and still no price).
       CASE WHEN t.user_id IS NULL THEN 0 ELSE t.cost_usd END
FROM who w
LEFT JOIN hook h USING (org_id, day, user_id)
LEFT JOIN hook_runs k USING (org_id, day, user_id)
LEFT JOIN calls c USING (org_id, day, user_id)
LEFT JOIN active_sessions x USING (org_id, day, user_id)
LEFT JOIN delegation d USING (org_id, day, user_id)
LEFT JOIN sessions s USING (org_id, day, user_id)
LEFT JOIN assistant a USING (org_id, day, user_id)
LEFT JOIN files f USING (org_id, day, user_id)
LEFT JOIN tokens t USING (org_id, day, user_id);
