-- Teams of an organization (docs/metrics.md §6): a name unique in the organization compared case-insensitively
-- (name_key is the name lower-cased, kept by api/teams/store.ts, since DuckDB has no expression index), an
-- optional parent (no cycles: the store refuses them), and dated memberships.
CREATE TABLE teams (
  org_id      VARCHAR NOT NULL,
  team_id     VARCHAR NOT NULL,
  name        VARCHAR NOT NULL,
  name_key    VARCHAR NOT NULL,
  parent_id   VARCHAR,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, team_id),
  UNIQUE (org_id, name_key)
);

-- A user's membership of a team from first_day to last_day, both UTC days and inclusive; last_day is NULL
-- while it lasts. A membership with no known start (a roster line with an empty `from`) has first_day
-- 1970-01-01. A user may have several periods in one team; they never overlap (the store keeps that).
CREATE TABLE team_members (
  org_id     VARCHAR NOT NULL,
  team_id    VARCHAR NOT NULL,
  user_id    VARCHAR NOT NULL,
  first_day  DATE NOT NULL,
  last_day   DATE,
  PRIMARY KEY (org_id, team_id, user_id, first_day),
  CHECK (last_day IS NULL OR last_day >= first_day)
);

-- Per-organization team settings: the minimum team size (a privacy setting; docs/metrics.md §6): a team with
-- fewer members on a day is left out of group_by=team rows and a team= filter on it is refused.
CREATE TABLE team_settings (
  org_id         VARCHAR PRIMARY KEY,
  min_team_size  INTEGER NOT NULL DEFAULT 1 CHECK (min_team_size >= 1)
);
