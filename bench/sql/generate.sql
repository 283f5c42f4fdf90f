-- Bench data set: $events hook events, one usage record and one assistant message per 10 events, across
-- 60 days from $first_day, for $users users of one organization. Sessions of 50 events stay within a day.
-- Rows are stored in time order (ORDER BY ts), as a server stores them when collectors ship as events
-- happen: the batch's range filter on ts then skips the row groups outside the days it rebuilds.
INSERT INTO orgs (id, name) VALUES ('org_bench', 'Bench');

INSERT INTO users (id, org_id, email, role)
SELECT 'usr_' || lpad(CAST(u AS VARCHAR), 5, '0'), 'org_bench', 'user' || u || '@bench.example.com', CASE WHEN u = 0 THEN 'manager' ELSE 'member' END
FROM range($users) t(u);

INSERT INTO events
SELECT 'org_bench', 'e' || i, 'usr_' || lpad(CAST(hash(i // 50) % $users AS VARCHAR), 5, '0'), TIMESTAMP '2026-11-20',
       CAST($first_day AS TIMESTAMP) + to_days(CAST(hash(i // 50) % 60 AS INTEGER)) + to_seconds(CAST(28800 + hash(i) % 36000 AS BIGINT)),
       CASE WHEN hash(i // 50) % 3 = 0 THEN 'droid' ELSE 'claude' END,
       ev, 's' || (i // 50),
       ['terminal-ui', 'terminal-ui', 'terminal-ui', 'non-interactive-cli', 'web'][1 + CAST(hash(i // 50) % 5 AS BIGINT)],
       ['auto-high', 'auto-medium', 'auto-low', 'spec', 'manual'][1 + CAST(hash(i) % 5 AS BIGINT)],
       CASE WHEN ev IN ('PreToolUse', 'PostToolUse') THEN tool END,
       CASE WHEN ev = 'PostToolUse' THEN hash(i) % 20 <> 0 END,
       CASE WHEN ev IN ('PreToolUse', 'PostToolUse') AND tool LIKE 'mcp__%' THEN split_part(tool, '__', 2) END,
       CASE WHEN tool = 'Skill' AND ev = 'PostToolUse' THEN 'pdf' END,
       tool = 'Bash',
       CASE WHEN ev = 'PostToolUse' AND tool IN ('Edit', 'Write') THEN [{'ext': ['ts', 'py', 'go', 'md', 'tsx'][1 + CAST(hash(i) % 5 AS BIGINT)], 'name': NULL, 'op': CASE WHEN tool = 'Write' THEN 'create' ELSE 'edit' END}] END,
       ev = 'PostToolUse' AND tool = 'Bash' AND hash(i) % 10 = 0,
       ev = 'PostToolUse' AND tool = 'Bash' AND hash(i) % 40 = 1,
       CASE WHEN ev = 'UserPromptSubmit' AND hash(i) % 10 = 0 THEN 'review' END,
       NULL, NULL, NULL, NULL,
       [{'event': ev, 'matcher': '*', 'command': '''~/.agentmeter/bin/agentmeter-hook.sh'' claude'}],
       NULL, NULL,
       CASE WHEN ev = 'PostToolUse' AND tool IN ('Edit', 'Write') THEN [{'ext': ['ts', 'py', 'go', 'md', 'tsx'][1 + CAST(hash(i) % 5 AS BIGINT)], 'name': NULL, 'lines_added': 1 + hash(i) % 40, 'lines_deleted': hash(i) % 5, 'repo_id': repo_id, 'repo': repo}] END,
       repo, repo_id
FROM (
  SELECT i,
         -- Four sessions in five work in one of the 50 repositories of the landed commits below.
         CASE WHEN hash(i // 50) % 5 <> 0 THEN 'github.com/bench/r' || (hash(i // 50) % 50) END AS repo,
         CASE WHEN hash(i // 50) % 5 <> 0 THEN 'repo_' || substr(md5(CAST(hash(i // 50) % 50 AS VARCHAR)), 1, 16) END AS repo_id,
         ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreToolUse', 'PostToolUse', 'PreToolUse', 'PostToolUse', 'PreToolUse', 'PostToolUse', 'Stop'][1 + CAST(i % 10 AS BIGINT)] AS ev,
         ['Read', 'Edit', 'Bash', 'Grep', 'Write', 'mcp__GitHub__get_issue', 'mcp__github__list_prs', 'Skill'][1 + CAST(hash(i * 7) % 8 AS BIGINT)] AS tool
  FROM range($events) t(i)
)
ORDER BY 5;

INSERT INTO usage
SELECT 'org_bench', 'u' || j, 'usr_' || lpad(CAST(hash(j // 5) % $users AS VARCHAR), 5, '0'), TIMESTAMP '2026-11-20',
       CAST($first_day AS TIMESTAMP) + to_days(CAST(hash(j // 5) % 60 AS INTEGER)) + to_seconds(CAST(28800 + hash(j) % 36000 AS BIGINT)),
       'claude', 's' || (j // 5),
       ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001', 'gpt-5-codex'][1 + CAST(hash(j // 5) % 4 AS BIGINT)],
       100 + hash(j) % 4000, 50 + hash(j) % 1500, hash(j) % 30000, hash(j) % 3000, 0, hash(j) % 3 = 0, 0, NULL, NULL
FROM range($events // 10) t(j)
ORDER BY 5;

INSERT INTO assistant_messages
SELECT 'org_bench', 'm' || j, 'usr_' || lpad(CAST(hash(j // 5) % $users AS VARCHAR), 5, '0'), TIMESTAMP '2026-11-20',
       CAST($first_day AS TIMESTAMP) + to_days(CAST(hash(j // 5) % 60 AS INTEGER)) + to_seconds(CAST(28800 + hash(j) % 36000 AS BIGINT)),
       'claude', 's' || (j // 5), NULL, NULL
FROM range($events // 10) t(j)
ORDER BY 5;

-- Landed commits (docs/metrics.md §5): one per 100 events, over 50 repositories and the 60 days, with agent lines
-- of one or two agents.
INSERT INTO landed_commits
SELECT 'org_bench', 'repo_' || substr(md5(CAST(k % 50 AS VARCHAR)), 1, 16), md5(CAST(k AS VARCHAR)) || substr(md5(CAST(-k AS VARCHAR)), 1, 8),
       'usr_' || lpad(CAST(hash(k // 3) % $users AS VARCHAR), 5, '0'), TIMESTAMP '2026-11-20',
       CAST($first_day AS TIMESTAMP) + to_days(CAST(hash(k) % 60 AS INTEGER)) + to_seconds(CAST(28800 + hash(k * 3) % 36000 AS BIGINT)),
       'github.com/bench/r' || (k % 50), added, hash(k) % 30, agent + codex,
       list_filter([{'agent': 'claude', 'model': 'claude-sonnet-4-5', 'lines': agent}, {'agent': 'codex', 'model': 'gpt-5.5', 'lines': codex}], x -> x.lines > 0),
       'user' || (hash(k // 3) % $users) || '@bench.example.com', [], []
FROM (
  SELECT k, 1 + hash(k) % 200 AS added, (1 + hash(k) % 200) * (hash(k * 5) % 60) // 100 AS agent, (1 + hash(k) % 200) * (hash(k * 7) % 30) // 100 AS codex
  FROM range($events // 100) t(k)
);
