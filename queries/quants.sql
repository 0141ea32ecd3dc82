-- The quant table: file bytes, GiB, file_type, params, measured bits/weight, census. Params: :pattern (LIKE on name; without %: the names containing it), :kind (LIKE on kind, default model).
-- @param pattern like
-- @table name location file_bytes=size file_type_name=file_type params bits_per_weight=bpw census
SELECT q.name, q.file_bytes, round(q.file_bytes / 1073741824.0, 2) AS gib, q.file_type, f.name AS file_type_name,
       q.params, round(q.bits_per_weight, 4) AS bits_per_weight, q.census, q.location
  FROM quant_summary q
  LEFT JOIN file_type_names f ON f.file_type = q.file_type
 WHERE q.name LIKE coalesce(:pattern, '%') AND q.kind LIKE coalesce(:kind, 'model')
 ORDER BY q.format, q.file_bytes;
