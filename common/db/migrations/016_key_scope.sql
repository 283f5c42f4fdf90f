-- What an API key may do (api/keys/schema.ts, KeyScope), apart from whose it is (kind, migration 011):
--   personal   everything its user's role allows (kind decides whether it drives computers)
--   collector  only what a developer machine needs: ingest, its own user's credit-limit state and usage,
--              its identity, and registering its machine (routes with `config: { collectorKey: true }`)
-- Every key from before this migration stays personal, so a running setup keeps working: no key records
-- how it was handed out (install.sh and `hooks install` take a key, they never minted one). docs/keys.md
-- says how to replace the keys on developer machines with collector keys.
ALTER TABLE api_keys ADD COLUMN scope VARCHAR DEFAULT 'personal';
UPDATE api_keys SET scope = 'personal' WHERE scope IS NULL;
-- The key that minted this one, when another key did: revoking it revokes every personal key minted with
-- it (nothing outlives the credential that minted it, but a collector key, which is durable by design).
ALTER TABLE api_keys ADD COLUMN minted_with VARCHAR;
-- A collector key's machine: the machine id it first delivered from (x-agentmeter-machine), so the
-- machines page lists and revokes the keys of each machine.
ALTER TABLE api_keys ADD COLUMN machine_id VARCHAR;
