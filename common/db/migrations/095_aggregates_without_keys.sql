-- The per-user and per-session aggregate tables without a primary key. The batch replaces a day's rows by
-- DELETE and INSERT, and each INSERT's GROUP BY already makes its rows unique; the key's index only cost
-- time: a batch that rebuilt 15 days of existing rows spent most of its time removing their keys from it
-- (agg_session_cost_day alone 10 to 15 s over 10M events), and readers filter by organization and day
-- range, which the tables' min/max per row group serves, not the index. The organization's own per-day
-- tables (agg_org_day, agg_breakdown_day, agg_hooks_day) are small and keep theirs. Each table is made
-- again with the same columns, rows and column order.

CREATE TABLE agg_user_day_v2 (
  org_id               VARCHAR NOT NULL,
  day                  DATE NOT NULL,
  user_id              VARCHAR NOT NULL,
  active               BOOLEAN NOT NULL,
  tool_calls           BIGINT NOT NULL,
  user_turns           BIGINT NOT NULL,
  mcp_calls            BIGINT NOT NULL,
  skill_calls          BIGINT NOT NULL,
  slash_commands       BIGINT NOT NULL,
  hooks                BIGINT NOT NULL,
  sessions             BIGINT NOT NULL,
  user_messages        BIGINT NOT NULL,
  assistant_messages   BIGINT NOT NULL,
  files_created        BIGINT NOT NULL,
  files_edited         BIGINT NOT NULL,
  git_commits          BIGINT NOT NULL,
  git_prs_created      BIGINT NOT NULL,
  billable_tokens      BIGINT NOT NULL,
  primary_model        VARCHAR,
  primary_model_tier   VARCHAR,
  autonomy_ratio       DOUBLE,
  delegation_level     VARCHAR,
  languages            VARCHAR[] NOT NULL,
  clients              VARCHAR[] NOT NULL,
  sessions_with_events BIGINT DEFAULT 0,
  calls_auto_high      BIGINT DEFAULT 0,
  calls_auto_medium    BIGINT DEFAULT 0,
  calls_auto_low       BIGINT DEFAULT 0,
  calls_manual         BIGINT DEFAULT 0,
  lines_added          BIGINT DEFAULT 0,
  landed_agent_lines   BIGINT DEFAULT 0,
  cost_usd             DOUBLE
);
INSERT INTO agg_user_day_v2 SELECT * FROM agg_user_day;
DROP TABLE agg_user_day;
ALTER TABLE agg_user_day_v2 RENAME TO agg_user_day;

CREATE TABLE agg_tokens_day_v2 (
  org_id             VARCHAR NOT NULL,
  day                DATE NOT NULL,
  user_id            VARCHAR NOT NULL,
  agent              VARCHAR NOT NULL,
  model              VARCHAR NOT NULL,
  thinking           BOOLEAN NOT NULL,
  input_tokens       BIGINT NOT NULL,
  output_tokens      BIGINT NOT NULL,
  cache_read_tokens  BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  billable_tokens    BIGINT NOT NULL,
  cost_usd           DOUBLE
);
INSERT INTO agg_tokens_day_v2 SELECT * FROM agg_tokens_day;
DROP TABLE agg_tokens_day;
ALTER TABLE agg_tokens_day_v2 RENAME TO agg_tokens_day;

CREATE TABLE agg_tokens_repo_day_v2 (
  org_id             VARCHAR NOT NULL,
  day                DATE NOT NULL,
  user_id            VARCHAR NOT NULL,
  repo               VARCHAR NOT NULL,
  input_tokens       BIGINT NOT NULL,
  output_tokens      BIGINT NOT NULL,
  cache_read_tokens  BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  raw_billable       DOUBLE NOT NULL,
  cost_usd           DOUBLE
);
INSERT INTO agg_tokens_repo_day_v2 SELECT * FROM agg_tokens_repo_day;
DROP TABLE agg_tokens_repo_day;
ALTER TABLE agg_tokens_repo_day_v2 RENAME TO agg_tokens_repo_day;

