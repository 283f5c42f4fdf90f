-- The agent (droid, claude, codex, gemini, qwen) as a dimension of the aggregates, for group_by=agent on
-- /tokens, /tools and /activity (docs/metrics.md §1, our extension). Tool calls and active users per agent are
-- new kinds of agg_breakdown_day (agent_calls, agent_users), which needs no change here; token usage per
-- agent needs the agent in agg_tokens_day's key, so the table is made again with it.
CREATE TABLE agg_tokens_day_v2 (
  org_id              VARCHAR NOT NULL,
  day                 DATE NOT NULL,
  user_id             VARCHAR NOT NULL,
  agent               VARCHAR NOT NULL,   -- the usage records' agent
  model               VARCHAR NOT NULL,
  thinking            BOOLEAN NOT NULL,   -- this user's usage of the model with this agent included reasoning
  input_tokens        BIGINT NOT NULL,
  output_tokens       BIGINT NOT NULL,
  cache_read_tokens   BIGINT NOT NULL,
  cache_write_tokens  BIGINT NOT NULL,
  billable_tokens     BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, agent, model)
);

-- The rows already built keep their figures (the answers without group_by do not change), each under the
-- agent of its usage records when the user used the model that day with one agent only (the usual case),
-- else under 'unknown' until the rebuild below puts them right.
INSERT INTO agg_tokens_day_v2
SELECT t.org_id, t.day, t.user_id, coalesce(a.agent, 'unknown'), t.model, t.thinking, t.input_tokens, t.output_tokens,
       t.cache_read_tokens, t.cache_write_tokens, t.billable_tokens
FROM agg_tokens_day t
LEFT JOIN (
  SELECT org_id, CAST(ts AS DATE) AS day, user_id, model, min(agent) AS agent
  FROM usage GROUP BY ALL HAVING count(DISTINCT agent) = 1
) a USING (org_id, day, user_id, model);

DROP TABLE agg_tokens_day;
ALTER TABLE agg_tokens_day_v2 RENAME TO agg_tokens_day;

-- The days built before this hold no tool calls or active users per agent: a finished run without a
-- watermark makes the next batch rebuild every day that has records (as a first run does). Recorded as
-- its own run, so the pipeline page says why that batch rebuilt everything. Not on a new database.
INSERT INTO batch_runs (id, started_at, finished_at, watermark, days_rebuilt, unpriced_models, trigger)
SELECT max(id) + 1, now()::TIMESTAMP, now()::TIMESTAMP, NULL, 0, '[]', 'migration'
FROM batch_runs HAVING count(*) > 0;
