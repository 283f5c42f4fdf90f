-- Per-user monthly credit limits (Standard Credits), and whether the organization enforces them.
CREATE TABLE credit_limits (
  org_id      VARCHAR NOT NULL,
  user_id     VARCHAR NOT NULL,
  credits     BIGINT NOT NULL,
  updated_at  TIMESTAMP NOT NULL,
  updated_by  VARCHAR NOT NULL,
  PRIMARY KEY (org_id, user_id)
);

CREATE TABLE org_settings (
  org_id          VARCHAR PRIMARY KEY,
  enforce_limits  BOOLEAN NOT NULL DEFAULT false
);
