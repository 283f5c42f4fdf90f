-- Organizations, users with roles, and API keys (stored only as SHA-256 hashes).
CREATE TABLE orgs (
  id          VARCHAR PRIMARY KEY,
  name        VARCHAR NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id              VARCHAR PRIMARY KEY,
  org_id          VARCHAR NOT NULL,
  email           VARCHAR NOT NULL,
  role            VARCHAR NOT NULL CHECK (role IN ('owner', 'manager', 'member', 'guest')),
  first_name      VARCHAR,
  last_name       VARCHAR,
  metadata        JSON,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_sign_in_at TIMESTAMPTZ,
  UNIQUE (org_id, email)
);

CREATE TABLE api_keys (
  id            VARCHAR PRIMARY KEY,
  user_id       VARCHAR NOT NULL,
  org_id        VARCHAR NOT NULL,
  name          VARCHAR,
  -- The first characters of the key, shown in listings so a person can tell keys apart.
  prefix        VARCHAR NOT NULL,
  hash          VARCHAR NOT NULL UNIQUE,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_used_at  TIMESTAMPTZ,
  revoked_at    TIMESTAMPTZ
);
