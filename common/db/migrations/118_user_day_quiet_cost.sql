-- A user's day without token usage costs $0, not NULL (docs/metrics.md §4, §8): NULL is the cost of usage
-- without a price, which the API now tells apart from no usage by the value alone (usage under half a
-- Standard Credit has 0 credits too). The batch writes 0 from now on (pipeline/sql/40_user_day.sql); the
-- rows it built before get it here.
UPDATE agg_user_day AS u SET cost_usd = 0
WHERE u.cost_usd IS NULL
  AND NOT EXISTS (SELECT 1 FROM agg_tokens_day t WHERE t.org_id = u.org_id AND t.day = u.day AND t.user_id = u.user_id);
