-- Days that received records since the last run ($watermark), and the days on which the sessions those
-- records belong to have events (a late event can move where a session starts).
CREATE OR REPLACE TEMP TABLE touched AS
SELECT DISTINCT org_id, CAST(ts AS DATE) AS day FROM events WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM usage WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM assistant_messages WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM landed_commits WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM edit_decisions WHERE received_at > $watermark
UNION
SELECT DISTINCT e.org_id, CAST(e.ts AS DATE)
FROM events e
JOIN (SELECT DISTINCT org_id, session_id FROM events WHERE received_at > $watermark) s
  ON s.org_id = e.org_id AND s.session_id = e.session_id;
