#pragma once
// What an audit finds is recorded as the catalogue's audit rows (catalog/audit_rows.hpp).
#include "catalog/audit_rows.hpp"

namespace modelcat::audit {

using catalog::AuditResult;
using catalog::is_failure;
using catalog::TensorResult;
using catalog::Verdict;
using catalog::verdict_name;

}  // namespace modelcat::audit
