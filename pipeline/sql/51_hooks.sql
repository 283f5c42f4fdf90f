-- Hook executions per (event, matcher, command): every configured hook that ran for an event.
DELETE FROM agg_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_hooks_day
SELECT org_id, day, h.event, h.matcher, h.command, count(*)
FROM (
  SELECT e.org_id, CAST(e.ts AS DATE) AS day, unnest(e.hooks) AS h
  FROM events e
  JOIN rebuild r ON r.org_id = e.org_id AND r.day = CAST(e.ts AS DATE)
  WHERE e.hooks IS NOT NULL
)
GROUP BY ALL;
