-- Code the agents wrote (docs/metrics.md §5): the lines each file-writing tool call added and removed (per file:
-- its extension, or name for extension-less files, so the language is known; never a path or a line), the
-- commits that landed on a watched repository's default branch with their agent lines, and the daily
-- aggregates of both.
ALTER TABLE events ADD COLUMN edits STRUCT(ext VARCHAR, name VARCHAR, lines_added BIGINT, lines_deleted BIGINT)[];

-- One row per (organization, repository, commit): a commit delivered again is ignored. user_id is the
-- key's user (the commit's author is that user: the collector ships only commits of its repository's
-- user.email). ts is the committer time; repo the normalized host/path of the remote.
CREATE TABLE landed_commits (
  org_id        VARCHAR NOT NULL,
  repo_id       VARCHAR NOT NULL,
  commit_id     VARCHAR NOT NULL,
  user_id       VARCHAR NOT NULL,
  received_at   TIMESTAMP NOT NULL,
  ts            TIMESTAMP NOT NULL,
  repo          VARCHAR NOT NULL,
  lines_added   BIGINT NOT NULL,
  lines_deleted BIGINT NOT NULL,
  agent_lines   BIGINT NOT NULL,
  by_agent      STRUCT(agent VARCHAR, model VARCHAR, lines BIGINT)[] NOT NULL,
  PRIMARY KEY (org_id, repo_id, commit_id)
);

-- Edit lines per user, day, agent, model (of the session's latest assistant message at or before the
-- call; 'unknown' when none) and language ('' when the file's language is not known).
CREATE TABLE agg_code_edit_day (
  org_id        VARCHAR NOT NULL,
  day           DATE NOT NULL,
  user_id       VARCHAR NOT NULL,
  agent         VARCHAR NOT NULL,
  model         VARCHAR NOT NULL,
  language      VARCHAR NOT NULL,
  lines_added   BIGINT NOT NULL,
  lines_deleted BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, agent, model, language)
);

-- Landed commits per user, day (committer time, UTC) and repository.
CREATE TABLE agg_code_landed_day (
  org_id                   VARCHAR NOT NULL,
  day                      DATE NOT NULL,
  user_id                  VARCHAR NOT NULL,
  repo                     VARCHAR NOT NULL,
  commits                  BIGINT NOT NULL,
  commits_with_agent_lines BIGINT NOT NULL,
  lines_added              BIGINT NOT NULL,
  lines_deleted            BIGINT NOT NULL,
  agent_lines              BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, repo)
);

-- Their agent lines by agent and model.
CREATE TABLE agg_code_landed_agent_day (
  org_id   VARCHAR NOT NULL,
  day      DATE NOT NULL,
  user_id  VARCHAR NOT NULL,
  repo     VARCHAR NOT NULL,
  agent    VARCHAR NOT NULL,
  model    VARCHAR NOT NULL,
  lines    BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, repo, agent, model)
);

-- The per-user record's two fields (docs/metrics.md §5): edit lines added, and landed agent lines (DuckDB adds
-- no column with a constraint: the pipeline always writes both, 0 included).
ALTER TABLE agg_user_day ADD COLUMN lines_added BIGINT DEFAULT 0;
ALTER TABLE agg_user_day ADD COLUMN landed_agent_lines BIGINT DEFAULT 0;
