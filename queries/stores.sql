-- Every name the crawled stores give their models: store, name, role, the model's kind, architecture, file_type and size, and whether the name is still there (or its model failed: not catalogued). Params: :store (hf_cache, ollama or lmstudio; default all), :pattern (LIKE on the name; without %: the names containing it).
-- @param pattern like
SELECT s.store, s.name, s.role, m.kind, m.architecture, f.name AS file_type_name, m.file_bytes, s.refs,
       iif(s.status = 'ok' AND s.model_id IS NULL, 'not catalogued', s.status) AS status
  FROM store_names s
  LEFT JOIN models m ON m.model_id = s.model_id
  LEFT JOIN file_type_names f ON f.file_type = m.file_type
 WHERE s.store LIKE coalesce(:store, '%') AND s.name LIKE coalesce(:pattern, '%')
 ORDER BY s.store, s.name, s.role;
