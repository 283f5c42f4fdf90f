-- Spend by repository (group_by=repo on /tokens): each hook event carries the repository of its session's
-- working directory (normalized host/path and id, as edits and landed commits name theirs; NULL outside a
-- git work tree or without an origin). A session's repository is that of its latest event that has one.
ALTER TABLE events ADD COLUMN repo VARCHAR;
ALTER TABLE events ADD COLUMN repo_id VARCHAR;

-- Tokens, credits and dollars per day, user and repository (usage of sessions in no repository is in no
-- row). billable_tokens: the day's multiplier-weighted tokens of the user's sessions in the repository,
-- before rounding (a repository row rounds its own sum).
CREATE TABLE agg_tokens_repo_day (
  org_id             VARCHAR NOT NULL,
  day                DATE NOT NULL,
  user_id            VARCHAR NOT NULL,
  repo               VARCHAR NOT NULL,
  input_tokens       BIGINT NOT NULL,
  output_tokens      BIGINT NOT NULL,
  cache_read_tokens  BIGINT NOT NULL,
  cache_write_tokens BIGINT NOT NULL,
  raw_billable       DOUBLE NOT NULL,
  cost_usd           DOUBLE,
  PRIMARY KEY (org_id, day, user_id, repo)
);
