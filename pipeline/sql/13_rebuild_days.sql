-- Rebuild set after an erasure (agentmeter users remove --erase): the days of one organization ($org) that
-- held the erased records ($days, comma-separated YYYY-MM-DD), and the 29 days after each (their weekly
-- and monthly active users counted that user); never after $last_day.
CREATE OR REPLACE TEMP TABLE rebuild AS
SELECT DISTINCT org_id, day FROM (
  SELECT CAST($org AS VARCHAR) AS org_id, CAST(CAST(d.day AS DATE) + to_days(CAST(k AS INTEGER)) AS DATE) AS day
  FROM (SELECT unnest(string_split($days, ',')) AS day) d, range(0, 30) r(k)
)
WHERE day <= CAST($last_day AS DATE);
