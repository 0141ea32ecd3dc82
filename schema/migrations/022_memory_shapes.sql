-- Brings a catalogue to 22 (from 21): memory_terms.shape_hash, what the memory and fits reports
-- compute the KV cache and compute buffer once per shape by. Written by the crawl; NULL for the rows
-- already there until a crawl re-reads their files (nothing is read again for it: the reports take a
-- model without one as a shape of its own, the same figures computed once for it).
ALTER TABLE memory_terms ADD COLUMN shape_hash TEXT;
