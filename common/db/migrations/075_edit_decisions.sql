-- OpenTelemetry in (docs/metrics.md §11). Edit decisions: how many of an agent's proposed edits the person
-- accepted or rejected, per record as the collector mapped it from the agent's export (one metric data
-- point or log event); never the edit, a path or a prompt. A record delivered again is ignored.
CREATE TABLE edit_decisions (
  org_id       VARCHAR NOT NULL,
  id           VARCHAR NOT NULL,
  user_id      VARCHAR NOT NULL,
  received_at  TIMESTAMP NOT NULL,
  ts           TIMESTAMP NOT NULL,
  agent        VARCHAR NOT NULL,
  session_id   VARCHAR NOT NULL,
  decision     VARCHAR NOT NULL,
  count        BIGINT NOT NULL,
  tool_name    VARCHAR,
  language     VARCHAR,
  PRIMARY KEY (org_id, id)
);

-- Token usage from an agent's OpenTelemetry export ('otel') rather than its own files (NULL): the daily
-- batch counts it only for a session with no usage from files (one fact, one count).
ALTER TABLE usage ADD COLUMN source VARCHAR;
