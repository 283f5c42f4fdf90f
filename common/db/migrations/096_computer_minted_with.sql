-- The key a computer was registered with. A computer's token lasts until revoked, and nothing minted may
-- outlive the credential that minted it: revoking that key (or the invitation it came from, or its
-- minter's access) now revokes the computer's token too (api/computers/store.ts). Computers registered
-- before have none recorded: they end as before, with their user's removal or deactivation.
ALTER TABLE computers ADD COLUMN minted_with VARCHAR;
