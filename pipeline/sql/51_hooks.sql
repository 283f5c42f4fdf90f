-- Hook executions per (event, matcher, command): every configured hook that ran for an event.
DELETE FROM agg_hooks_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_hooks_day
SELECT org_id, day, h.hook.event, h.hook.matcher, h.hook.command, count(*)
FROM ev, unnest(from_json(ev.hooks, '[{"event":"VARCHAR","matcher":"VARCHAR","command":"VARCHAR"}]')) AS h(hook)
WHERE ev.hooks IS NOT NULL
GROUP BY ALL;
