// Writes the fuzzers' seed corpus: kit-generated GGUF (v1-v3, both byte
// orders, every value type, nested arrays, one file per hostile kind) and
// safetensors files, plus the real fixtures under 64 KiB, copied verbatim.
// Usage: fuzz_make_corpus FIXTURES_DIR OUT_DIR (writes OUT_DIR/gguf, OUT_DIR/safetensors).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "kit/gguf_writer.hpp"
#include "kit/safetensors_writer.hpp"

using namespace modelcat::kit;
namespace fs = std::filesystem;

namespace {

fs::path out_dir;

void save(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(out_dir / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The whole file: header, then the tensor data as zeros.
std::vector<uint8_t> file_bytes(const GgufWriter& w) {
    std::vector<uint8_t> b = w.header();
    b.resize(w.file_size(), 0);
    return b;
}

void put(std::vector<uint8_t>& b, uint64_t at, uint64_t v, size_t width) { std::memcpy(b.data() + at, &v, width); }

// ARRAY(ARRAY, count){ARRAY(U8, elements) x count}, as the bytes after the key's type.
std::vector<uint8_t> nested_u8_arrays(uint64_t count, const std::vector<uint8_t>& elements) {
    std::vector<uint8_t> b(12);
    put(b, 0, static_cast<uint32_t>(GgufType::array), 4);
    put(b, 4, count, 8);
    for (uint64_t i = 0; i < count; ++i) {
        const size_t at = b.size();
        b.resize(at + 12);
        put(b, at, static_cast<uint32_t>(GgufType::u8), 4);
        put(b, at + 4, elements.size(), 8);
        b.insert(b.end(), elements.begin(), elements.end());
    }
    return b;
}

GgufWriter every_value_type(uint32_t version, Endian endian) {
    GgufWriter w(version, endian);
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("general.alignment", GgufValue::u32(16));
    w.set_alignment(16);
    w.add_kv("u8", GgufValue::u8(200));
    w.add_kv("i8", GgufValue::i8(-100));
    w.add_kv("u16", GgufValue::u16(60000));
    w.add_kv("i16", GgufValue::i16(-30000));
    w.add_kv("u32", GgufValue::u32(4000000000u));
    w.add_kv("i32", GgufValue::i32(-2000000000));
    w.add_kv("f32", GgufValue::f32(0.5f));
    w.add_kv("bool", GgufValue::boolean(true));
    w.add_kv("str", GgufValue::str("h\xc3\xa9llo \"w\"\n"));
    w.add_kv("u64", GgufValue::u64(~0ull));
    w.add_kv("i64", GgufValue::i64(-9000000000000000000ll));
    w.add_kv("f64", GgufValue::f64(-2.5e-300));
    w.add_kv("a.f32", GgufValue::array(GgufType::f32, {GgufValue::f32(1.5f), GgufValue::f32(-0.25f)}));
    w.add_kv("a.bool", GgufValue::array(GgufType::boolean, {GgufValue::boolean(false), GgufValue::boolean(true)}));
    w.add_kv("a.str", GgufValue::string_array({"a", "", "ccc"}));
    w.add_kv("a.nested", GgufValue::array(GgufType::array, {GgufValue::array(GgufType::u8, {GgufValue::u8(1)}),
                                                           GgufValue::array(GgufType::string, {})}));
    std::vector<std::string> tokens(70);  // past the 64-element JSON cap
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = "t" + std::to_string(i);
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(tokens));
    w.add_tensor("token_embd.weight", {256, 2}, 12);  // Q4_K
    w.add_tensor("blk.0.attn_q.weight", {64, 1}, 8);  // Q8_0
    w.add_tensor("blk.0.attn_norm.weight", {7}, 0);   // F32, padded gap
    w.add_tensor("output.weight", {32}, 77, 40);      // unknown type
    return w;
}

void gguf_seeds() {
    for (uint32_t v : {1u, 2u, 3u})
        for (Endian e : {Endian::little, Endian::big})
            save("v" + std::to_string(v) + (e == Endian::big ? "-be" : "-le") + ".gguf", file_bytes(every_value_type(v, e)));

    GgufWriter base;
    base.add_kv("general.name", GgufValue::str("abc"));
    base.add_tensor("t", {8, 4}, 0);
    const std::vector<uint8_t> good = file_bytes(base);
    const uint64_t value_len_at = base.kv_offset(0) + 8 + 12 + 4;
    const uint64_t ndims_at = base.tensor_info_offset(0) + 8 + 1;
    auto patched = [&](const std::string& name, uint64_t at, uint64_t v, size_t width) {
        std::vector<uint8_t> b = good;
        put(b, at, v, width);
        save(name, b);
    };
    patched("bad-magic.gguf", 0, 0x4c4d4747, 4);
    patched("version-0.gguf", 4, 0, 4);
    patched("version-4-swapped.gguf", 4, 0x04000000, 4);
    patched("tensor-count-bomb.gguf", 8, ~0ull, 8);
    patched("kv-count-bomb.gguf", 16, 1ull << 40, 8);
    patched("string-length-bomb.gguf", value_len_at, 1ull << 63, 8);
    patched("value-type-13.gguf", value_len_at - 4, 13, 4);
    patched("n-dims-5.gguf", ndims_at, 5, 4);
    patched("n-dims-0.gguf", ndims_at, 0, 4);
    patched("dim-negative.gguf", ndims_at + 4, ~0ull, 8);
    patched("dim-overflow.gguf", ndims_at + 4, 1ull << 62, 8);
    patched("type-out-of-range.gguf", ndims_at + 4 + 16, 1000, 4);
    patched("offset-unaligned.gguf", ndims_at + 4 + 16 + 4, 8, 8);
    patched("offset-past-end.gguf", ndims_at + 4 + 16 + 4, 1 << 20, 8);

    auto one_kv = [](const std::string& file, const std::string& key, GgufValue v) {
        GgufWriter w;
        w.add_kv(key, std::move(v));
        save(file, file_bytes(w));
    };
    one_kv("array-length-bomb.gguf", "a", GgufValue::array(GgufType::u64, {GgufValue::u64(1)}));
    GgufValue deep = GgufValue::array(GgufType::u8, {GgufValue::u8(7)});
    for (int i = 0; i < 9; ++i) deep = GgufValue::array(GgufType::array, {deep});
    one_kv("nested-too-deep.gguf", "deep", deep);
    // a short outer array whose nested arrays' JSON (4 bytes an element) outgrows the 1 MiB budget: kept as hash only
    std::vector<uint8_t> wide(140'000, 200);
    GgufWriter nested_json;
    nested_json.add_raw_kv("nested", static_cast<uint32_t>(GgufType::array), nested_u8_arrays(2, wide));
    save("nested-json-over-budget.gguf", file_bytes(nested_json));
    one_kv("empty-key.gguf", "", GgufValue::u8(1));
    one_kv("alignment-3.gguf", "general.alignment", GgufValue::u32(3));
    one_kv("alignment-huge.gguf", "general.alignment", GgufValue::u32(1u << 31));
    one_kv("alignment-u64.gguf", "general.alignment", GgufValue::u64(32));
    one_kv("alignment-bool.gguf", "general.alignment", GgufValue::boolean(true));
    {
        GgufWriter w;
        w.add_kv("b", GgufValue::u8(2));
        std::vector<uint8_t> b = file_bytes(w);
        put(b, w.kv_offset(0) + 8 + 1, 7, 4);  // the type becomes bool: a bool of 2
        save("bool-2.gguf", b);
    }
    {
        GgufWriter w;
        w.add_kv("general.architecture", GgufValue::str("llama"));
        w.add_kv("general.architecture", GgufValue::str("llama"));
        w.add_tensor("same", {8}, 0);
        w.add_tensor("same", {8}, 0);
        save("duplicates.gguf", file_bytes(w));
    }
    {
        GgufWriter w;
        w.add_tensor("q8", {172, 8}, 8, 43 * 34);  // ne[0] not a multiple of 32, whole blocks
        w.add_tensor("part", {33}, 8, 34);         // not whole blocks
        save("blocks.gguf", file_bytes(w));
    }
    {
        GgufWriter w;
        w.add_tensor_at("a", {64}, 0, 64, 256);
        w.add_tensor_at("b", {8}, 0, 0, 32);
        w.add_tensor_at("c", {64}, 0, 96, 256);
        save("offsets-disordered.gguf", file_bytes(w));
    }
    {
        GgufWriter w;
        w.add_tensor("f32-overflow", {1ull << 31, 1ull << 31}, 0, 0);  // 2^62 x 4 bytes: 2^64
        w.add_tensor("i64-overflow", {1ull << 61}, 27, 0);
        save("byte-size-overflow.gguf", file_bytes(w));
    }
    {
        GgufWriter w;
        w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
        std::vector<uint8_t> b = w.header();
        b.resize(w.header_end());
        save("vocab-only.gguf", b);
    }
    // a prefix cut in or after the tokens makes the parser estimate the merges still to come
    for (const char* model : {"gpt2", "llama"}) {
        GgufWriter w;
        w.add_kv("tokenizer.ggml.model", GgufValue::str(model));
        w.add_kv("tokenizer.ggml.pre", GgufValue::str("llama-bpe"));
        std::vector<std::string> tokens(40);
        for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = "tok" + std::to_string(i);
        w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(tokens));
        w.add_kv("tokenizer.ggml.merges", GgufValue::string_array({"t o", "to k"}));
        save(std::string("tokenizer-") + model + ".gguf", file_bytes(w));
    }
}

void safetensors_seeds() {
    auto save_writer = [](const std::string& file, const SafetensorsWriter& w) {
        std::vector<uint8_t> b = w.header();
        b.resize(w.file_size(), 0);
        save(file, b);
    };
    SafetensorsWriter all;
    for (const char* d : {"BOOL", "U8", "I8", "F8_E4M3", "F8_E5M2", "F8_E8M0", "U16", "I16", "F16", "BF16", "U32", "I32",
                          "F32", "U64", "I64", "F64", "C64", "F4", "F6_E2M3", "F6_E3M2"})
        all.add(std::string("t.") + d, d, {2, 4});
    all.set_metadata({{"format", "pt"}, {"", "empty key"}});
    save_writer("every-dtype.safetensors", all);

    SafetensorsWriter odd;
    odd.set_metadata_null();
    odd.add("scalar", "F32", {});
    odd.add("empty", "F16", {0, 4});
    odd.add_at("new", "I4", {4}, 6, 8);  // unknown dtype
    odd.pad_to_multiple(1);
    save_writer("null-metadata-unknown-dtype.safetensors", odd);

    auto raw = [](const std::string& file, const std::string& json, uint64_t data) {
        std::vector<uint8_t> b(8 + json.size() + data, 0);
        const uint64_t n = json.size();
        std::memcpy(b.data(), &n, 8);
        std::memcpy(b.data() + 8, json.data(), json.size());
        save(file, b);
    };
    const std::string a4 = R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";
    raw("duplicate-key.safetensors", "{" + a4 + "," + a4 + "}", 4);
    raw("hole.safetensors", "{" + a4 + R"(,"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})", 12);
    raw("overlap.safetensors", "{" + a4 + R"(,"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})", 4);
    raw("trailing.safetensors", "{" + a4 + "}", 9);
    raw("span-mismatch.safetensors", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4);
    raw("offsets-three.safetensors", R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4,8]}})", 4);
    raw("shape-overflow.safetensors",
        R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0);
    raw("shape-bits-wrap.safetensors", R"({"a":{"dtype":"F32","shape":[576460752303423489],"data_offsets":[0,4]}})", 4);
    raw("duplicate-dtype.safetensors", R"({"a":{"dtype":"U8","dtype":"F32","shape":[4],"data_offsets":[0,4]}})", 4);
    std::string keys = R"({"__metadata__":{"k":"")";  // many keys (the cap is 2^20: too big a seed)
    for (int i = 0; i < 5'000; ++i) keys += ",\"k" + std::to_string(i) + "\":\"v\"";
    raw("metadata-many-keys.safetensors", keys + "}}", 0);
    raw("not-an-object.safetensors", "[1,2,3]", 0);
    raw("invalid-utf8.safetensors", "{\"\xff\xfe\":{}}", 0);
    raw("metadata-duplicate.safetensors", R"({"__metadata__":{"k":"1","k":"2"}})", 0);
    raw("metadata-non-string.safetensors", R"({"__metadata__":{"k":1,"l":[true]}})", 0);
    raw("escaped-name.safetensors", R"({"a\"b\u0063":{"dtype":"U8","shape":[1],"data_offsets":[0,2]}})", 1);
    raw("length-bomb.safetensors", std::string(8, ' '), 0);
    {
        std::vector<uint8_t> b(16, 0xff);
        save("length-max.safetensors", b);
    }
}

void copy_small_real_files(const fs::path& fixtures, const fs::path& out) {
    for (const auto& e : fs::directory_iterator(fixtures)) {
        const std::string ext = e.path().extension().string();
        if ((ext != ".gguf" && ext != ".safetensors") || e.file_size() >= (64u << 10)) continue;
        const fs::path to = out / ext.substr(1) / ("real-" + e.path().filename().string());
        fs::copy_file(e.path(), to, fs::copy_options::overwrite_existing);
        fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);  // the fixtures are read-only
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: fuzz_make_corpus FIXTURES_DIR OUT_DIR\n";
        return 2;
    }
    const fs::path out = argv[2];
    out_dir = out / "gguf";
    fs::create_directories(out_dir);
    gguf_seeds();
    out_dir = out / "safetensors";
    fs::create_directories(out_dir);
    safetensors_seeds();
    copy_small_real_files(argv[1], out);
    return 0;
}
