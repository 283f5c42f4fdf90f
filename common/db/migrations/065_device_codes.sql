-- Enrollment by device code (api/device/, RFC 8628's shape): a machine with no key asks for a code, a
-- person signed in to the dashboard approves it, and the machine receives a collector key of that person.
-- Both codes are stored only as SHA-256 hashes; times are epoch milliseconds of the server's clock, so the
-- 10-minute expiry and the polling interval follow the clock tests pin.
CREATE TABLE device_codes (
  device_code_hash  VARCHAR PRIMARY KEY,
  user_code_hash    VARCHAR NOT NULL UNIQUE,
  -- What the machine called itself ("install.sh on ana-laptop") and the address it asked from, shown on
  -- the approval page so a person can tell their own machine from someone else's request.
  machine_name      VARCHAR,
  requested_from    VARCHAR,
  created_ms        BIGINT NOT NULL,
  expires_ms        BIGINT NOT NULL,
  -- pending, approved or denied; set once by a person of the organization that decides.
  state             VARCHAR NOT NULL DEFAULT 'pending',
  org_id            VARCHAR,
  user_id           VARCHAR,
  -- What the approving credential was to its user (KeyKind): the minted key's kind follows from it.
  approver_credential VARCHAR,
  decided_ms        BIGINT,
  -- The machine's polling: the last poll and the interval it must keep (raised by each slow_down).
  last_poll_ms      BIGINT,
  interval_s        INTEGER NOT NULL,
  -- Set when the machine received its key: a code is used once.
  redeemed_ms       BIGINT,
  key_id            VARCHAR
);
