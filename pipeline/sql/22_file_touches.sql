-- Files created or edited by successful tool calls on the rebuilt days, with their language (by
-- extension, or by file name for extension-less files). One equality join: "ext:py" or "name:Makefile".
-- Counted per organization, day, user, operation and file kind (n): what the per-user figures
-- (40_user_day) and breakdowns (45_user_breakdowns) sum, and the language join reads a few rows per
-- user and day instead of one per file.
CREATE OR REPLACE TEMP TABLE file_touch AS
SELECT f.org_id, f.day, f.user_id, f.op, f.ext, l.language, f.n
FROM (
  SELECT org_id, day, user_id, file.op AS op, file.ext AS ext,
         CASE WHEN file.ext <> '' THEN 'ext:' || file.ext ELSE 'name:' || coalesce(file.name, '') END AS lang_key,
         count(*) AS n
  FROM (
    SELECT org_id, day, user_id, unnest(files) AS file
    FROM chunk_events($chunk_first, $chunk_last)
    WHERE files IS NOT NULL AND tool_success AND event = 'PostToolUse'
  )
  GROUP BY ALL
  HAVING org_id IN (SELECT org_id FROM rebuild)
) f
LEFT JOIN (SELECT kind || ':' || key AS lang_key, language FROM languages) l USING (lang_key);
