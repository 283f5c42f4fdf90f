-- Every scan of a raw table in the build steps also bounds ts by the chunk's first and last day
-- ($chunk_first, $chunk_last): the days to rebuild all lie between them, and that plain range on ts is a
-- filter DuckDB checks against each row group's min/max, so a nightly run reads the recent row groups
-- (records arrive roughly in time order) instead of the whole history. The exact (org_id, day) set
-- follows.

-- Tool names normalized once per distinct name (docs/metrics.md §2): trimmed; a name that is empty, over 128
-- characters or has characters outside [A-Za-z0-9_.:@/-] is a parsing artifact, named "unknown".
CREATE OR REPLACE TEMP TABLE tool_names AS
SELECT raw,
       CASE WHEN length(trim(raw)) BETWEEN 1 AND 128 AND regexp_full_match(trim(raw), '[A-Za-z0-9_.:@/-]+') THEN trim(raw) ELSE 'unknown' END AS tool
FROM (
  SELECT DISTINCT tool_name AS raw FROM events e
  WHERE tool_name IS NOT NULL AND e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
);

-- ev: the hook events of the days being rebuilt, with only the columns the aggregates need; MCP server
-- names case-folded (not for artifacts). Events are unique per (org_id, id) already: the raw table's
-- primary key deduplicates at ingest. files and hooks are read from events by the steps that need them.
-- It is not stored: the two groupings below read the events each (cheaper than storing every event once
-- and reading it twice).

-- The events of the chunk's rebuilt days with what both groupings below read: one macro, read by each.
CREATE OR REPLACE TEMP MACRO chunk_events(chunk_first, chunk_last) AS TABLE
SELECT e.org_id, e.user_id, CAST(e.ts AS DATE) AS day, e.event, e.session_id, e.client, e.agent, e.autonomy,
       e.event IN ('PostToolUse', 'PostToolUseFailure') AS is_call,
       n.tool,
       CASE WHEN n.tool <> 'unknown' THEN lower(e.mcp_server) END AS mcp_server,
       e.skill, e.slash_command, coalesce(e.tool_success, false) AS success, coalesce(e.is_shell, false) AS is_shell,
       coalesce(e.git_commit, false) AS git_commit, coalesce(e.pr_created, false) AS pr_created,
       coalesce(len(e.hooks), 0) AS hook_count
FROM events e
LEFT JOIN tool_names n ON n.raw = e.tool_name
WHERE e.ts >= CAST(chunk_first AS TIMESTAMP) AND e.ts < CAST(chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
  AND (e.org_id, CAST(e.ts AS DATE)) IN (SELECT org_id, day FROM rebuild);

-- One row per organization, day, user, session, client, agent and autonomy level of the rebuilt days, with
-- the event counts the per-user figures (40_user_day) sum. A session is one user's and one agent's, and
-- mostly of one autonomy level, so this is about one row per session.
CREATE OR REPLACE TEMP TABLE ev_groups AS
WITH ev AS (SELECT * FROM chunk_events($chunk_first, $chunk_last))
SELECT org_id, day, user_id, session_id, client, agent, autonomy,
       count(*) FILTER (WHERE is_call) AS tool_calls,
       count(*) FILTER (WHERE event = 'UserPromptSubmit') AS user_turns,
       count(*) FILTER (WHERE is_call AND mcp_server IS NOT NULL) AS mcp_calls,
       -- A skill call: the Skill tool (Claude Code, Droid), or any call the collector named a skill for (Qwen Code: skill).
       count(*) FILTER (WHERE is_call AND (tool = 'Skill' OR skill IS NOT NULL)) AS skill_calls,
       count(*) FILTER (WHERE event = 'UserPromptSubmit' AND slash_command IS NOT NULL) AS slash_commands,
       sum(hook_count) AS hooks,
       count(*) FILTER (WHERE is_call AND success AND is_shell AND git_commit) AS git_commits,
       count(*) FILTER (WHERE is_call AND success AND pr_created) AS git_prs_created
FROM ev
GROUP BY ALL;

-- The tool calls and slash commands per user and key: the breakdowns (45_user_breakdowns) are sums of these
-- few rows.
CREATE OR REPLACE TEMP TABLE ev_keys AS
WITH ev AS (SELECT * FROM chunk_events($chunk_first, $chunk_last))
SELECT org_id, day, user_id, agent, is_call, tool, mcp_server, skill, slash_command, count(*) AS n
FROM ev
WHERE is_call OR (event = 'UserPromptSubmit' AND slash_command IS NOT NULL)
GROUP BY ALL;

-- One row per organization, day, user, session, client and agent of the rebuilt days: the distinct counts
-- (sessions with events, a user's clients, users per client and per agent, the sessions to place) read
-- this small table instead of the events.
CREATE OR REPLACE TEMP TABLE ev_sessions AS
SELECT DISTINCT org_id, day, user_id, session_id, client, agent FROM ev_groups;
