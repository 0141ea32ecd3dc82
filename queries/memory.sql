-- What llama.cpp allocates to run each model on its CPU backend, exact bytes (docs/memory.md): ctx and the trained context (over_train 1 when ctx exceeds it), the weights as mapped and as repacked, the KV cache, the recurrent state, the output and compute buffers and their total; basis modelled or not_modelled (note says why, or which setting llama.cpp refuses). Params: :ctx (tokens, default 4096; 0: the trained context), :cache (f16, q8_0 or q4_0, K and V alike; default f16), :batch (default 2048), :ubatch (default 512), :flash (auto, on or off; default auto, which the CPU backend turns on), :swa_full (0 or 1; default 0), :model (id, name or location; default every model), :kind (LIKE on kind, default model).
-- @param model model
-- in sqlite3: .param set :ctx 32768 (and the others), then .read queries/memory.sql
WITH s AS (SELECT coalesce(:ctx, 4096) AS ctx, coalesce(:cache, 'f16') AS cache, coalesce(:batch, 2048) AS batch,
                  coalesce(:ubatch, 512) AS ubatch, coalesce(:flash, 'auto') AS flash, coalesce(:swa_full, 0) AS swa_full),
     r AS (SELECT m.model_id, m.name, t.basis, t.reason, t.ctx_train, iif(s.ctx = 0, t.ctx_train, s.ctx) AS ctx,
                  s.cache, s.batch, s.ubatch, s.flash <> 'off' AS flash, s.swa_full
             FROM models m CROSS JOIN s LEFT JOIN memory_terms t ON t.model_id = m.model_id
            WHERE m.kind LIKE coalesce(:kind, 'model') AND (:model IS NULL OR m.model_id = :model)),
     -- an inner join, which SQLite flattens into the view (a LEFT JOIN would make it build the whole view)
     fig AS MATERIALIZED (SELECT r.model_id, f.weights_bytes, f.repack_bytes, f.kv_bytes, f.recurrent_bytes, f.output_bytes, f.compute_bytes,
                    f.weights_bytes + f.repack_bytes + f.kv_bytes + f.recurrent_bytes + f.output_bytes + f.compute_bytes AS total_bytes
               FROM r JOIN memory_figures f
                 ON f.model_id = r.model_id AND f.n_ctx = (r.ctx + 255) / 256 * 256 AND f.n_ubatch = min(r.ctx, r.batch, r.ubatch)
                AND f.cache = r.cache AND f.flash = r.flash AND f.swa_full = r.swa_full)
SELECT model_id, name, ctx, ctx_train, ctx > ctx_train AND ctx_train > 0 AS over_train, cache, iif(flash, 'on', 'off') AS flash,
       weights_bytes, repack_bytes, kv_bytes, recurrent_bytes, output_bytes, compute_bytes, total_bytes,
       round(kv_bytes / 1048576.0, 2) AS kv_mib, round(total_bytes / 1073741824.0, 2) AS total_gib,
       coalesce(basis, 'not_modelled') AS basis,
       CASE WHEN basis IS NULL THEN 'no memory terms yet: the next crawl reads the file again'
            WHEN basis = 'not_modelled' THEN reason
            WHEN cache NOT IN ('f16', 'q8_0', 'q4_0') THEN 'cache must be f16, q8_0 or q4_0'
            WHEN cache <> 'f16' AND NOT flash THEN 'quantized V cache was requested, but this requires Flash Attention'
            WHEN total_bytes IS NULL AND cache <> 'f16' THEN 'a ' || cache || ' cache needs rows of whole blocks'
            WHEN total_bytes IS NULL THEN 'outside the settings memory_figures spans (contexts up to 1048576, micro-batches up to 8192)'
       END AS note
  FROM r LEFT JOIN fig USING (model_id)
 ORDER BY name, model_id;
