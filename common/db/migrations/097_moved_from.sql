-- The days a usage record or an assistant message counted on before a later copy moved it to an earlier
-- time (docs/metrics.md §1: a repeated call counts once, at its earliest time). The batch rebuilds the
-- days that received records; a record moved away from a day makes that day one too, however far back it
-- moved (pipeline/sql/10_touched_days.sql). A list: each move before a batch leaves its day. Bookkeeping
-- only: exports leave it out.
ALTER TABLE usage ADD COLUMN moved_from DATE[];
ALTER TABLE assistant_messages ADD COLUMN moved_from DATE[];
