-- Files created or edited by successful tool calls on the rebuilt days, with their language.
CREATE OR REPLACE TEMP TABLE file_touch AS
SELECT f.org_id, f.day, f.user_id, f.op, f.ext, coalesce(le.language, ln.language) AS language
FROM (
  SELECT ev.org_id, ev.day, ev.user_id, t.file.op AS op, t.file.ext AS ext, t.file.name AS name
  FROM ev, unnest(from_json(ev.files, '[{"ext":"VARCHAR","name":"VARCHAR","op":"VARCHAR"}]')) AS t(file)
  WHERE ev.is_call AND ev.success AND ev.files IS NOT NULL
) f
LEFT JOIN languages le ON le.kind = 'ext' AND f.ext <> '' AND le.key = f.ext
LEFT JOIN languages ln ON ln.kind = 'name' AND f.ext = '' AND ln.key = f.name;
