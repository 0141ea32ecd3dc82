-- Two models' metadata side by side, from a to b: keys added (only in b), removed (only in a) and changed (type or value; arrays by content hash, their values shown up to 64 elements). Params: :a, :b (id, name or location).
-- @param a model required
-- @param b model required
-- modelcat binds :a and :b to the model_ids the references resolve to; in sqlite3: .param set :a 3
-- A key several files of a model hold (a split model's shards) is read from its first shard.
WITH a AS (SELECT m.key, m.value_type, m.value, m.array_type, m.array_length, m.array_hash, min(f.shard)
             FROM files f JOIN metadata m USING (file_id) WHERE f.model_id = :a GROUP BY m.key),
     b AS (SELECT m.key, m.value_type, m.value, m.array_type, m.array_length, m.array_hash, min(f.shard)
             FROM files f JOIN metadata m USING (file_id) WHERE f.model_id = :b GROUP BY m.key)
SELECT coalesce(a.key, b.key) AS key,
       CASE WHEN a.key IS NULL THEN 'added' WHEN b.key IS NULL THEN 'removed' ELSE 'changed' END AS change,
       a.value_type AS a_type, b.value_type AS b_type,
       iif(a.value_type = 'array', 'array<' || a.array_type || '>[' || a.array_length || '] ' || coalesce(a.value, 'hash ' || a.array_hash), a.value) AS a_value,
       iif(b.value_type = 'array', 'array<' || b.array_type || '>[' || b.array_length || '] ' || coalesce(b.value, 'hash ' || b.array_hash), b.value) AS b_value
  FROM a FULL OUTER JOIN b ON a.key = b.key
 WHERE a.key IS NULL OR b.key IS NULL OR a.value_type IS NOT b.value_type OR a.value IS NOT b.value OR a.array_hash IS NOT b.array_hash
 ORDER BY change, key;
