-- One model's promoted tensors: those not of its majority type (F32 excluded), by type and kind, with their layers. Params: :model (id, name or location).
SELECT majority_type, type_id, type_name, tensor_kind, tensors, layers
  FROM policy_deviations
 WHERE model_id = (SELECT model_id FROM model_refs WHERE ref = CAST(:model AS TEXT) ORDER BY model_id DESC LIMIT 1)
 ORDER BY type_id, type_name, tensor_kind;
