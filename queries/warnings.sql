-- What was accepted but flagged (duplicate keys, size mismatches, unknown types). Params: :pattern (LIKE on location; without %: the locations containing it).
-- @param pattern like
SELECT w.location, w.offset, w.message
  FROM warnings w
 WHERE w.location LIKE coalesce(:pattern, '%')
 ORDER BY w.location, w.offset;
