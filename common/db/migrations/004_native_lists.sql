-- files and hooks as native lists of structs instead of JSON text: the pipeline unnests them directly
-- (parsing JSON text per row cost more than everything else in the batch).
ALTER TABLE events ALTER files TYPE STRUCT(ext VARCHAR, name VARCHAR, op VARCHAR)[]
  USING from_json(files, '[{"ext":"VARCHAR","name":"VARCHAR","op":"VARCHAR"}]');
ALTER TABLE events ALTER hooks TYPE STRUCT(event VARCHAR, matcher VARCHAR, command VARCHAR)[]
  USING from_json(hooks, '[{"event":"VARCHAR","matcher":"VARCHAR","command":"VARCHAR"}]');
