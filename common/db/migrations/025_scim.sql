-- SCIM 2.0 provisioning (api/scim/). The bearer tokens a directory (Okta, Microsoft Entra ID) uses on
-- /scim/v2/*, minted and revoked by an owner: like API keys, shown once and stored only as a SHA-256 hash,
-- but in their own table so one is never taken for the other.
CREATE TABLE scim_tokens (
  id          VARCHAR PRIMARY KEY,
  org_id      VARCHAR NOT NULL,
  name        VARCHAR,
  -- The first characters of the token, shown in listings so an owner can tell tokens apart.
  prefix      VARCHAR NOT NULL,
  hash        VARCHAR NOT NULL UNIQUE,
  -- The owner who minted it; NULL: the operator, on the database file.
  created_by  VARCHAR,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_used_at TIMESTAMPTZ,
  revoked_at  TIMESTAMPTZ
);

-- What the directory says about a user that agentmeter's users table has no column for. A user without a
-- row here (created by the CLI or the API) is active with no externalId.
CREATE TABLE scim_users (
  org_id       VARCHAR NOT NULL,
  user_id      VARCHAR NOT NULL,
  external_id  VARCHAR,
  display_name VARCHAR,
  active       BOOLEAN NOT NULL DEFAULT true,
  updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);
