-- A directory's rename of an owner (their userName, the e-mail they sign in with), held until an owner
-- confirms it (api/scim/renames.ts, docs/scim.md): whoever holds a SCIM token could otherwise rename an
-- owner to an address they control at the identity provider and sign in as that owner. One per user; a
-- newer rename of the same user replaces the one held.
CREATE TABLE scim_pending_renames (
  org_id       VARCHAR NOT NULL,
  user_id      VARCHAR NOT NULL,
  email        VARCHAR NOT NULL,
  requested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);

-- The API key a SCIM token was minted with (only a personal API key mints one): the token is revoked with
-- that key, and with its minter's removal or deactivation. NULL: the operator's, on the database file.
ALTER TABLE scim_tokens ADD COLUMN minted_with VARCHAR;
