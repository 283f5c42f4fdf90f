-- The hook events of the days being rebuilt, normalized (METRICS.md §2): tool names trimmed, parsing
-- artifacts (empty, over 128 characters, characters outside [A-Za-z0-9_.:@/-]) named "unknown", MCP
-- server names case-folded. Events are unique per (org_id, id) already: the raw table's primary key
-- deduplicates at ingest.
CREATE OR REPLACE TEMP TABLE ev AS
SELECT *,
       CASE WHEN tool IS NOT NULL AND tool <> 'unknown' THEN lower(raw_mcp_server) END AS mcp_server
FROM (
  SELECT e.org_id, e.user_id, e.id, e.ts, CAST(e.ts AS DATE) AS day, e.event, e.session_id, e.client, e.autonomy,
         e.event IN ('PostToolUse', 'PostToolUseFailure') AS is_call,
         CASE
           WHEN e.tool_name IS NULL THEN NULL
           WHEN length(trim(e.tool_name)) BETWEEN 1 AND 128 AND regexp_full_match(trim(e.tool_name), '[A-Za-z0-9_.:@/-]+') THEN trim(e.tool_name)
           ELSE 'unknown'
         END AS tool,
         e.mcp_server AS raw_mcp_server,
         e.skill, e.slash_command, coalesce(e.tool_success, false) AS success, coalesce(e.is_shell, false) AS is_shell,
         coalesce(e.git_commit, false) AS git_commit, coalesce(e.pr_created, false) AS pr_created, e.files, e.hooks
  FROM events e
  JOIN rebuild r ON r.org_id = e.org_id AND r.day = CAST(e.ts AS DATE)
);
