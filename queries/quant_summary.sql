-- Every catalogued model: size, measured bits per weight, type census. Params: :pattern (LIKE on name, default all).
SELECT name, format, architecture, file_type, file_type_name, file_bytes,
       round(file_bytes / 1073741824.0, 2) AS gib,
       params, round(bits_per_weight, 4) AS bits_per_weight, tensor_count, kv_count, census
  FROM quant_summary
 WHERE name LIKE coalesce(:pattern, '%')
 ORDER BY format, name;
