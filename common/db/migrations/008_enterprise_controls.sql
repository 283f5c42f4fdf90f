-- Enterprise-control settings, one row per revision (revision 1, 2, … per organization).
CREATE TABLE enterprise_controls (
  org_id      VARCHAR NOT NULL,
  revision    INTEGER NOT NULL,
  settings    JSON NOT NULL,
  user_id     VARCHAR NOT NULL,
  user_email  VARCHAR NOT NULL,
  user_name   VARCHAR NOT NULL,
  updated_at  TIMESTAMP NOT NULL,
  PRIMARY KEY (org_id, revision)
);
