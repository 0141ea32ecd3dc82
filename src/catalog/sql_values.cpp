#include "catalog/sql_values.hpp"

#include "catalog/batch_insert.hpp"

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace modelcat::catalog {

template <typename Binder>
void bind_metadata_value(Binder& st, Param name, const model::MetadataValue& v) {
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, uint64_t>) {
                // SQLite integers are signed 64-bit; larger values are kept exactly as text
                if (x > static_cast<uint64_t>(INT64_MAX)) st.bind(name, std::to_string(x));
                else st.bind(name, static_cast<int64_t>(x));
            } else if constexpr (std::is_same_v<T, bool>) {
                st.bind(name, x ? 1 : 0);
            } else if constexpr (std::is_same_v<T, model::ArraySummary>) {
                st.bind(name, x.json);
            } else if constexpr (std::is_same_v<T, double>) {
                // SQLite has no NaN (binding one stores NULL): the documented convention is the text 'NaN'
                if (std::isnan(x)) st.bind(name, "NaN");
                else st.bind(name, x);
            } else {
                st.bind(name, x);
            }
        },
        v);
}

template void bind_metadata_value(NamedStatement&, Param, const model::MetadataValue&);
template void bind_metadata_value(BatchInsert::Row&, Param, const model::MetadataValue&);

}  // namespace modelcat::catalog
