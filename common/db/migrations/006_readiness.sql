-- Readiness reports (agent-readiness evaluations of repositories), stored as received after validation.
CREATE TABLE readiness_reports (
  org_id       VARCHAR NOT NULL,
  report_id    VARCHAR NOT NULL,
  repo_id      VARCHAR NOT NULL,   -- stable id of the normalized repository URL (api/readiness/repo-id.ts)
  created_at   BIGINT NOT NULL,    -- Unix ms, as in the report
  uploaded_by  VARCHAR NOT NULL,
  report       JSON NOT NULL,
  PRIMARY KEY (org_id, report_id)
);
