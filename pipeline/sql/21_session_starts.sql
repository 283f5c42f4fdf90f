-- Where each session of the rebuilt days starts: the day of its first event ever, and its user (of two
-- users' events at that very time, the smaller id: however the days are chunked). Its events
-- on the rebuilt days are in ev_sessions (each row's first); the others that can come first are before the
-- chunk, or on a day of it that is not rebuilt (chunk_gaps): only those are read from the events.
CREATE OR REPLACE TEMP TABLE session_start AS
WITH chunk_sessions AS (SELECT DISTINCT org_id, session_id FROM ev_sessions)
SELECT org_id, session_id, CAST(min(ts) AS DATE) AS start_day, arg_min(user_id, (ts, user_id)) AS user_id
FROM (
  SELECT org_id, session_id, user_id, first_ts AS ts FROM ev_sessions
  UNION ALL
  SELECT e.org_id, e.session_id, e.user_id, e.ts
  FROM events e
  WHERE e.ts < CAST($chunk_first AS TIMESTAMP)
    AND (e.org_id, e.session_id) IN (SELECT org_id, session_id FROM chunk_sessions)
  UNION ALL
  SELECT e.org_id, e.session_id, e.user_id, e.ts
  FROM events e
  JOIN chunk_gaps g ON g.org_id = e.org_id AND g.day = CAST(e.ts AS DATE)
  WHERE e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
    AND (e.org_id, e.session_id) IN (SELECT org_id, session_id FROM chunk_sessions)
)
GROUP BY org_id, session_id;
