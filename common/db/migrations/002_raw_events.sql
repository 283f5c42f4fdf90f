-- Raw records as the collector ships them (common/wire.ts). The primary key makes re-delivery harmless;
-- Times are TIMESTAMP holding UTC (the analytics are UTC-only), never local time.
-- received_at tells the daily batch which days received late events.
CREATE TABLE events (
  org_id        VARCHAR NOT NULL,
  id            VARCHAR NOT NULL,
  user_id       VARCHAR NOT NULL,
  received_at   TIMESTAMP NOT NULL,
  ts            TIMESTAMP NOT NULL,
  agent         VARCHAR NOT NULL,
  event         VARCHAR NOT NULL,
  session_id    VARCHAR NOT NULL,
  client        VARCHAR NOT NULL,
  autonomy      VARCHAR NOT NULL,
  tool_name     VARCHAR,
  tool_success  BOOLEAN,
  mcp_server    VARCHAR,
  skill         VARCHAR,
  is_shell      BOOLEAN,
  files         VARCHAR, -- JSON text: [{ext, name?, op}]
  git_commit    BOOLEAN,
  pr_created    BOOLEAN,
  slash_command VARCHAR,
  reason        VARCHAR,
  agent_id      VARCHAR,
  agent_type    VARCHAR,
  truncated     BOOLEAN,
  hooks         VARCHAR, -- JSON text: [{event, matcher, command}]
  PRIMARY KEY (org_id, id)
);

-- Token usage. The same id can arrive again with a larger output count (a streamed message read before
-- it finished); ingest keeps the larger one.
CREATE TABLE usage (
  org_id              VARCHAR NOT NULL,
  id                  VARCHAR NOT NULL,
  user_id             VARCHAR NOT NULL,
  received_at         TIMESTAMP NOT NULL,
  ts                  TIMESTAMP NOT NULL,
  agent               VARCHAR NOT NULL,
  session_id          VARCHAR NOT NULL,
  model               VARCHAR NOT NULL,
  input_tokens        BIGINT NOT NULL,
  output_tokens       BIGINT NOT NULL,
  cache_read_tokens   BIGINT NOT NULL,
  cache_write_tokens  BIGINT NOT NULL,
  thinking_tokens     BIGINT NOT NULL,
  thinking            BOOLEAN NOT NULL,
  PRIMARY KEY (org_id, id)
);

-- Assistant messages: one row per distinct assistant message id.
CREATE TABLE assistant_messages (
  org_id       VARCHAR NOT NULL,
  id           VARCHAR NOT NULL,
  user_id      VARCHAR NOT NULL,
  received_at         TIMESTAMP NOT NULL,
  ts                  TIMESTAMP NOT NULL,
  agent        VARCHAR NOT NULL,
  session_id   VARCHAR NOT NULL,
  model        VARCHAR,
  PRIMARY KEY (org_id, id)
);
