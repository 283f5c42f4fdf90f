-- Per-user counts the organization's daily figures are sums of (sessions with events, tool calls per
-- autonomy level), so the organization step reads agg_user_day instead of scanning every event again.
ALTER TABLE agg_user_day ADD COLUMN sessions_with_events BIGINT DEFAULT 0;
ALTER TABLE agg_user_day ADD COLUMN calls_auto_high BIGINT DEFAULT 0;
ALTER TABLE agg_user_day ADD COLUMN calls_auto_medium BIGINT DEFAULT 0;
ALTER TABLE agg_user_day ADD COLUMN calls_auto_low BIGINT DEFAULT 0;
-- spec counts as manual in tool_autonomy_level_ratio (docs/metrics.md §3).
ALTER TABLE agg_user_day ADD COLUMN calls_manual BIGINT DEFAULT 0;
