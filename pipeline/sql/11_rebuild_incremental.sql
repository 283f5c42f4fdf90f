-- Incremental rebuild set: each touched day and the 29 days after it (its events count in their weekly
-- and monthly active users), plus yesterday for every organization; never after $last_day.
CREATE OR REPLACE TEMP TABLE rebuild AS
SELECT DISTINCT org_id, day FROM (
  SELECT t.org_id, CAST(t.day + to_days(CAST(k AS INTEGER)) AS DATE) AS day FROM touched t, range(0, 30) r(k)
  UNION ALL
  SELECT id, CAST($last_day AS DATE) FROM orgs
)
WHERE day <= CAST($last_day AS DATE);
