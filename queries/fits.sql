-- Which quants run in a GPU's memory at a context: per model the total llama.cpp allocates (the memory report's figures, less the CPU's repacked copy), whether it fits wholly in vram, how many repeating layers fit when it does not (the rest, with their KV cache, in ram), and the largest context that fits wholly (up to the trained one, or ctx); largest bits per weight that fits first. Params: :vram (required: bytes, or with KiB/MiB/GiB/TiB or KB/MB/GB/TB), :margin (the same, kept free of vram; default the larger of 512 MiB and 5 % of vram), :ram (the same; default unlimited), :ctx (default 4096; 0: the trained context), :cache, :batch, :ubatch, :flash, :swa_full (as the memory report), :pattern (LIKE on name; without %: the names containing it), :kind (LIKE on kind, default model).
-- @param ctx integer
-- @param batch integer
-- @param ubatch integer
-- @param swa_full integer
-- @param vram required
-- @param pattern like
-- @table name location file_type_name=file_type bits_per_weight=bpw total_bytes=total fits gpu_layers ram_bytes=ram max_ctx
WITH sizes AS (SELECT 'vram' AS what, CAST(:vram AS TEXT) AS txt UNION ALL SELECT 'ram', CAST(:ram AS TEXT)
                UNION ALL SELECT 'margin', CAST(:margin AS TEXT)),
     parsed AS (SELECT what, CAST(CAST(rtrim(txt, 'KMGTkmgtIiBb') AS REAL) *
                       CASE upper(substr(txt, length(rtrim(txt, 'KMGTkmgtIiBb')) + 1))
                            WHEN '' THEN 1 WHEN 'B' THEN 1 WHEN 'K' THEN 1024 WHEN 'KIB' THEN 1024 WHEN 'KB' THEN 1000
                            WHEN 'M' THEN 1048576 WHEN 'MIB' THEN 1048576 WHEN 'MB' THEN 1000000
                            WHEN 'G' THEN 1073741824 WHEN 'GIB' THEN 1073741824 WHEN 'GB' THEN 1000000000
                            WHEN 'T' THEN 1099511627776 WHEN 'TIB' THEN 1099511627776 WHEN 'TB' THEN 1000000000000 END AS INTEGER) AS bytes
                  FROM sizes WHERE txt IS NOT NULL),
     s AS (SELECT coalesce(:ctx, 4096) AS ctx, coalesce(:cache, 'f16') AS cache, coalesce(:batch, 2048) AS batch,
                  coalesce(:ubatch, 512) AS ubatch, coalesce(:flash, 'auto') <> 'off' AS flash, coalesce(:swa_full, 0) AS swa_full,
                  (SELECT bytes FROM parsed WHERE what = 'ram') AS ram,
                  -- what the GPU's driver and the compute estimate's error may take (docs/memory.md)
                  (SELECT bytes FROM parsed WHERE what = 'vram') - coalesce((SELECT bytes FROM parsed WHERE what = 'margin'),
                      max(536870912, (SELECT bytes FROM parsed WHERE what = 'vram') / 20)) AS vram),
     -- one model of each shape among those asked for (memory_terms.shape_key: models of one shape, a family's quants,
     -- have equal context-dependent figures), whose figures are computed once; every shape when none is asked for
     shapes AS MATERIALIZED (
         SELECT t.shape_key AS shape, min(t.model_id) AS model_id FROM memory_terms t
          WHERE t.basis = 'modelled' AND (:kind IS NULL AND :pattern IS NULL OR t.model_id IN
                (SELECT model_id FROM models WHERE kind LIKE coalesce(:kind, 'model') AND name LIKE coalesce(:pattern, '%')))
          GROUP BY 1),
     shape_terms AS MATERIALIZED (SELECT h.shape, t.* FROM shapes h JOIN memory_terms t ON t.model_id = h.model_id),
     -- the contexts a person picks, and the trained one, each evaluated as the memory report would; per shape: the one
     -- asked for, the picks below the trained one, the trained one, each once (UNION ALL: no sort to drop repeats)
     candidates(c) AS (VALUES (512), (1024), (2048), (4096), (8192), (12288), (16384), (24576), (32768), (49152), (65536),
                              (98304), (131072), (196608), (262144), (393216), (524288), (786432), (1048576)),
     w AS (SELECT shape, model_id, iif(s.ctx = 0, ctx_train, s.ctx) AS ctx FROM shape_terms, s
           UNION ALL SELECT shape, model_id, c FROM shape_terms, candidates, s
                      WHERE c < ctx_train AND c IS NOT iif(s.ctx = 0, ctx_train, s.ctx)
           UNION ALL SELECT shape, model_id, ctx_train FROM shape_terms, s WHERE ctx_train > 0 AND s.ctx NOT IN (0, ctx_train)),
     -- the figures of each (shape, context) of w, as src/format/memory_figures.cpp computes them (tests hold the two equal)
     p AS (SELECT w.shape, w.model_id, w.ctx, (w.ctx + 255) / 256 * 256 AS n_ctx, min(w.ctx, s.batch, s.ubatch) AS tok, s.cache,
                  s.flash, s.swa_full, s.ctx AS asked_ctx,
                  CASE s.cache WHEN 'f16' THEN 64 WHEN 'q8_0' THEN 34 WHEN 'q4_0' THEN 18 END AS per_32  -- bytes of 32 elements
             FROM w CROSS JOIN s),
     -- each cache's cells: the context rounded up to 256, a sliding one the window and a micro-batch (none without a cache)
     cells AS NOT MATERIALIZED (
         SELECT p.*, c.k_elements, iif(p.flash, c.v_elements, c.v_padded_elements) AS v_elements,
                CASE WHEN c.model_id IS NULL THEN NULL
                     WHEN c.kind = 'sliding' AND NOT p.swa_full THEN min(p.n_ctx, (c.window + p.tok + 255) / 256 * 256) ELSE p.n_ctx END AS cells
           FROM p LEFT JOIN memory_caches c ON c.model_id = p.model_id),
     -- per (shape, context): its caches summed, and the compute buffer
     figures AS MATERIALIZED (
         SELECT x.shape, x.ctx, x.ctx = iif(x.asked_ctx = 0, t.ctx_train, x.asked_ctx) AS chosen,
                iif(x.per_32 IS NULL OR (x.cache <> 'f16' AND (NOT x.flash OR NOT t.whole_blocks)), NULL,
                    coalesce(sum((x.k_elements * x.per_32 / 32 + x.v_elements * x.per_32 / 32) * x.cells), 0)) AS kv_bytes,
                max(t.logits_per_token * x.tok,
                    coalesce(sum(x.cells * ((x.tok + 63) / 64 * 64) * iif(x.flash, 2, 4)), 0)  -- GGML_KQ_MASK_PAD; f16 with flash attention
                    + max(t.scores_per_token_cell * coalesce(iif(x.flash, 0, max(x.cells)), 0) * x.tok + t.attention_per_token * x.tok,
                          t.layer_per_token * x.tok)) AS compute_bytes
           FROM cells x JOIN memory_terms t ON t.model_id = x.model_id
          GROUP BY x.shape, x.ctx),
     -- a projector beside it in its store (view model_projectors), loaded with it
     projectors AS MATERIALIZED (SELECT model_id, sum(projector_bytes) AS projector_bytes FROM model_projectors GROUP BY model_id),
     -- per model: what does not grow with the context (on a GPU: the memory report's total without repack_bytes, the CPU
     -- backend's second copy; a GPU repacks nothing), and its shape's figures at the context asked for
     r AS NOT MATERIALIZED (
         SELECT q.model_id, q.name, q.location, q.bits_per_weight, q.file_type_name, t.basis, t.reason, t.ctx_train, t.n_layer,
                t.layer_weight_bytes_max, iif(s.ctx = 0, t.ctx_train, s.ctx) AS ctx, s.vram, s.ram, c.shape, c.kv_bytes,
                c.compute_bytes, c.compute_bytes + t.output_bytes AS fixed_bytes,
                t.weights_bytes + t.recurrent_bytes + t.output_bytes + coalesce(j.projector_bytes, 0) AS base_bytes
           FROM quant_summary q CROSS JOIN s LEFT JOIN memory_terms t ON t.model_id = q.model_id
           LEFT JOIN figures c ON c.shape = t.shape_key AND c.chosen
           LEFT JOIN projectors j ON j.model_id = q.model_id
          WHERE q.kind LIKE coalesce(:kind, 'model') AND q.name LIKE coalesce(:pattern, '%')),
     totals AS NOT MATERIALIZED (SELECT r.*, r.base_bytes + r.kv_bytes + r.compute_bytes AS total_bytes FROM r),
     -- whether it fits wholly; if not, how many layers do (the compute and output buffers, then whole layers with their
     -- share of the KV cache); the largest context that fits wholly
     fit AS NOT MATERIALIZED (
         SELECT t.*, t.total_bytes <= t.vram AS fits,
                max(0, min(t.n_layer, (t.vram - t.fixed_bytes) / (t.layer_weight_bytes_max + (t.kv_bytes + t.n_layer - 1) / t.n_layer))) AS layers_fit,
                (SELECT max(g.ctx) FROM figures g WHERE g.shape = t.shape AND t.base_bytes + g.kv_bytes + g.compute_bytes <= t.vram) AS max_ctx
           FROM totals t),
     -- the models that fit, largest rate first (the index models_rate: they stream), then the others, those that do not
     -- fit before those without figures
     ordered AS NOT MATERIALIZED (
         SELECT * FROM (SELECT * FROM fit WHERE fits IS 1 ORDER BY bits_per_weight DESC, name, model_id)
         UNION ALL SELECT * FROM (SELECT * FROM fit WHERE fits IS NOT 1 ORDER BY fits DESC, bits_per_weight DESC, name, model_id))
SELECT model_id, name, file_type_name, round(bits_per_weight, 4) AS bits_per_weight, ctx, total_bytes,
       round(total_bytes / 1073741824.0, 2) AS total_gib, fits, iif(fits, n_layer, layers_fit) AS gpu_layers, n_layer,
       iif(fits, 0, total_bytes - fixed_bytes - layers_fit * (layer_weight_bytes_max + (kv_bytes + n_layer - 1) / n_layer)) AS ram_bytes,
       iif(fits OR ram IS NULL, NULL, total_bytes - fixed_bytes - layers_fit * (layer_weight_bytes_max + (kv_bytes + n_layer - 1) / n_layer) <= ram) AS fits_ram,
       max_ctx, coalesce(basis, 'not_modelled') AS basis,
       CASE WHEN basis IS NULL THEN 'no memory terms yet: the next crawl reads the file again'
            WHEN basis = 'not_modelled' THEN reason
            WHEN total_bytes IS NULL THEN 'no figures at these settings (see the memory report''s note)' END AS note,
       location
  FROM ordered;
