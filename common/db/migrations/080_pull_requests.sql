-- Pull requests from the code host's own webhooks (docs/metrics.md §10). Only what the figures need is
-- kept: ids, numbers, times, the author's address, commit ids and the repository's host/path; never a
-- title, a body or a branch name.

-- The secret each host signs its deliveries with, per organization. GitHub's is needed in clear to check
-- an HMAC, so it is sealed (the OIDC key file, api/oidc/secret.ts); GitLab sends its token as it is, so
-- only the token's SHA-256 is kept.
CREATE TABLE codehost_secrets (
  org_id        VARCHAR NOT NULL,
  host          VARCHAR NOT NULL,
  secret_sealed VARCHAR,
  secret_hash   VARCHAR,
  set_by        VARCHAR NOT NULL,
  set_at        TIMESTAMP NOT NULL,
  PRIMARY KEY (org_id, host)
);

-- Every delivery taken, by the host's delivery id: a replayed delivery changes nothing.
CREATE TABLE codehost_deliveries (
  org_id       VARCHAR NOT NULL,
  host         VARCHAR NOT NULL,
  delivery_id  VARCHAR NOT NULL,
  received_at  TIMESTAMP NOT NULL,
  PRIMARY KEY (org_id, host, delivery_id)
);

-- One row per (organization, repository, number), replaced by a newer delivery (updated_at).
CREATE TABLE pull_requests (
  org_id            VARCHAR NOT NULL,
  repo              VARCHAR NOT NULL,
  number            BIGINT NOT NULL,
  host              VARCHAR NOT NULL,
  host_id           VARCHAR NOT NULL,
  author            VARCHAR,
  state             VARCHAR NOT NULL,
  opened_at         TIMESTAMP NOT NULL,
  merged_at         TIMESTAMP,
  updated_at        TIMESTAMP NOT NULL,
  merge_commit_id   VARCHAR,
  squash_commit_id  VARCHAR,
  head_commit_id    VARCHAR,
  commit_count      INTEGER,
  PRIMARY KEY (org_id, repo, number)
);
