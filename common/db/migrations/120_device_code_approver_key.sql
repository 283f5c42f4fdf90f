-- The key someone else minted that a device code was approved with (a delegated or invitation key, or a
-- dashboard session signed in with one; null for the person's own credential): the collector key the
-- machine receives ends with it, and the machine receives none once it has ended (api/device/routes.ts).
ALTER TABLE device_codes ADD COLUMN approver_key VARCHAR;
