-- What reading the headers cost: bytes read and requests vs file size, and the share of the header held by tokenizer arrays. Params: :pattern (LIKE on name; without %: the names containing it).
-- @param pattern like
-- Per model, the sums look up its files (files_model) and their tokenizer.* keys (metadata's key, file_id and key): no scan of all metadata.
-- Models in name order (models_name): the rows stream, the first at once.
WITH per_model AS (
    SELECT m.name, m.file_bytes, m.header_bytes,
           (SELECT sum(f.bytes_read) FROM files f WHERE f.model_id = m.model_id) AS bytes_read,
           (SELECT sum(f.requests) FROM files f WHERE f.model_id = m.model_id) AS requests,
           (SELECT sum(md.array_bytes) FROM files f JOIN metadata md ON md.file_id = f.file_id
             WHERE f.model_id = m.model_id AND md.key GLOB 'tokenizer.*') AS tok
      FROM models m
     WHERE m.name LIKE coalesce(:pattern, '%'))
SELECT name, file_bytes, header_bytes, bytes_read, requests,
       round(100.0 * bytes_read / file_bytes, 4) AS read_pct_of_file,
       tok AS tokenizer_array_bytes,
       round(100.0 * tok / header_bytes, 2) AS tokenizer_pct_of_header
  FROM per_model
 ORDER BY name;
