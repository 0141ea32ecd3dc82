-- What llama.cpp allocates to run each model on its CPU backend, exact bytes (docs/memory.md): ctx and the trained context (over_train 1 when ctx exceeds it), the weights as mapped and as repacked, the KV cache, the recurrent state, the output and compute buffers, a multimodal projector found beside it in its store (its weights), and their total; basis modelled or not_modelled (note says why, or which setting llama.cpp refuses). Params: :ctx (tokens, default 4096; 0: the trained context), :cache (f16, q8_0 or q4_0, K and V alike; default f16), :batch (default 2048), :ubatch (default 512), :flash (auto, on or off; default auto, which the CPU backend turns on), :swa_full (0 or 1; default 0), :model (id, name or location; default every model), :kind (LIKE on kind, default model).
-- @param ctx integer
-- @param batch integer
-- @param ubatch integer
-- @param swa_full integer
-- @param model model
-- @table name location ctx weights_bytes=weights kv_bytes=kv compute_bytes=compute total_bytes=total basis note
-- in sqlite3: .param set :ctx 32768 (and the others), then .read queries/memory.sql
-- The KV cache and compute buffer are computed once per shape (memory_terms.shape_key), then every model is read in
-- name order (models_name) with its shape's: the rows stream.
WITH s AS (SELECT coalesce(:ctx, 4096) AS ctx, coalesce(:cache, 'f16') AS cache, coalesce(:batch, 2048) AS batch,
                  coalesce(:ubatch, 512) AS ubatch, coalesce(:flash, 'auto') <> 'off' AS flash, coalesce(:swa_full, 0) AS swa_full),
     chosen AS NOT MATERIALIZED (SELECT m.* FROM models m WHERE m.kind LIKE coalesce(:kind, 'model') AND (:model IS NULL OR m.model_id = :model)),
     -- one model of each shape among those chosen (every shape when none is asked for: no pass over models)
     shapes AS (SELECT t.shape_key AS shape, min(t.model_id) AS model_id FROM memory_terms t
                 WHERE t.basis = 'modelled' AND (:kind IS NULL AND :model IS NULL OR t.model_id IN (SELECT model_id FROM chosen))
                 GROUP BY 1),
     -- the figures of each shape, as src/format/memory_figures.cpp computes them (tests hold the two equal)
     w AS (SELECT h.shape, h.model_id, iif(s.ctx = 0, t.ctx_train, s.ctx) AS ctx FROM shapes h JOIN memory_terms t ON t.model_id = h.model_id, s),
     p AS (SELECT w.shape, w.model_id, w.ctx, (w.ctx + 255) / 256 * 256 AS n_ctx, min(w.ctx, s.batch, s.ubatch) AS tok, s.cache, s.flash,
                  s.swa_full, CASE s.cache WHEN 'f16' THEN 64 WHEN 'q8_0' THEN 34 WHEN 'q4_0' THEN 18 END AS per_32  -- bytes of 32 elements
             FROM w CROSS JOIN s),
     -- each cache's cells: the context rounded up to 256, a sliding one the window and a micro-batch
     cells AS (SELECT p.shape, c.k_elements, iif(p.flash, c.v_elements, c.v_padded_elements) AS v_elements, p.per_32, p.tok, p.flash,
                      iif(c.kind = 'sliding' AND NOT p.swa_full, min(p.n_ctx, (c.window + p.tok + 255) / 256 * 256), p.n_ctx) AS cells
                 FROM p JOIN memory_caches c ON c.model_id = p.model_id),
     caches AS (SELECT shape, sum((k_elements * per_32 / 32 + v_elements * per_32 / 32) * cells) AS kv_bytes,
                       sum(cells * ((tok + 63) / 64 * 64) * iif(flash, 2, 4)) AS masks,  -- GGML_KQ_MASK_PAD; f16 with flash attention
                       iif(flash, 0, max(cells)) AS score_cells
                  FROM cells GROUP BY shape),
     shape_figures AS MATERIALIZED (
         SELECT p.shape,
                iif(p.per_32 IS NULL OR (p.cache <> 'f16' AND (NOT p.flash OR NOT t.whole_blocks)), NULL, coalesce(k.kv_bytes, 0)) AS kv_bytes,
                max(t.logits_per_token * p.tok, coalesce(k.masks, 0) + max(t.scores_per_token_cell * coalesce(k.score_cells, 0) * p.tok +
                    t.attention_per_token * p.tok, t.layer_per_token * p.tok)) AS compute_bytes
           FROM p JOIN memory_terms t ON t.model_id = p.model_id LEFT JOIN caches k ON k.shape = p.shape),
     -- a projector beside it in its store (view model_projectors), loaded with it
     projectors AS MATERIALIZED (SELECT model_id, sum(projector_bytes) AS projector_bytes FROM model_projectors GROUP BY model_id),
     r AS (SELECT m.model_id, m.name, m.location, t.basis, t.reason, t.ctx_train, iif(s.ctx = 0, t.ctx_train, s.ctx) AS ctx, s.cache, s.flash,
                  iif(t.basis = 'modelled', coalesce(j.projector_bytes, 0), NULL) AS projector_bytes,
                  t.weights_bytes, t.repack_bytes, t.recurrent_bytes, t.output_bytes, f.kv_bytes, f.compute_bytes
             FROM chosen m CROSS JOIN s LEFT JOIN memory_terms t ON t.model_id = m.model_id
             LEFT JOIN shape_figures f ON f.shape = t.shape_key
             LEFT JOIN projectors j ON j.model_id = m.model_id),
     total AS (SELECT r.*, weights_bytes + repack_bytes + kv_bytes + recurrent_bytes + output_bytes + compute_bytes + projector_bytes AS total_bytes
                 FROM r)
SELECT model_id, name, ctx, ctx_train, ctx > ctx_train AND ctx_train > 0 AS over_train, cache, iif(flash, 'on', 'off') AS flash,
       weights_bytes, repack_bytes, kv_bytes, recurrent_bytes, output_bytes, iif(kv_bytes IS NULL, NULL, compute_bytes) AS compute_bytes,
       projector_bytes,
       total_bytes, round(kv_bytes / 1048576.0, 2) AS kv_mib, round(total_bytes / 1073741824.0, 2) AS total_gib,
       coalesce(basis, 'not_modelled') AS basis,
       CASE WHEN basis IS NULL THEN 'no memory terms yet: the next crawl reads the file again'
            WHEN basis = 'not_modelled' THEN reason
            WHEN cache NOT IN ('f16', 'q8_0', 'q4_0') THEN 'cache must be f16, q8_0 or q4_0'
            WHEN cache <> 'f16' AND NOT flash THEN 'quantized V cache was requested, but this requires Flash Attention'
            WHEN total_bytes IS NULL THEN 'a ' || cache || ' cache needs rows of whole blocks'
       END AS note,
       location
  FROM total
 ORDER BY name, model_id;
