-- Brings a schema-10 catalogue to 11: one name, one meaning. files.kv_count held the header's
-- declared count while models.kv_count holds distinct keys: the file's column now says what it
-- is (and the duplicates view's count became location_count).
ALTER TABLE files RENAME COLUMN kv_count TO declared_kv_count;
