-- Files created or edited by successful tool calls on the rebuilt days, with their language (by
-- extension, or by file name for extension-less files). One equality join: "ext:py" or "name:Makefile".
CREATE OR REPLACE TEMP TABLE file_touch AS
SELECT f.org_id, f.day, f.user_id, f.op, f.ext, l.language
FROM (
  SELECT org_id, day, user_id, file.op AS op, file.ext AS ext,
         CASE WHEN file.ext <> '' THEN 'ext:' || file.ext ELSE 'name:' || coalesce(file.name, '') END AS lang_key
  FROM (
    SELECT e.org_id, CAST(e.ts AS DATE) AS day, e.user_id, unnest(e.files) AS file
    FROM events e
    WHERE e.files IS NOT NULL AND e.tool_success AND e.event = 'PostToolUse'
      AND e.ts >= CAST($chunk_first AS TIMESTAMP) AND e.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
      AND (e.org_id, CAST(e.ts AS DATE)) IN (SELECT org_id, day FROM rebuild)
  )
) f
LEFT JOIN (SELECT kind || ':' || key AS lang_key, language FROM languages) l USING (lang_key);
