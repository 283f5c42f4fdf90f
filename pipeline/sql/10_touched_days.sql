-- Days that received records since the last run ($watermark), the days calls and messages moved away
-- from, and the days on which the sessions those records belong to have events (a late event can move
-- where a session starts).
CREATE OR REPLACE TEMP TABLE touched AS
SELECT DISTINCT org_id, CAST(ts AS DATE) AS day FROM events WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM usage WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM assistant_messages WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM landed_commits WHERE received_at > $watermark
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM edit_decisions WHERE received_at > $watermark
-- The days calls and messages counted on before a copy moved them earlier (migration 097).
UNION SELECT DISTINCT org_id, day FROM (SELECT org_id, unnest(moved_from) AS day FROM usage WHERE received_at > $watermark AND moved_from IS NOT NULL)
UNION SELECT DISTINCT org_id, day FROM (SELECT org_id, unnest(moved_from) AS day FROM assistant_messages
                                        WHERE received_at > $watermark AND moved_from IS NOT NULL)
UNION
SELECT DISTINCT e.org_id, CAST(e.ts AS DATE)
FROM events e
JOIN (SELECT DISTINCT org_id, session_id FROM events WHERE received_at > $watermark) s
  ON s.org_id = e.org_id AND s.session_id = e.session_id;
