-- Where each session of the rebuilt days starts: the day of its first event ever, and its user. The
-- sessions with an event on a rebuilt day are all in ev_sessions (it holds every event of those days).
CREATE OR REPLACE TEMP TABLE session_start AS
SELECT e.org_id, e.session_id, CAST(min(e.ts) AS DATE) AS start_day, arg_min(e.user_id, e.ts) AS user_id
FROM events e
WHERE (e.org_id, e.session_id) IN (SELECT DISTINCT org_id, session_id FROM ev_sessions)
GROUP BY e.org_id, e.session_id;
