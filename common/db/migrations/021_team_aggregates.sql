-- Per-user daily aggregates the team figures are sums of (docs/metrics.md §6): a team= filter restricts every
-- record, breakdowns included, to the team's members on each day, and agg_breakdown_day / agg_hooks_day are
-- per organization only. Built by pipeline/sql/45_user_breakdowns.sql with the other aggregates.

-- The kinds of agg_breakdown_day, per user: tool, mcp_server, skill, slash_command, extension, language,
-- client and agent_users (1: the user had an event of that client or agent), agent_calls.
CREATE TABLE agg_user_breakdown_day (
  org_id   VARCHAR NOT NULL,
  day      DATE NOT NULL,
  user_id  VARCHAR NOT NULL,
  kind     VARCHAR NOT NULL,
  key      VARCHAR NOT NULL,
  count    BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, kind, key)
);

CREATE TABLE agg_user_hooks_day (
  org_id   VARCHAR NOT NULL,
  day      DATE NOT NULL,
  user_id  VARCHAR NOT NULL,
  event    VARCHAR NOT NULL,
  matcher  VARCHAR NOT NULL,
  command  VARCHAR NOT NULL,
  count    BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, event, matcher, command)
);

-- A user's billable tokens of a model on a day before rounding (multiplier × weighted tokens): a team's
-- figure is rounded per day, team and model from these, not summed from the users' rounded shares.
CREATE TABLE agg_user_model_day (
  org_id        VARCHAR NOT NULL,
  day           DATE NOT NULL,
  user_id       VARCHAR NOT NULL,
  model         VARCHAR NOT NULL,
  raw_billable  DOUBLE NOT NULL,
  PRIMARY KEY (org_id, day, user_id, model)
);

-- A number that changes with every change of an organization's teams or memberships (api/teams/store.ts
-- bumps it in the same transaction): team answers are cached under it, and a change leaves them unused.
ALTER TABLE team_settings ADD COLUMN revision BIGINT DEFAULT 0;

-- The days built before this have none of these rows: a finished run without a watermark makes the next
-- batch rebuild every day that has records (as migration 014 does). Not on a new database.
INSERT INTO batch_runs (id, started_at, finished_at, watermark, days_rebuilt, unpriced_models, trigger)
SELECT max(id) + 1, now()::TIMESTAMP, now()::TIMESTAMP, NULL, 0, '[]', 'migration'
FROM batch_runs HAVING count(*) > 0;
