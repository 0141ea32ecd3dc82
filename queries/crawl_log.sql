-- Every crawl: when, how long, files new/changed/unchanged/gone/failed, bytes and requests. Params: :limit (default 20).
-- @param limit integer
-- @table crawl_id started_at seconds files_new=new files_changed=changed files_unchanged=unchanged files_gone=gone files_failed=failed tensors bytes_read requests
SELECT crawl_id, started_at, coalesce(finished_at, '(killed or running)') AS finished_at, round(seconds, 2) AS seconds,
       files_new, files_changed, files_unchanged, files_gone, files_failed, tensors, bytes_read, requests
  FROM crawls
 ORDER BY crawl_id DESC
 LIMIT coalesce(:limit, 20);
