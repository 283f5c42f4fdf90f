-- The running totals of cumulative OpenTelemetry counters each user's agents export to the server's OTLP
-- routes (api/otlp/): a cumulative point counts only what it adds to the last one seen. Kept in memory
-- alone, they started empty at every restart, and the next export counted everything since the agent
-- started again. One row a user: the series' totals as JSON (CumulativeTotals.entries()).
CREATE TABLE otlp_cumulative (
  org_id   VARCHAR NOT NULL,
  user_id  VARCHAR NOT NULL,
  totals   VARCHAR NOT NULL,
  PRIMARY KEY (org_id, user_id)
);
