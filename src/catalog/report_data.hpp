#pragma once
// What the HTML report shows, read from a catalogue through its views and
// tables (quant_summary, tensors, model_majority_type, ggml_types,
// same_file_type_different_policy): one query for the selection, one per model.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace modelcat::catalog {

struct ReportTensor {
    std::string name, kind, type, dims;  // dims: the catalogue's JSON text, file order
    std::optional<int64_t> layer;
    int64_t elements = 0, bytes = 0;
};

struct ReportModel {
    int64_t id = 0;
    std::string name, location, format, architecture, file_type_name, census, majority_type, policy_hash;
    std::string model_kind;  // models.kind when it is not "model" (mmproj, adapter, imatrix, vocab, unknown); else empty
    std::string recipe, recipe_why;  // recipes.recipe and .why; empty when the model has no recipes row
    std::optional<int64_t> file_type, file_bytes, params;
    std::optional<double> bits_per_weight;
    std::vector<ReportTensor> tensors;  // empty for models of other kinds (listed, not mapped)
};

// A same_file_type_different_policy group, restricted to the selected models: kept only while they
// still hold two or more policies.
struct ReportGroup {
    std::string architecture, file_type_name;
    std::vector<size_t> members;  // indexes into ReportData::models
};

// A ggml type as the catalogue's table has it.
struct ReportType {
    std::string name;
    int64_t id = 0;
    double bits_per_weight = 0;
};

// The catalogue's newest crawl (crawls' last row); finished_at empty while it runs or if it was killed.
struct ReportCrawl {
    int64_t id = 0;
    std::string started_at, finished_at;
};

struct ReportData {
    std::vector<ReportModel> models;
    std::vector<ReportGroup> groups;
    std::vector<ReportType> ggml_types;  // ordered by bits per weight, then id: the palette order
    std::optional<ReportCrawl> last_crawl;  // none in a catalogue never crawled
};

struct ReportSelection {
    std::optional<std::string> pattern;  // LIKE on the name (catalog::like_pattern); one that matches no model is an error
    std::vector<std::string> refs;       // model_id, name or location
    size_t max_models = 0;               // more selected than this is an error
};

// Throws std::runtime_error for an unknown ref, a pattern that matches no model, or a selection over the cap.
ReportData load_report_data(SQLite::Database& db, const ReportSelection& selection);

}  // namespace modelcat::catalog
