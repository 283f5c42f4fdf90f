-- Token usage per user, day and model. billable = multiplier × (input + output + 0.1 × cache_read +
-- cache_write), the multiplier effective on that day (latest effective date, then longest pattern; 1 when
-- none matches). The organization's figure per day and model is rounded to the nearest integer; each
-- user's share is floor(raw) plus one for the users with the largest remainders until the shares sum to
-- it (largest-remainder), so per-user figures always add up to the organization's.
CREATE OR REPLACE TEMP TABLE usage_raw AS
SELECT u.org_id, CAST(u.ts AS DATE) AS day, u.user_id, u.model,
       bool_or(u.thinking) AS thinking,
       sum(u.input_tokens) AS input_tokens, sum(u.output_tokens) AS output_tokens,
       sum(u.cache_read_tokens) AS cache_read_tokens, sum(u.cache_write_tokens) AS cache_write_tokens
FROM usage u
JOIN rebuild r ON r.org_id = u.org_id AND r.day = CAST(u.ts AS DATE)
WHERE u.ts >= CAST($chunk_first AS TIMESTAMP) AND u.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
GROUP BY ALL;

CREATE OR REPLACE TEMP TABLE model_price AS
SELECT m.model, m.day,
       arg_max(p.multiplier, (p.effective_from, length(p.match))) AS multiplier
FROM (SELECT DISTINCT model, day FROM usage_raw) m
LEFT JOIN pricing p ON m.model LIKE replace(p.match, '*', '%') AND p.effective_from <= m.day
GROUP BY m.model, m.day;

CREATE OR REPLACE TEMP TABLE usage_priced AS
SELECT r.*, (mp.multiplier IS NULL) AS unpriced,
       coalesce(mp.multiplier, 1.0) * (r.input_tokens + r.output_tokens + r.cache_write_tokens + r.cache_read_tokens / 10.0) AS raw_billable
FROM usage_raw r JOIN model_price mp USING (model, day);

DELETE FROM agg_tokens_day WHERE (org_id, day) IN (SELECT org_id, day FROM rebuild);

INSERT INTO agg_tokens_day
SELECT org_id, day, user_id, model, thinking, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
       CAST(floor(raw_billable) AS BIGINT)
         + CASE WHEN row_number() OVER (PARTITION BY org_id, day, model ORDER BY raw_billable - floor(raw_billable) DESC, user_id)
                     <= org_total - sum(floor(raw_billable)) OVER (PARTITION BY org_id, day, model)
                THEN 1 ELSE 0 END
FROM (
  SELECT *, round(sum(raw_billable) OVER (PARTITION BY org_id, day, model)) AS org_total FROM usage_priced
);
