-- Dashboard sign-in sessions. The cookie holds a random token; only its SHA-256 is stored. A session made
-- from an API key names that key, so revoking the key ends the session; one made from a JWT has no key
-- and ends at its expiry (never later than the token's own).
CREATE TABLE dashboard_sessions (
  token_hash  VARCHAR PRIMARY KEY,
  org_id      VARCHAR NOT NULL,
  user_id     VARCHAR NOT NULL,
  key_id      VARCHAR,
  -- The role granted at sign-in (a JWT may grant less than the user has); a lookup never gives more than the user's current role.
  role        VARCHAR NOT NULL,
  created_at  TIMESTAMP NOT NULL,
  expires_at  TIMESTAMP NOT NULL
);
