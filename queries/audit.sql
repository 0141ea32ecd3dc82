-- A conversion audit's summary: source tensors accounted for, names, dimensions, q/k permutations, widened, narrowed and learned values, generated tensors. Params: :audit (audit_id, default the latest).
-- @param audit integer
WITH a AS (SELECT * FROM audits WHERE audit_id = coalesce(:audit, (SELECT max(audit_id) FROM audits))),
     t AS (SELECT * FROM audit_tensors WHERE audit_id = (SELECT audit_id FROM a)),
     pairs AS (SELECT *, verdict IN ('exact', 'within_tolerance') AS ok FROM t
                WHERE source_tensor IS NOT NULL AND gguf_tensor IS NOT NULL),
     widened AS (SELECT * FROM pairs WHERE transform LIKE '%bf16->f32' OR transform LIKE '%f16->f32'),
     narrowed AS (SELECT * FROM pairs WHERE transform LIKE '%f32->bf16' OR transform LIKE '%f32->f16' OR transform LIKE '%bf16->f16'
                     OR transform LIKE '%f16->bf16' OR transform LIKE '%f64->f32' OR transform LIKE '%f64->f16' OR transform LIKE '%f64->bf16'),
     learned AS (SELECT * FROM pairs WHERE NOT (transform LIKE '%bf16->f32' OR transform LIKE '%f16->f32') OR transform IS NULL),
     generated AS (SELECT * FROM t WHERE verdict LIKE 'generated%')
SELECT 'Source tensors accounted for' AS audit_check,
       (SELECT count(DISTINCT source_tensor) FROM pairs) || ' / ' || (SELECT source_tensors FROM a) AS result
UNION ALL
SELECT 'Tensor names mapped',
       iif(unmatched_source + unmatched_gguf = 0, 'Complete',
           unmatched_source || ' source and ' || unmatched_gguf || ' GGUF tensors unmatched') FROM a
UNION ALL
SELECT 'Dimension conventions handled',
       iif(count(*) = 0, 'Complete', count(*) || ' tensors with the wrong dimensions')
  FROM pairs WHERE verdict = 'mismatch' AND compared = 0
UNION ALL
SELECT 'Query/key row permutations applied to source',
       CASE WHEN count(*) = 0 THEN 'None (not used by this architecture)'
            WHEN sum(ok) = count(*) THEN 'Complete (' || count(*) || ' tensors)'
            ELSE (count(*) - sum(ok)) || ' of ' || count(*) || ' fail' END
  FROM pairs WHERE transform LIKE '%permute_%'
UNION ALL
SELECT 'Widened values (BF16/F16 to F32)',
       CASE WHEN count(*) = 0 THEN 'None'
            WHEN sum(verdict = 'exact') = count(*) THEN 'Exact (' || count(*) || ' tensors)'
            ELSE (count(*) - sum(verdict = 'exact')) || ' of ' || count(*) || ' differ' END
  FROM widened
UNION ALL
SELECT 'Narrowed values (F32/BF16 to BF16/F16)',
       CASE WHEN count(*) = 0 THEN 'None'
            WHEN sum(verdict = 'exact') = count(*)
            THEN 'Rounded to nearest even (' || count(*) || ' tensors, max error ' || printf('%.3g', max(max_abs_error)) || ')'
            ELSE (count(*) - sum(verdict = 'exact')) || ' of ' || count(*) || ' are not the rounded source' END
  FROM narrowed
UNION ALL
SELECT 'Learned tensor values',
       CASE WHEN sum(verdict = 'exact') = count(*) THEN 'Exact match (' || count(*) || ' tensors)'
            WHEN sum(ok) = count(*) THEN sum(verdict = 'exact') || ' exact, ' || sum(verdict = 'within_tolerance') || ' within tolerance'
            ELSE (count(*) - sum(ok)) || ' of ' || count(*) || ' fail' END
  FROM learned
UNION ALL
SELECT 'Generated tensors',
       CASE WHEN count(*) = 0 THEN 'None'
            WHEN sum(verdict = 'generated_mismatch') > 0 THEN sum(verdict = 'generated_mismatch') || ' of ' || count(*) || ' do not match config.json'
            WHEN sum(verdict = 'generated_ok') = count(*) THEN 'Checked against config.json (' || group_concat(gguf_tensor, ', ') || ')'
            ELSE sum(verdict = 'generated_unchecked') || ' generated, not checked' END
  FROM generated
UNION ALL
SELECT 'Rows compared', iif(sample_rows = 0, 'All', sample_rows || ' per tensor (sample)') FROM a
UNION ALL
SELECT 'Verdict', verdict FROM a;
