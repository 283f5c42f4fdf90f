-- The agent lines of each session that a day's landed commits hold, by user (docs/metrics.md §8: /code's
-- `landed.cost_usd` splits each session's cost by these lines). The batch builds it beside
-- agg_code_landed_day from the same commits (pipeline/sql/46_code.sql), so a day's dollars and its
-- lines count the same commits: one that arrives after the day was built waits for the next batch for
-- both. Unkeyed, as the other per-user aggregates (migration 095): the batch's GROUP BY makes rows unique.
CREATE TABLE agg_code_landed_session_day (
  org_id     VARCHAR NOT NULL,
  day        DATE NOT NULL,
  user_id    VARCHAR NOT NULL,
  session_id VARCHAR NOT NULL,
  lines      BIGINT NOT NULL
);

-- The days the batch has built, from the commits stored now.
INSERT INTO agg_code_landed_session_day
SELECT org_id, day, user_id, s.session_id, sum(s.lines)
FROM (SELECT org_id, CAST(ts AS DATE) AS day, user_id, unnest(by_session) AS s FROM landed_commits)
WHERE s.session_id <> '' AND (org_id, day) IN (SELECT DISTINCT org_id, day FROM agg_code_landed_day)
GROUP BY ALL;
