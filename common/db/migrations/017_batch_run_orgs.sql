-- Each batch run as each organization may see it (GET /api/v0/admin/batch/runs, api/batch/store.ts).
-- A run started through the API, or after an erasure, rebuilds one organization: batch_runs.org_id names
-- it, and only that organization sees the run. A run of every organization (schedule, server, cli, demo)
-- has org_id NULL; each organization sees it with its own days and its own newest ingest time, never
-- another's. Runs from before this migration have no such rows: they are shown without days or time, and
-- those started through the API or by an erasure (whose organization is unknown) to nobody.
ALTER TABLE batch_runs ADD COLUMN org_id VARCHAR;
CREATE TABLE batch_run_orgs (
  run_id          INTEGER NOT NULL,
  org_id          VARCHAR NOT NULL,
  days_rebuilt    INTEGER NOT NULL,
  first_day       DATE,
  last_day        DATE,
  -- The organization's newest record received at or before the run's watermark: its part of it.
  newest_received TIMESTAMP,
  PRIMARY KEY (run_id, org_id)
);
