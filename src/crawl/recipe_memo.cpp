#include "crawl/recipe_memo.hpp"

#include <cstring>
#include <mutex>
#include <unordered_map>
#include <variant>

namespace modelcat::crawl {

namespace {

constexpr size_t kMaxRemembered = 4096;

// The keys model_desc and infer_recipe (its why included) read the values of (any architecture's, whatever it
// is). Of quantize.imatrix.* they read only whether there is one: a value (its file's path) would make
// every upload's quants their own.
bool read_by_recipes(const std::string& key) {
    static constexpr const char* kSuffixes[] = {".block_count", ".expert_count", ".attention.head_count",
                                                ".attention.head_count_kv"};
    if (key == "general.architecture" || key == "general.file_type") return true;
    for (const char* s : kSuffixes)
        if (key.ends_with(s)) return true;
    return false;
}

// Length-prefixed, so that no two different inputs make one string.
void put(std::string& out, std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
}

void put_value(std::string& out, const model::MetadataValue& v) {
    out += static_cast<char>('0' + v.index());
    std::visit(
        [&](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, std::string>) put(out, x);
            else if constexpr (std::is_same_v<X, model::ArraySummary>) {
                put(out, std::to_string(static_cast<uint32_t>(x.element_type)) + "," + std::to_string(x.length) + "," +
                             std::to_string(x.byte_size) + "," + std::to_string(x.content_hash));
                put(out, x.json ? "1" + *x.json : "0");
            } else if constexpr (std::is_same_v<X, double>) {
                uint64_t bits;
                std::memcpy(&bits, &x, sizeof bits);
                put(out, std::to_string(bits));
            } else put(out, std::to_string(x));
        },
        v);
}

}  // namespace

std::string recipe_inputs(const model::FileHeader& whole) {
    std::string out(1, static_cast<char>('0' + static_cast<int>(whole.format)));
    bool imatrix = false;
    for (const model::MetadataEntry& e : whole.metadata) {
        imatrix = imatrix || e.key.starts_with("quantize.imatrix.");
        if (!read_by_recipes(e.key)) continue;
        put(out, e.key);
        put(out, std::to_string(static_cast<uint32_t>(e.type)));
        put_value(out, e.value);
    }
    out += imatrix ? "|imatrix|" : "|";
    for (const model::TensorInfo& t : whole.tensors) {
        put(out, t.name);
        out += t.type_id ? std::to_string(*t.type_id) : "-";
        for (uint64_t d : t.dims) out += ',' + std::to_string(d);
        out += ';';
    }
    return out;
}

model::RecipeRow remembered_recipe(const model::FileHeader& whole, const std::function<model::RecipeRow()>& compute) {
    static std::mutex mutex;
    static std::unordered_map<std::string, model::RecipeRow> rows;
    std::string key = recipe_inputs(whole);
    {
        std::lock_guard lock(mutex);
        auto it = rows.find(key);
        if (it != rows.end()) return it->second;
    }
    model::RecipeRow row = compute();
    std::lock_guard lock(mutex);
    if (rows.size() >= kMaxRemembered) rows.clear();
    rows.emplace(std::move(key), row);
    return row;
}

}  // namespace modelcat::crawl
