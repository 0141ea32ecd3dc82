-- Every catalogued model: kind, size, measured bits per weight, type census. Params: :pattern (LIKE on name; without %: the names containing it; default all), :kind (LIKE on kind, default model: projectors, adapters, imatrix and vocab files need -p kind=%).
-- @param pattern like
-- @table name location file_type_name=file_type file_bytes=size params bits_per_weight=bpw census
SELECT name, format, kind, architecture, file_type, file_type_name, file_bytes,
       round(file_bytes / 1073741824.0, 2) AS gib,
       params, round(bits_per_weight, 4) AS bits_per_weight, tensor_count, kv_count, census, location
  FROM quant_summary
 WHERE name LIKE coalesce(:pattern, '%') AND kind LIKE coalesce(:kind, 'model')
 ORDER BY format, name;
