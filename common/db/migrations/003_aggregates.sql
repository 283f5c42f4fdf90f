-- Daily aggregates built by pipeline/ (agentmeter batch) and read by the analytics API. Every table is
-- keyed by (org_id, day, …) and rebuilt a day at a time: delete the day's rows, insert them anew.

-- Model multipliers with effective dates, loaded from pipeline/pricing.json at every batch.
CREATE TABLE pricing (
  match           VARCHAR NOT NULL,   -- a model id, or a pattern with * (claude-opus-*)
  multiplier      DOUBLE NOT NULL,
  effective_from  DATE NOT NULL
);

-- File extension / file name → language (GitHub Linguist data), loaded at every batch.
CREATE TABLE languages (
  kind      VARCHAR NOT NULL,   -- 'ext' or 'name'
  key       VARCHAR NOT NULL,
  language  VARCHAR NOT NULL,
  PRIMARY KEY (kind, key)
);

CREATE TABLE batch_runs (
  id              INTEGER PRIMARY KEY,
  started_at      TIMESTAMP NOT NULL,
  finished_at     TIMESTAMP,
  -- Everything received up to here is in the aggregates; the next run starts after it.
  watermark       TIMESTAMP,
  days_rebuilt    INTEGER,
  unpriced_models VARCHAR,     -- JSON list of model ids that had no price
  trigger         VARCHAR NOT NULL
);

-- One row per user and day with any record (hook event, usage or assistant message).
CREATE TABLE agg_user_day (
  org_id              VARCHAR NOT NULL,
  day                 DATE NOT NULL,
  user_id             VARCHAR NOT NULL,
  active              BOOLEAN NOT NULL,  -- had a hook event on the day (counts in DAU)
  tool_calls          BIGINT NOT NULL,
  user_turns          BIGINT NOT NULL,
  mcp_calls           BIGINT NOT NULL,
  skill_calls         BIGINT NOT NULL,
  slash_commands      BIGINT NOT NULL,
  hooks               BIGINT NOT NULL,
  sessions            BIGINT NOT NULL,
  user_messages       BIGINT NOT NULL,
  assistant_messages  BIGINT NOT NULL,
  files_created       BIGINT NOT NULL,
  files_edited        BIGINT NOT NULL,
  git_commits         BIGINT NOT NULL,
  git_prs_created     BIGINT NOT NULL,
  billable_tokens     BIGINT NOT NULL,
  primary_model       VARCHAR,
  primary_model_tier  VARCHAR,
  autonomy_ratio      DOUBLE,
  delegation_level    VARCHAR,
  languages           VARCHAR[] NOT NULL,
  clients             VARCHAR[] NOT NULL,
  PRIMARY KEY (org_id, day, user_id)
);

-- Token usage per user, day and model; billable already rounded so that users sum to the org figure.
CREATE TABLE agg_tokens_day (
  org_id              VARCHAR NOT NULL,
  day                 DATE NOT NULL,
  user_id             VARCHAR NOT NULL,
  model               VARCHAR NOT NULL,
  thinking            BOOLEAN NOT NULL,   -- this user's usage of the model on the day included reasoning
  input_tokens        BIGINT NOT NULL,
  output_tokens       BIGINT NOT NULL,
  cache_read_tokens   BIGINT NOT NULL,
  cache_write_tokens  BIGINT NOT NULL,
  billable_tokens     BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, model)
);

-- Breakdown arrays: kind ∈ tool, mcp_server, skill, slash_command, extension, language, client.
CREATE TABLE agg_breakdown_day (
  org_id  VARCHAR NOT NULL,
  day     DATE NOT NULL,
  kind    VARCHAR NOT NULL,
  key     VARCHAR NOT NULL,
  count   BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, kind, key)
);

CREATE TABLE agg_hooks_day (
  org_id   VARCHAR NOT NULL,
  day      DATE NOT NULL,
  event    VARCHAR NOT NULL,
  matcher  VARCHAR NOT NULL,
  command  VARCHAR NOT NULL,
  count    BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, event, matcher, command)
);

-- The organization's scalar figures per day (only days with activity; the API fills the rest with 0).
CREATE TABLE agg_org_day (
  org_id                      VARCHAR NOT NULL,
  day                         DATE NOT NULL,
  daily_active_users          BIGINT NOT NULL,
  weekly_active_users         BIGINT NOT NULL,
  monthly_active_users        BIGINT NOT NULL,
  sessions                    BIGINT NOT NULL,
  user_messages               BIGINT NOT NULL,
  assistant_messages          BIGINT NOT NULL,
  tool_calls                  BIGINT NOT NULL,
  mcp_users_with_mcp          BIGINT NOT NULL,
  skills_invocations          BIGINT NOT NULL,
  slash_commands_invocations  BIGINT NOT NULL,
  hooks_invocations           BIGINT NOT NULL,
  web_users                   BIGINT NOT NULL,
  autonomy_ratio_avg          DOUBLE NOT NULL,
  autonomy_ratio_p50          DOUBLE NOT NULL,
  autonomy_ratio_p90          DOUBLE NOT NULL,
  tool_calls_per_session_avg  DOUBLE NOT NULL,
  user_turns_per_session_avg  DOUBLE NOT NULL,
  share_auto_high             DOUBLE NOT NULL,
  share_auto_medium           DOUBLE NOT NULL,
  share_auto_low              DOUBLE NOT NULL,
  share_manual                DOUBLE NOT NULL,
  files_created               BIGINT NOT NULL,
  files_edited                BIGINT NOT NULL,
  git_commits                 BIGINT NOT NULL,
  git_prs_created             BIGINT NOT NULL,
  PRIMARY KEY (org_id, day)
);
