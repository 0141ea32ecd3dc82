#include "model/file_types.hpp"

#include <algorithm>
#include <array>

namespace modelcat::model {

namespace {

constexpr std::string_view tool_name_of(std::string_view name) {
    return name.substr(name.starts_with("ALL_") ? 4 : 7);  // ALL_F32 -> F32, MOSTLY_Q4_K_M -> Q4_K_M
}

constexpr std::array kNames{
#define QUANT_FILE_TYPE(id, name, default_type) FileTypeName{id, #name, false},
#define FILE_TYPE(id, name, removed) FileTypeName{id, #name, removed != 0},
#include "model/file_types.def"
#undef FILE_TYPE
#undef QUANT_FILE_TYPE
};
static_assert(std::is_sorted(kNames.begin(), kNames.end(), [](const auto& a, const auto& b) { return a.id < b.id; }));

constexpr std::array kQuantizeTypes{
#define QUANT_FILE_TYPE(id, name, default_type) FileTypeInfo{FileType::name, #name, tool_name_of(#name), GgmlTypeId::default_type},
#define FILE_TYPE(id, name, removed)
#include "model/file_types.def"
#undef FILE_TYPE
#undef QUANT_FILE_TYPE
};

}  // namespace

std::span<const FileTypeName> file_type_names() { return kNames; }

std::span<const FileTypeInfo> quantize_file_types() { return kQuantizeTypes; }

const FileTypeInfo* find_file_type(uint32_t id) {
    for (const FileTypeInfo& f : kQuantizeTypes)
        if (static_cast<uint32_t>(f.id) == id) return &f;
    return nullptr;
}

const FileTypeInfo& file_type_info(FileType t) { return *find_file_type(static_cast<uint32_t>(t)); }

}  // namespace modelcat::model
