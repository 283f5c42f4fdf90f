-- Every scan of a raw table in the build steps also bounds ts by the chunk's first and last day
-- ($chunk_first, $chunk_last): the days to rebuild all lie between them, and that plain range on ts is a
-- filter DuckDB checks against each row group's min/max, so a nightly run reads the recent row groups
-- (records arrive roughly in time order) instead of the whole history. The exact (org_id, day) set
-- follows.

-- The days of the range whose events no step below counts: those of the registered organizations that
-- rebuild none of them (a run of one organization) and the holes of the others (chunk_gaps). Empty in a run of every
-- organization over whole days: an anti join with nothing costs nothing, where testing each event's
-- organization and day against the rebuild set costs about a fifth of a grouping.
CREATE OR REPLACE TEMP TABLE chunk_skip AS
SELECT o.org_id, CAST(d.day AS DATE) AS day
FROM (SELECT id AS org_id FROM orgs UNION SELECT org_id FROM rebuild) o,
     generate_series(CAST($chunk_first AS DATE), CAST($chunk_last AS DATE), INTERVAL 1 DAY) d(day)
EXCEPT
SELECT org_id, day FROM rebuild;

-- Of those, the days that an organization with rebuilt days does not rebuild (an incremental run's rebuild
-- set can have holes): the only events of the range the steps below read besides those of rebuilt days.
-- Usually none.
CREATE OR REPLACE TEMP TABLE chunk_gaps AS
SELECT org_id, day FROM chunk_skip WHERE org_id IN (SELECT org_id FROM rebuild);

-- The hook events of the chunk's range, but for the skipped days. Events are unique per (org_id, id)
-- already: the raw table's primary key deduplicates at ingest. Each grouping below reads them with the few
-- columns it needs (three narrow scans cost less than storing the events once, or grouping them once by
-- every key together). Every grouping keeps only the groups of organizations with rebuilt days (HAVING
-- org_id IN rebuild): that leaves out an organization id that is not registered (records written around
-- the server), which the skip cannot list, on the grouped rows instead of on every event.
CREATE OR REPLACE TEMP MACRO chunk_events(chunk_first, chunk_last) AS TABLE
SELECT e.*, CAST(e.ts AS DATE) AS day, e.event IN ('PostToolUse', 'PostToolUseFailure') AS is_call
FROM events e
ANTI JOIN chunk_skip s ON s.org_id = e.org_id AND s.day = CAST(e.ts AS DATE)
WHERE e.ts >= CAST(chunk_first AS TIMESTAMP) AND e.ts < CAST(chunk_last AS TIMESTAMP) + INTERVAL 1 DAY;

-- The event counts per organization, day, user and autonomy level of the rebuilt days: what the per-user
-- figures (40_user_day) sum, and the delegation level and calls per level read by level. A condition that
-- is NULL counts nothing, as a false one.
CREATE OR REPLACE TEMP TABLE ev_counts AS
SELECT org_id, day, user_id, autonomy,
       count_if(is_call) AS tool_calls,
       count_if(event = 'UserPromptSubmit') AS user_turns,
       count_if(event = 'UserPromptSubmit' AND slash_command IS NOT NULL) AS slash_commands,
       count_if(is_call AND tool_success AND is_shell AND git_commit) AS git_commits,
       count_if(is_call AND tool_success AND pr_created) AS git_prs_created
FROM chunk_events($chunk_first, $chunk_last)
GROUP BY ALL
HAVING org_id IN (SELECT org_id FROM rebuild);

-- Hook executions per organization, day, user and (event, matcher, command): every configured hook that
-- ran for an event. Read once: the users' hook counts (40_user_day) are their sums, the hook tables
-- (45_user_breakdowns) their rows. Reading the lists is the dearest part of the events.
CREATE OR REPLACE TEMP TABLE ev_hooks AS
SELECT org_id, day, user_id, h.event, h.matcher, h.command, count(*) AS n
FROM (SELECT org_id, day, user_id, unnest(hooks) AS h FROM chunk_events($chunk_first, $chunk_last) WHERE hooks IS NOT NULL)
GROUP BY ALL
HAVING org_id IN (SELECT org_id FROM rebuild);

-- One row per organization, day, user, session, client and agent of the rebuilt days: the distinct counts
-- (sessions with events, a user's clients, users per client and per agent) read this small table instead
-- of the events; with the row's first event (where a session starts, 21_session_starts) and its latest
-- event that names a repository (the session's repository, 31_tokens_repo; arg_max skips the rows whose
-- repository is NULL).
CREATE OR REPLACE TEMP TABLE ev_sessions AS
SELECT org_id, day, user_id, session_id, client, agent,
       min(ts) AS first_ts,
       max(CASE WHEN repo IS NOT NULL THEN ts END) AS repo_ts,
       arg_max(repo, ts) AS repo
FROM chunk_events($chunk_first, $chunk_last)
GROUP BY ALL
HAVING org_id IN (SELECT org_id FROM rebuild);

-- The tool calls and slash commands per user and key, under the names the events gave: the breakdowns
-- (45_user_breakdowns) are sums of the few rows of ev_keys below.
CREATE OR REPLACE TEMP TABLE ev_keys_raw AS
SELECT org_id, day, user_id, agent, is_call, tool_name, mcp_server, skill, slash_command, count(*) AS n
FROM chunk_events($chunk_first, $chunk_last)
WHERE is_call OR (event = 'UserPromptSubmit' AND slash_command IS NOT NULL)
GROUP BY ALL
HAVING org_id IN (SELECT org_id FROM rebuild);

-- Tool names normalized once per distinct name (docs/metrics.md §2): trimmed; a name that is empty, over 128
-- characters or has characters outside [A-Za-z0-9_.:@/-] is a parsing artifact, named "unknown".
CREATE OR REPLACE TEMP TABLE tool_names AS
SELECT raw,
       CASE WHEN length(trim(raw)) BETWEEN 1 AND 128 AND regexp_full_match(trim(raw), '[A-Za-z0-9_.:@/-]+') THEN trim(raw) ELSE 'unknown' END AS tool
FROM (SELECT DISTINCT tool_name AS raw FROM ev_keys_raw WHERE tool_name IS NOT NULL);

-- ev_keys: under normalized names, MCP server names case-folded (not for artifacts).
CREATE OR REPLACE TEMP TABLE ev_keys AS
SELECT k.org_id, k.day, k.user_id, k.agent, k.is_call, n.tool,
       CASE WHEN n.tool <> 'unknown' THEN lower(k.mcp_server) END AS mcp_server,
       k.skill, k.slash_command, CAST(sum(k.n) AS BIGINT) AS n
FROM ev_keys_raw k
LEFT JOIN tool_names n ON n.raw = k.tool_name
GROUP BY ALL;
