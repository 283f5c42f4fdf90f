-- Explicit rebuild set: every organization, every day from $from_day to $to_day.
CREATE OR REPLACE TEMP TABLE rebuild AS
SELECT o.id AS org_id, CAST(d.day AS DATE) AS day
FROM orgs o, generate_series(CAST($from_day AS DATE), CAST($to_day AS DATE), INTERVAL 1 DAY) d(day);
