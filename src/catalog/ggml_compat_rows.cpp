#include "catalog/ggml_compat_rows.hpp"

#include <SQLiteCpp/Statement.h>

#include "format/ggml_compat.hpp"

namespace modelcat::catalog {

void write_ggml_refusals(SQLite::Database& db, int64_t model_id, int64_t file_id, const format::FileHeader& h) {
    if (h.format != format::Format::gguf) return;
    const std::vector<format::GgmlRefusal> refusals = format::ggml_refusals(h);
    SQLite::Statement count(db, "UPDATE files SET ggml_refusals = ? WHERE file_id = ?");
    count.bind(1, static_cast<int64_t>(refusals.size()));
    count.bind(2, file_id);
    count.exec();
    SQLite::Statement ins(db, "INSERT INTO ggml_refusals (file_id, model_id, seq, \"check\", reason) VALUES (?,?,?,?,?)");
    for (size_t i = 0; i < refusals.size(); ++i) {
        ins.bind(1, file_id);
        ins.bind(2, model_id);
        ins.bind(3, static_cast<int64_t>(i));
        ins.bind(4, refusals[i].check);
        ins.bind(5, refusals[i].reason);
        ins.exec();
        ins.reset();
    }
}

}  // namespace modelcat::catalog
