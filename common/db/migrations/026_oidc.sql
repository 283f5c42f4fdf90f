-- Sign-in with the organization's OpenID Connect provider (api/oidc/). One provider per organization. The
-- client secret is stored encrypted (AES-256-GCM) with a key kept in a file beside the database
-- (api/oidc/secret.ts), so a copy or export of the database alone does not give it away.
CREATE TABLE oidc_providers (
  org_id        VARCHAR PRIMARY KEY,
  issuer        VARCHAR NOT NULL,
  client_id     VARCHAR NOT NULL,
  client_secret_sealed VARCHAR NOT NULL,
  -- The ID token claim whose groups set the person's teams; NULL: teams are not taken from sign-in.
  groups_claim  VARCHAR,
  -- 'member': an unknown person who signs in becomes a member; 'none': they are refused.
  provision     VARCHAR NOT NULL CHECK (provision IN ('member', 'none')),
  updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Sign-ins under way: created when the browser is sent to the provider, used once at the callback (or
-- expired). Keyed by the SHA-256 of the state; holds the PKCE verifier and the nonce the ID token must carry.
CREATE TABLE oidc_logins (
  state_hash    VARCHAR PRIMARY KEY,
  org_id        VARCHAR NOT NULL,
  code_verifier VARCHAR NOT NULL,
  nonce         VARCHAR NOT NULL,
  redirect_uri  VARCHAR NOT NULL,
  expires_at    TIMESTAMP NOT NULL
);
