-- Anomaly alerts and the weekly digest (docs/metrics.md §9), delivered through the budget alerts' queue
-- (alert_deliveries, keyed by the alert's id: anm_… for an anomaly, dig_… for a digest).
--
-- The organization's choices: the anomaly floor in US dollars and where anomalies and the digest go. A
-- destination's secret (a webhook's HMAC key) is kept as given, as a budget's is: it signs every delivery
-- and is never answered or logged. No row: the defaults (a $20 floor, no destination). `digest_since` is
-- when the digest was turned on (its destinations went from none to some): the first digest sent is the
-- first Monday 09:00 after it, never the week before it was asked for.
CREATE TABLE alert_settings (
  org_id               VARCHAR PRIMARY KEY,
  anomaly_floor_usd    DOUBLE NOT NULL,
  anomaly_destinations JSON NOT NULL,
  digest_destinations  JSON NOT NULL,
  digest_since         TIMESTAMP,
  updated_at           TIMESTAMP NOT NULL,
  updated_by           VARCHAR NOT NULL
);

-- An anomaly: a person's (scope 'user', target their id) or a team's (scope 'team', target its name in lower
-- case) dollars on a UTC day above 3 × their median day with usage of the 28 before and above the floor.
-- The key refuses a second for the same subject and day, so a rerun or a second evaluation never fires
-- (or delivers) it twice. `subject` is the e-mail or the team's name as it was when it fired.
CREATE TABLE anomaly_alerts (
  id              VARCHAR PRIMARY KEY,
  org_id          VARCHAR NOT NULL,
  scope           VARCHAR NOT NULL,
  target          VARCHAR NOT NULL,
  day             DATE NOT NULL,
  subject         VARCHAR NOT NULL,
  cost_usd        DOUBLE NOT NULL,
  median_usd      DOUBLE NOT NULL,
  floor_usd       DOUBLE NOT NULL,
  days_with_usage INTEGER NOT NULL,
  fired_at        TIMESTAMP NOT NULL,
  UNIQUE (org_id, scope, target, day)
);

-- A weekly digest as it was sent: one per organization and reported week (`week` is its Monday, UTC); the
-- body is kept whole, so a retry sends the very same figures.
CREATE TABLE digests (
  id      VARCHAR PRIMARY KEY,
  org_id  VARCHAR NOT NULL,
  week    DATE NOT NULL,
  body    JSON NOT NULL,
  sent_at TIMESTAMP NOT NULL,
  UNIQUE (org_id, week)
);
