-- Inputs that failed, with byte offset and reason. Params: :crawl (crawl_id, default the latest crawl).
-- @param crawl integer
SELECT e.crawl_id, e.location, e.offset, e.message
  FROM errors e
 WHERE e.crawl_id = coalesce(:crawl, (SELECT max(crawl_id) FROM crawls))
 ORDER BY e.error_id;
