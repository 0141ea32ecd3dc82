-- One model's promoted tensors: those not of its majority type (F32 excluded), by type and kind, with their layers. Params: :model (id, name or location).
-- @param model model required
-- modelcat binds :model to the model_id the reference resolves to; in sqlite3: .param set :model 3
SELECT majority_type, type_id, type_name, tensor_kind, tensors, layers
  FROM policy_deviations
 WHERE model_id = :model
 ORDER BY type_id, type_name, tensor_kind;
