-- Money (docs/metrics.md §8): every usage record's cost in US dollars, from the maintained list prices
-- (@pydantic/genai-prices) overlaid by the organization's own dated prices.
--
-- One-hour cache writes apart from five-minute ones where the agent reports them (Claude Code): part of
-- cache_write_tokens, priced at their own rate.
ALTER TABLE usage ADD COLUMN cache_write_1h_tokens BIGINT DEFAULT 0;

-- The organization's own prices (negotiated rates, local models): US dollars per million tokens, each from
-- its date on. `model` is a model id or a pattern with * (as pipeline/pricing.json's `match`); for a model
-- several entries match, the latest start wins, then the longest pattern. It wins over the list price.
CREATE TABLE org_prices (
  org_id              VARCHAR NOT NULL,
  model               VARCHAR NOT NULL,
  effective_from      DATE NOT NULL,
  input_mtok          DOUBLE NOT NULL,
  output_mtok         DOUBLE NOT NULL,
  cache_read_mtok     DOUBLE,
  cache_write_mtok    DOUBLE,
  cache_write_1h_mtok DOUBLE,
  note                VARCHAR,
  updated_at          TIMESTAMP NOT NULL,
  updated_by          VARCHAR NOT NULL,
  PRIMARY KEY (org_id, model, effective_from)
);

-- The dollars of each aggregate row: NULL when its model has no price that day (never zero).
ALTER TABLE agg_tokens_day ADD COLUMN cost_usd DOUBLE;
ALTER TABLE agg_user_day ADD COLUMN cost_usd DOUBLE;

-- The models a run found without a dollar price (JSON list), beside the credits' unpriced_models.
ALTER TABLE batch_runs ADD COLUMN unpriced_usd_models VARCHAR;

-- A budget counts credits or dollars: exactly one of monthly_credits and monthly_usd is set.
ALTER TABLE budgets ADD COLUMN monthly_usd DOUBLE;
ALTER TABLE budgets ALTER COLUMN monthly_credits DROP NOT NULL;
-- An alert of a dollar budget keeps its figures in dollars (usage_usd, limit_usd; usage and credit_limit 0).
ALTER TABLE budget_alerts ADD COLUMN unit VARCHAR DEFAULT 'credits';
ALTER TABLE budget_alerts ADD COLUMN usage_usd DOUBLE;
ALTER TABLE budget_alerts ADD COLUMN limit_usd DOUBLE;

-- The days built before this have no dollars: a finished run without a watermark makes the next batch
-- rebuild every day that has records. Not on a new database.
INSERT INTO batch_runs (id, started_at, finished_at, watermark, days_rebuilt, unpriced_models, trigger)
SELECT max(id) + 1, now()::TIMESTAMP, now()::TIMESTAMP, NULL, 0, '[]', 'migration'
FROM batch_runs HAVING count(*) > 0;
