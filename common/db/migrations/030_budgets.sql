-- Budgets (docs/metrics.md §7): Standard Credits per UTC month for the organization, a team or a user, with
-- alert thresholds and the destinations alerts go to. `target` names what the budget counts ('org', the
-- team's name in lower case, or the user id) and, with the scope, is the budget's identity across
-- replacements of the list, so an alert fired this month is not fired again when the list is put again.
-- A destination's secret (the webhook's HMAC key) is kept as given: it signs every delivery. It is never
-- answered or logged.
CREATE TABLE budgets (
  org_id VARCHAR NOT NULL,
  scope VARCHAR NOT NULL,
  target VARCHAR NOT NULL,
  position INTEGER NOT NULL,
  team VARCHAR,
  user_id VARCHAR,
  monthly_credits BIGINT NOT NULL,
  thresholds INTEGER[] NOT NULL,
  destinations JSON NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  updated_by VARCHAR NOT NULL,
  PRIMARY KEY (org_id, scope, target)
);

-- An alert: fired once per budget, threshold and month (the key refuses a second), stored before it is
-- sent. `budget` is the budget as it was when the alert fired (the webhook body's budget object).
CREATE TABLE budget_alerts (
  id VARCHAR PRIMARY KEY,
  org_id VARCHAR NOT NULL,
  scope VARCHAR NOT NULL,
  target VARCHAR NOT NULL,
  month VARCHAR NOT NULL,
  threshold INTEGER NOT NULL,
  usage BIGINT NOT NULL,
  credit_limit BIGINT NOT NULL,
  budget JSON NOT NULL,
  fired_at TIMESTAMP NOT NULL,
  UNIQUE (org_id, scope, target, month, threshold)
);

-- One delivery of an alert to one destination: pending (next_attempt_at says when), delivered, or
-- undelivered after the bounded retries (last_error says why).
CREATE TABLE alert_deliveries (
  alert_id VARCHAR NOT NULL,
  position INTEGER NOT NULL,
  org_id VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  secret VARCHAR,
  state VARCHAR NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at TIMESTAMP,
  last_error VARCHAR,
  delivered_at TIMESTAMP,
  PRIMARY KEY (alert_id, position)
);
