-- Token usage per user, day, agent and model. billable = multiplier × (input + output + 0.1 × cache_read +
-- cache_write), the multiplier effective on that day (latest effective date, then longest pattern; 1 when
-- none matches). The organization's figure per day and model is rounded to the nearest integer; each
-- user's share is floor(raw) plus one for the users with the largest remainders until the shares sum to
-- it (largest-remainder), so per-user figures always add up to the organization's. A user's share is then
-- split between the agents that used the model (group_by=agent) in the same way, so agents add up to it
-- too, and a user of one agent (nearly everyone) has the whole share under that agent.
-- Dollars (docs/metrics.md §8) are each record's cost (usage_cost, priced in pipeline/cost.ts) summed, not
-- shared out: NULL when a record of the row has no price.
-- Sessions with usage both from OpenTelemetry and from the agent's files: their OpenTelemetry usage is not
-- counted (docs/metrics.md §11). Found from the OpenTelemetry rows, which are few (none for most
-- organizations), so the usage table is not joined with itself.
CREATE OR REPLACE TEMP TABLE otel_shadowed AS
SELECT DISTINCT o.org_id, o.user_id, o.agent, o.session_id
FROM (SELECT DISTINCT org_id, user_id, agent, session_id FROM usage WHERE source = 'otel') o
SEMI JOIN usage f
  ON f.org_id = o.org_id AND f.user_id = o.user_id AND f.agent = o.agent AND f.session_id = o.session_id AND f.source IS NULL;

-- usage_cost holds the chunk's records of the rebuilt days, each with its dollars (pipeline/cost.ts).
CREATE OR REPLACE TEMP TABLE usage_raw AS
SELECT u.org_id, u.day, u.user_id, u.agent, u.model,
       bool_or(u.thinking) AS thinking,
       sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
       sum(u.cache_read_tokens) AS cache_read_tokens, sum(u.cache_write_tokens) AS cache_write_tokens,
       CASE WHEN bool_or(u.cost_usd IS NULL) THEN NULL ELSE sum(u.cost_usd) END AS cost_usd
FROM usage_cost u
  -- One fact, one count (docs/metrics.md §11): usage from an agent's OpenTelemetry export counts only for a
  -- session whose usage no file of the agent gave.
WHERE NOT (u.source IS NOT DISTINCT FROM 'otel' AND (u.org_id, u.user_id, u.agent, u.session_id) IN (SELECT org_id, user_id, agent, session_id FROM otel_shadowed))
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE model_price AS
SELECT m.model, m.day,
       arg_max(p.multiplier, (p.effective_from, length(p.match))) AS multiplier
FROM (SELECT DISTINCT model, day FROM usage_raw) m
LEFT JOIN pricing p ON m.model LIKE replace(p.match, '*', '%') AND p.effective_from <= m.day
GROUP BY m.model, m.day;

-- Per user, day and model (the user's agents together): the unit the organization's figure is shared by.
CREATE OR REPLACE TEMP TABLE usage_priced AS
SELECT r.*, (mp.multiplier IS NULL) AS unpriced,
       coalesce(mp.multiplier, 1.0) * (r.input_tokens + r.output_tokens + r.cache_write_tokens + r.cache_read_tokens / 10.0) AS raw_billable
FROM (
  SELECT org_id, day, user_id, model, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(cache_read_tokens) AS cache_read_tokens, sum(cache_write_tokens) AS cache_write_tokens
  FROM usage_raw GROUP BY org_id, day, user_id, model
) r JOIN model_price mp USING (model, day);

CREATE OR REPLACE TEMP TABLE user_share AS
SELECT org_id, day, user_id, model,
       CAST(floor(raw_billable) AS BIGINT)
         + CASE WHEN row_number() OVER (PARTITION BY org_id, day, model ORDER BY raw_billable - floor(raw_billable) DESC, user_id)
                     <= org_total - sum(floor(raw_billable)) OVER (PARTITION BY org_id, day, model)
                THEN 1 ELSE 0 END AS billable
FROM (
  -- The organization's figure sums the users' in decimal (each raw figure has at most 3 decimals: 1 of
  -- cache_read / 10, 2 of the multiplier), so a total of exactly x.5 rounds up whatever order the rows come
  -- in; a sum of doubles would round it down or up by the order it added them in.
  SELECT *, CAST(round(sum(CAST(raw_billable AS DECIMAL(38, 6))) OVER (PARTITION BY org_id, day, model)) AS DOUBLE) AS org_total
  FROM usage_priced
);

DELETE FROM agg_tokens_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

-- An agent's part of the user's share: share × its weight / the user's weight, where the weight is
-- 10 × (input + output + cache_write) + cache_read (the same multiplier applies to all of one model and
-- day), in whole numbers so the parts never drift from the share; the units left go to the largest
-- remainders (equal ones to the agent name first).
INSERT INTO agg_tokens_day (org_id, day, user_id, agent, model, thinking, input_tokens, output_tokens, cache_read_tokens,
                            cache_write_tokens, billable_tokens, cost_usd)
SELECT org_id, day, user_id, agent, model, thinking, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
       part + CASE WHEN row_number() OVER (PARTITION BY org_id, day, user_id, model ORDER BY rest DESC, agent)
                        <= billable - sum(part) OVER (PARTITION BY org_id, day, user_id, model)
                   THEN 1 ELSE 0 END,
       cost_usd
FROM (
  SELECT a.*, s.billable,
         CASE WHEN a.total > 0 THEN (s.billable * a.weight) // a.total ELSE 0 END AS part,
         CASE WHEN a.total > 0 THEN (s.billable * a.weight) % a.total ELSE 0 END AS rest
  FROM (
    SELECT *, sum(weight) OVER (PARTITION BY org_id, day, user_id, model) AS total
    FROM (SELECT *, CAST(10 * (input_tokens + output_tokens + cache_write_tokens) + cache_read_tokens AS HUGEINT) AS weight FROM usage_raw)
  ) a
  JOIN user_share s USING (org_id, day, user_id, model)
);
