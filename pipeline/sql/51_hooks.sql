-- Hook executions per (event, matcher, command): every configured hook that ran for an event.
DELETE FROM agg_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_hooks_day
SELECT org_id, day, h.event, h.matcher, h.command, count(*)
FROM (
  SELECT e.org_id, CAST(e.ts AS DATE) AS day, unnest(e.hooks) AS h
  FROM events e
  WHERE e.hooks IS NOT NULL AND e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
    AND (e.org_id, CAST(e.ts AS DATE)) IN (SELECT org_id, day FROM rebuild)
)
GROUP BY ALL;
