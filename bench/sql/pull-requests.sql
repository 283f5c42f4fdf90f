-- Pull request bench data set (`npm run bench -- pulls`): $prs merged GitHub pull requests of one
-- organization, evenly over the $days days up to $last_day, across $repos repositories and 50 users. Each
-- pull request is two branch commits off its repository's previous merge, and a merge commit (parents:
-- that previous merge, the branch head): main's history is a chain of merges, as a merge-commit workflow
-- makes it. Agent session sess_i writes the first commit of pull request i and the second of pull request
-- i - 1, so every session's cost is split over two pull requests. 30 sessions a day reach no pull request.
-- Rows are stored in time order, as a server stores them when they arrive as they happen.
INSERT INTO orgs (id, name) VALUES ('org_bench', 'Bench');

INSERT INTO users (id, org_id, email, role)
SELECT 'usr_' || lpad(CAST(u AS VARCHAR), 5, '0'), 'org_bench', 'user' || u || '@bench.example.com', CASE WHEN u = 0 THEN 'manager' ELSE 'member' END
FROM range(50) t(u);

CREATE TEMP TABLE bench_prs AS
SELECT i, i % $repos AS r, 'github.com/bench/r' || (i % $repos) AS repo,
       merged, merged - to_minutes(CAST(120 + hash(i) % 4200 AS BIGINT)) AS opened,
       'usr_' || lpad(CAST(i % 50 AS VARCHAR), 5, '0') AS user_id,
       md5('m' || i) || '00000000' AS m, md5('a' || i) || '00000000' AS a, md5('b' || i) || '00000000' AS b,
       CASE WHEN i >= $repos THEN md5('m' || (i - $repos)) || '00000000' END AS m_prev
FROM (
  SELECT i, CAST($last_day AS TIMESTAMP) + INTERVAL 1 DAY - to_seconds(CAST(($prs - i) * ($days * 86400 // $prs) AS BIGINT)) AS merged
  FROM range($prs) t(i)
);

INSERT INTO pull_requests BY NAME
SELECT 'org_bench' AS org_id, repo, i + 1 AS number, 'github' AS host, CAST(100000 + i AS VARCHAR) AS host_id,
       'user' || (i % 50) || '@bench.example.com' AS author, 'merged' AS state, opened AS opened_at, merged AS merged_at,
       merged AS updated_at, m AS merge_commit_id, NULL AS squash_commit_id, b AS head_commit_id, 2 AS commit_count
FROM bench_prs ORDER BY merged;

INSERT INTO landed_commits BY NAME
SELECT 'org_bench' AS org_id, 'repo_' || substr(md5(CAST(r AS VARCHAR)), 1, 16) AS repo_id, commit_id, user_id,
       ts AS received_at, ts, repo, lines + 5 AS lines_added, 0 AS lines_deleted, lines AS agent_lines,
       CASE WHEN lines > 0 THEN [{'agent': 'claude', 'model': 'claude-sonnet-4-5', 'lines': lines}] ELSE [] END AS by_agent,
       'user' || (i % 50) || '@bench.example.com' AS author,
       CASE WHEN lines > 0 THEN [{'agent': 'claude', 'session_id': session, 'lines': lines}] ELSE [] END AS by_session,
       parents
FROM (
  SELECT i, r, repo, user_id, a AS commit_id, opened + INTERVAL 10 MINUTE AS ts, 10 + hash(i) % 40 AS lines,
         'sess_' || i AS session, CASE WHEN m_prev IS NULL THEN [] ELSE [m_prev] END AS parents
  FROM bench_prs
  UNION ALL
  SELECT i, r, repo, user_id, b, opened + INTERVAL 20 MINUTE, 2 + hash(i * 3) % 10, 'sess_' || (i + 1), [a]
  FROM bench_prs
  UNION ALL
  SELECT i, r, repo, user_id, m, merged, 0, '', CASE WHEN m_prev IS NULL THEN [b] ELSE [m_prev, b] END
  FROM bench_prs
)
ORDER BY ts;

CREATE TEMP TABLE bench_sessions AS
SELECT i, user_id, CAST(least(opened, coalesce(lag(opened) OVER (ORDER BY i), opened)) AS DATE) AS began FROM bench_prs;

-- Each session's dollars on the day it began (its first commit's day), every third one on the next day
-- too; and 30 sessions a day whose lines land nowhere.
INSERT INTO agg_session_cost_day BY NAME
SELECT 'org_bench' AS org_id, day, user_id, 'claude' AS agent, session_id, cost_usd
FROM (
  SELECT began AS day, user_id, 'sess_' || i AS session_id, 0.25 + (hash(i) % 400) / 100 AS cost_usd FROM bench_sessions
  UNION ALL
  SELECT began + 1, user_id, 'sess_' || i, 0.5 FROM bench_sessions WHERE i % 3 = 0
  UNION ALL
  SELECT CAST($last_day AS DATE) - CAST(d AS INTEGER), 'usr_' || lpad(CAST(k % 50 AS VARCHAR), 5, '0'), 'idle_' || d || '_' || k, 0.1 + k / 100
  FROM range($days) t(d), range(30) u(k)
)
ORDER BY day;

DROP TABLE bench_prs;
DROP TABLE bench_sessions;
