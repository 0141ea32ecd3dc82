-- Brings a catalogue to 22 (from 21): memory_terms.shape_key, what the memory and fits reports compute the KV
-- cache and compute buffer once per shape by. The crawl writes a hash of the terms; here, for the rows already
-- there, the key is the JSON of the same terms (a key only has to be equal for equal terms, so nothing is read
-- again; a model re-read later gets the hash, its figures then computed once more under that key).
ALTER TABLE memory_terms ADD COLUMN shape_key TEXT;
UPDATE memory_terms
   SET shape_key = json_array(ctx_train, whole_blocks, logits_per_token, attention_per_token, scores_per_token_cell,
                              layer_per_token,
                              (SELECT json_group_array(json_array(c.kind, c.window, c.k_elements, c.v_elements,
                                                                  c.v_padded_elements))
                                 FROM (SELECT * FROM memory_caches c WHERE c.model_id = memory_terms.model_id ORDER BY c.cache) c))
 WHERE basis = 'modelled';
