-- What changed between two crawls: new, changed (re-quantized when the policy differs), failed and gone. Params: :from, :to (crawl ids; default the last crawl only).
-- @param from integer
-- @param to integer
-- @table crawl_id event detail location file_bytes_before=before file_bytes_after=after census_after=census message
SELECT e.crawl_id, e.event,
       CASE WHEN e.event = 'changed' AND e.policy_before IS NOT e.policy_after THEN 're-quantized'
            WHEN e.event = 'changed' THEN 'rewritten, same policy' END AS detail,
       e.location, e.file_bytes_before, e.file_bytes_after, e.census_before, e.census_after, e.message
  FROM model_events e
 WHERE e.crawl_id > coalesce(:from, (SELECT max(crawl_id) - 1 FROM crawls))
   AND e.crawl_id <= coalesce(:to, (SELECT max(crawl_id) FROM crawls))
 ORDER BY e.crawl_id, e.event, e.location;
