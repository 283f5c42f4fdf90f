-- Who minted each API key, and what that makes it (api/keys/schema.ts, KeyKind):
--   personal    the user's own: minted by the operator on the database file (created_by NULL), by the
--               user with a personal credential, or in exchange for their invitation. Drives the user's
--               computers.
--   invitation  the key given when someone created the user through the server; its creator saw it. Its
--               user exchanges it once for a personal key, which revokes it.
--   delegated   minted by another person (or with a delegated key): everything but driving computers.
-- Keys from before this migration have no recorded minter and count as personal, so a running setup keeps
-- working; revoke any a manager minted for someone else (README, "Whose key drives a computer").
ALTER TABLE api_keys ADD COLUMN created_by VARCHAR;
ALTER TABLE api_keys ADD COLUMN kind VARCHAR DEFAULT 'personal';
