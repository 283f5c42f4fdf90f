-- Where each session of the rebuilt days starts: the day of its first event ever, and its user.
CREATE OR REPLACE TEMP TABLE session_start AS
SELECT e.org_id, e.session_id, CAST(min(e.ts) AS DATE) AS start_day, arg_min(e.user_id, e.ts) AS user_id
FROM events e
WHERE (e.org_id, e.session_id) IN (SELECT DISTINCT org_id, session_id FROM ev_sessions)
   OR (e.org_id, CAST(e.ts AS DATE)) IN (SELECT org_id, day FROM rebuild)
GROUP BY e.org_id, e.session_id;
