-- Landed commits name their author (docs/metrics.md §5): the server takes a commit only from a key of the
-- user who owns the author address, and keeps, of several machines' records of one commit, the one with
-- the most agent lines. A commit's agent lines are split by the agent session that wrote them (the cost
-- work divides by it). Records stored before this have no author ('') and no split by session.
ALTER TABLE landed_commits ADD COLUMN author VARCHAR DEFAULT '';
ALTER TABLE landed_commits ADD COLUMN by_session STRUCT(agent VARCHAR, session_id VARCHAR, lines BIGINT)[] DEFAULT [];

-- A user's other addresses (a code host's no-reply address, a second work address): a commit authored by
-- one lands for that user. `source` is 'directory' (SCIM's extra e-mails) or 'owner' (set by an owner).
-- One address belongs to one user of an organization.
CREATE TABLE user_aliases (
  org_id     VARCHAR NOT NULL,
  email      VARCHAR NOT NULL,
  user_id    VARCHAR NOT NULL,
  source     VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (org_id, email)
);