CREATE TABLE agg_session_cost_day_v2 (
  org_id     VARCHAR NOT NULL,
  day        DATE NOT NULL,
  user_id    VARCHAR NOT NULL,
  agent      VARCHAR NOT NULL,
  session_id VARCHAR NOT NULL,
  cost_usd   DOUBLE
);
INSERT INTO agg_session_cost_day_v2 SELECT * FROM agg_session_cost_day;
DROP TABLE agg_session_cost_day;
ALTER TABLE agg_session_cost_day_v2 RENAME TO agg_session_cost_day;

CREATE TABLE agg_user_breakdown_day_v2 (
  org_id  VARCHAR NOT NULL,
  day     DATE NOT NULL,
  user_id VARCHAR NOT NULL,
  kind    VARCHAR NOT NULL,
  key     VARCHAR NOT NULL,
  count   BIGINT NOT NULL
);
INSERT INTO agg_user_breakdown_day_v2 SELECT * FROM agg_user_breakdown_day;
DROP TABLE agg_user_breakdown_day;
ALTER TABLE agg_user_breakdown_day_v2 RENAME TO agg_user_breakdown_day;

CREATE TABLE agg_user_hooks_day_v2 (
  org_id  VARCHAR NOT NULL,
  day     DATE NOT NULL,
  user_id VARCHAR NOT NULL,
  event   VARCHAR NOT NULL,
  matcher VARCHAR NOT NULL,
  command VARCHAR NOT NULL,
  count   BIGINT NOT NULL
);
INSERT INTO agg_user_hooks_day_v2 SELECT * FROM agg_user_hooks_day;
DROP TABLE agg_user_hooks_day;
ALTER TABLE agg_user_hooks_day_v2 RENAME TO agg_user_hooks_day;

CREATE TABLE agg_user_model_day_v2 (
  org_id       VARCHAR NOT NULL,
  day          DATE NOT NULL,
  user_id      VARCHAR NOT NULL,
  model        VARCHAR NOT NULL,
  raw_billable DOUBLE NOT NULL
);
INSERT INTO agg_user_model_day_v2 SELECT * FROM agg_user_model_day;
DROP TABLE agg_user_model_day;
ALTER TABLE agg_user_model_day_v2 RENAME TO agg_user_model_day;

CREATE TABLE agg_code_edit_day_v2 (
  org_id        VARCHAR NOT NULL,
  day           DATE NOT NULL,
  user_id       VARCHAR NOT NULL,
  agent         VARCHAR NOT NULL,
  model         VARCHAR NOT NULL,
  language      VARCHAR NOT NULL,
  repo          VARCHAR NOT NULL,
  lines_added   BIGINT NOT NULL,
  lines_deleted BIGINT NOT NULL
);
INSERT INTO agg_code_edit_day_v2 SELECT * FROM agg_code_edit_day;
DROP TABLE agg_code_edit_day;
ALTER TABLE agg_code_edit_day_v2 RENAME TO agg_code_edit_day;

CREATE TABLE agg_code_landed_day_v2 (
  org_id                   VARCHAR NOT NULL,
  day                      DATE NOT NULL,
  user_id                  VARCHAR NOT NULL,
  repo                     VARCHAR NOT NULL,
  commits                  BIGINT NOT NULL,
  commits_with_agent_lines BIGINT NOT NULL,
  lines_added              BIGINT NOT NULL,
  lines_deleted            BIGINT NOT NULL,
  agent_lines              BIGINT NOT NULL
);
INSERT INTO agg_code_landed_day_v2 SELECT * FROM agg_code_landed_day;
DROP TABLE agg_code_landed_day;
ALTER TABLE agg_code_landed_day_v2 RENAME TO agg_code_landed_day;

CREATE TABLE agg_code_landed_agent_day_v2 (
  org_id  VARCHAR NOT NULL,
  day     DATE NOT NULL,
  user_id VARCHAR NOT NULL,
  repo    VARCHAR NOT NULL,
  agent   VARCHAR NOT NULL,
  model   VARCHAR NOT NULL,
  lines   BIGINT NOT NULL
);
INSERT INTO agg_code_landed_agent_day_v2 SELECT * FROM agg_code_landed_agent_day;
DROP TABLE agg_code_landed_agent_day;
ALTER TABLE agg_code_landed_agent_day_v2 RENAME TO agg_code_landed_agent_day;
