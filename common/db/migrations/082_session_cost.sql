-- Each agent session's dollars per day (docs/metrics.md §10): a merged pull request costs the share of
-- each session whose lines it holds. NULL when a record of the session that day has no price.
CREATE TABLE agg_session_cost_day (
  org_id      VARCHAR NOT NULL,
  day         DATE NOT NULL,
  user_id     VARCHAR NOT NULL,
  agent       VARCHAR NOT NULL,
  session_id  VARCHAR NOT NULL,
  cost_usd    DOUBLE,
  PRIMARY KEY (org_id, day, user_id, agent, session_id)
);

-- The days built before this have no session costs: the next batch rebuilds every day with records. Not
-- on a new database.
INSERT INTO batch_runs (id, started_at, finished_at, watermark, days_rebuilt, unpriced_models, trigger)
SELECT max(id) + 1, now()::TIMESTAMP, now()::TIMESTAMP, NULL, 0, '[]', 'migration'
FROM batch_runs HAVING count(*) > 0;
