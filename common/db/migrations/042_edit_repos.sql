-- Edits by repository (docs/metrics.md §5): each file an edit wrote carries the organization-side id and
-- normalized host/path of its repository (as its landed commits do; NULL outside a git work tree or
-- without an origin remote), so group_by=repo counts edit lines per repository. Edits stored before
-- this have no repository.
ALTER TABLE events ALTER edits TYPE
  STRUCT(ext VARCHAR, name VARCHAR, lines_added BIGINT, lines_deleted BIGINT, repo_id VARCHAR, repo VARCHAR)[];

-- The daily edit lines gain the repository ('' for none) in their key: the table is made again, the
-- rows already built kept under no repository.
CREATE TABLE agg_code_edit_day_v2 (
  org_id        VARCHAR NOT NULL,
  day           DATE NOT NULL,
  user_id       VARCHAR NOT NULL,
  agent         VARCHAR NOT NULL,
  model         VARCHAR NOT NULL,
  language      VARCHAR NOT NULL,
  repo          VARCHAR NOT NULL,
  lines_added   BIGINT NOT NULL,
  lines_deleted BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, user_id, agent, model, language, repo)
);
INSERT INTO agg_code_edit_day_v2
SELECT org_id, day, user_id, agent, model, language, '', lines_added, lines_deleted FROM agg_code_edit_day;
DROP TABLE agg_code_edit_day;
ALTER TABLE agg_code_edit_day_v2 RENAME TO agg_code_edit_day;
