-- What reading the headers cost: bytes read and requests vs file size, and the share of the header held by tokenizer arrays. Params: :pattern.
SELECT m.name, m.file_bytes, m.header_bytes, r.bytes_read, r.requests,
       round(100.0 * r.bytes_read / m.file_bytes, 4) AS read_pct_of_file,
       tok.bytes AS tokenizer_array_bytes,
       round(100.0 * tok.bytes / m.header_bytes, 2) AS tokenizer_pct_of_header
  FROM models m
  JOIN (SELECT model_id, sum(bytes_read) AS bytes_read, sum(requests) AS requests FROM files GROUP BY model_id) r USING (model_id)
  LEFT JOIN (SELECT model_id, sum(array_bytes) AS bytes FROM metadata
              WHERE key GLOB 'tokenizer.*' AND array_bytes IS NOT NULL GROUP BY model_id) tok USING (model_id)
 WHERE m.name LIKE coalesce(:pattern, '%')
 ORDER BY m.name;
