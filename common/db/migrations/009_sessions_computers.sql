-- Sessions run on registered computers (api/sessions, computer/). Times are Unix milliseconds, as the
-- API reports them. A session's status, completedAt and messageCount are derived from its messages.

-- The hook records which API session and message an agent run belongs to (AGENTMETER_SESSION_ID and
-- AGENTMETER_MESSAGE_ID, set by the computer agent); a session's token usage follows from them.
ALTER TABLE events ADD COLUMN api_session_id VARCHAR;
ALTER TABLE events ADD COLUMN api_message_id VARCHAR;

-- A machine that runs sessions. Its agent authenticates with its own token (stored as a SHA-256 hash),
-- so a leaked computer credential cannot read analytics or act as its owner. The provisioning steps and
-- the status are derived from the times below (api/computers/status.ts).
CREATE TABLE computers (
  id              VARCHAR PRIMARY KEY,
  org_id          VARCHAR NOT NULL,
  user_id         VARCHAR NOT NULL, -- who registered it; only they start sessions on it
  name            VARCHAR NOT NULL,
  provider_type   VARCHAR NOT NULL CHECK (provider_type IN ('byom', 'hosted')),
  host_id         VARCHAR,
  hostname        VARCHAR,
  remote_user     VARCHAR,
  token_hash      VARCHAR NOT NULL,
  created_ms      BIGINT NOT NULL,
  checks_ms       BIGINT,           -- when the agent last reported its start-up checks
  checks_error    VARCHAR,          -- why they failed; NULL when they passed
  first_seen_ms   BIGINT,           -- first connection of the agent
  last_seen_ms    BIGINT            -- latest connection (polls and reports)
);

CREATE TABLE sessions (
  id            VARCHAR PRIMARY KEY,
  org_id        VARCHAR NOT NULL,
  user_id       VARCHAR NOT NULL,
  computer_id   VARCHAR NOT NULL,
  cwd           VARCHAR,
  title         VARCHAR,
  settings      JSON NOT NULL,
  created_ms    BIGINT NOT NULL,
  updated_ms    BIGINT NOT NULL  -- creation or the last PATCH; messages move the reported updatedAt on
);

-- User messages carry the work: queued → claimed (handed to the computer agent) → running (the agent
-- process started) → completed | failed. A claim that is never started goes back to queued when its lease
-- runs out; a started run whose lease runs out is failed, never run again (it may have had effects).
-- Assistant messages hold the agent's output, one per completed user message.
CREATE TABLE session_messages (
  id            VARCHAR PRIMARY KEY,
  session_id    VARCHAR NOT NULL,
  org_id        VARCHAR NOT NULL,
  seq           INTEGER NOT NULL,
  role          VARCHAR NOT NULL CHECK (role IN ('user', 'assistant')),
  text          VARCHAR NOT NULL,
  attachments   JSON,
  computer_id   VARCHAR,
  status        VARCHAR NOT NULL CHECK (status IN ('queued', 'claimed', 'running', 'completed', 'failed')),
  reply_to      VARCHAR,
  exit_code     INTEGER,
  error         VARCHAR,
  lease_ms      BIGINT,
  created_ms    BIGINT NOT NULL,
  started_ms    BIGINT,
  completed_ms  BIGINT
);
