-- A Claude Code model call is one (message.id, requestId) across an organization's transcripts, counted at
-- its earliest line (docs/metrics.md §1). Usage records and assistant messages were keyed cc:<session>:<message.id>
-- before, so a continued or resumed session stored its copies of the earlier session's calls again. New
-- records are keyed cc:<message.id>:<requestId> by the collector; the requestId of stored rows was never
-- kept, so they cannot take the new ids and are corrected here instead. Stored rows of one organization
-- with the same message.id are one call: an API answer's message id is unique, and a transcript copy is
-- how one comes to be in two sessions. The earliest row stays (with the largest of each count, as ingest
-- combines copies) and the others go.
--
-- What this changes is marked received now, so the next batch rebuilds the days concerned: the kept rows'
-- days (and the 29 after them), and every day of the sessions that lost a copy (their events are marked, and
-- the batch rebuilds each day a touched session has events on: a copy is dated in its session's time).

CREATE TEMP TABLE legacy_usage AS
SELECT * FROM (
  SELECT org_id, id, session_id,
         row_number() OVER (PARTITION BY org_id, message_id ORDER BY ts, received_at, id) AS copy,
         count(*) OVER calls AS copies,
         max(input_tokens) OVER calls AS input_tokens, max(output_tokens) OVER calls AS output_tokens,
         max(cache_read_tokens) OVER calls AS cache_read_tokens, max(cache_write_tokens) OVER calls AS cache_write_tokens,
         max(thinking_tokens) OVER calls AS thinking_tokens, bool_or(thinking) OVER calls AS thinking
  FROM (SELECT *, substr(id, length(session_id) + 5) AS message_id FROM usage
        WHERE agent = 'claude' AND starts_with(id, 'cc:' || session_id || ':'))
  WINDOW calls AS (PARTITION BY org_id, message_id)
)
WHERE copies > 1;

CREATE TEMP TABLE legacy_messages AS
SELECT * FROM (
  SELECT org_id, id, session_id,
         row_number() OVER (PARTITION BY org_id, message_id ORDER BY ts, received_at, id) AS copy,
         count(*) OVER (PARTITION BY org_id, message_id) AS copies
  FROM (SELECT *, substr(id, length(session_id) + 5) AS message_id FROM assistant_messages
        WHERE agent = 'claude' AND starts_with(id, 'cc:' || session_id || ':'))
)
WHERE copies > 1;

UPDATE usage SET received_at = now()::TIMESTAMP, input_tokens = l.input_tokens, output_tokens = l.output_tokens,
       cache_read_tokens = l.cache_read_tokens, cache_write_tokens = l.cache_write_tokens,
       thinking_tokens = l.thinking_tokens, thinking = l.thinking
FROM legacy_usage l
WHERE usage.org_id = l.org_id AND usage.id = l.id AND l.copy = 1;

DELETE FROM usage USING legacy_usage l WHERE usage.org_id = l.org_id AND usage.id = l.id AND l.copy > 1;

UPDATE assistant_messages SET received_at = now()::TIMESTAMP
FROM legacy_messages l
WHERE assistant_messages.org_id = l.org_id AND assistant_messages.id = l.id AND l.copy = 1;

DELETE FROM assistant_messages USING legacy_messages l
WHERE assistant_messages.org_id = l.org_id AND assistant_messages.id = l.id AND l.copy > 1;

UPDATE events SET received_at = now()::TIMESTAMP
FROM (SELECT DISTINCT org_id, session_id FROM legacy_usage WHERE copy > 1
      UNION SELECT DISTINCT org_id, session_id FROM legacy_messages WHERE copy > 1) s
WHERE events.org_id = s.org_id AND events.session_id = s.session_id;

DROP TABLE legacy_usage;
DROP TABLE legacy_messages;
