-- A conversion audit's metadata rows: each GGUF key against its source in the checkpoint's files, failures and warnings first. Params: :audit (audit_id, default the latest).
-- @param audit integer
SELECT key, source_path AS source, coalesce(gguf_value, '-') AS gguf, coalesce(source_value, '-') AS checkpoint,
       verdict || iif(effect = 'ok', '', ' (' || effect || ')') AS verdict
  FROM audit_metadata
 WHERE audit_id = coalesce(:audit, (SELECT max(audit_id) FROM audits))
 ORDER BY CASE effect WHEN 'fail' THEN 0 WHEN 'warn' THEN 1 ELSE 2 END, rowid;
