// Checks the kit against the real files' measured numbers and the GGUF prologue layout.
// Standalone on purpose: the writers must be right before tests lean on them.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <type_traits>
#include <vector>

#include "kit/llama31.hpp"

namespace fs = std::filesystem;
using namespace modelcat::kit;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
    (ok ? passed : failed) += 1;
    if (!ok) std::printf("FAIL %s\n", what.c_str());
}

template <typename T>
void check_eq(const T& got, const T& want, const std::string& what) {
    if constexpr (std::is_integral_v<T>)
        check(got == want, what + " = " + std::to_string(got) + ", want " + std::to_string(want));
    else
        check(got == want, what + " = \"" + got + "\", want \"" + want + "\"");
}

uint64_t elements(const GgufTensorInfo& t) {
    uint64_t n = 1;
    for (uint64_t d : t.dims) n *= d;
    return n;
}

uint32_t type_of(const GgufWriter& w, std::string_view name) {
    for (const auto& t : w.tensors())
        if (t.name == name) return t.type;
    return ~0u;
}

void check_lineup() {
    std::printf("%-7s %14s %10s %10s %10s  %s\n", "quant", "file bytes", "data_start", "meta_end", "hdr_end", "census");
    for (const auto& q : llama31_quants()) {
        const GgufWriter w = llama31_quant(q.name);
        const std::string n(q.name);
        const std::string census = census_string(w);
        std::printf("%-7s %14ju %10ju %10ju %10ju  %s\n", n.c_str(), uintmax_t(w.file_size()),
                    uintmax_t(w.data_start()), uintmax_t(w.metadata_end()), uintmax_t(w.header_end()), census.c_str());
        check_eq(w.file_size(), q.file_bytes, n + " file size");
        check_eq(w.data_start(), kLlama31DataStart, n + " data_start");
        check_eq(w.metadata_end(), kLlama31MetadataEnd, n + " metadata end");
        check_eq(w.header_end(), kLlama31HeaderEnd, n + " tensor index end");
        check_eq(census, std::string(q.census), n + " census");
        check_eq(uint64_t(w.kv_count()), kLlama31KvCount, n + " kv count");
        check_eq(uint64_t(w.tensors().size()), kLlama31TensorCount, n + " tensor count");
        uint64_t params = 0, packed_end = 0;
        bool contiguous = true;
        for (const auto& t : w.tensors()) {
            params += elements(t);
            contiguous = contiguous && t.offset == packed_end;  // as measured: nothing padded between tensors
            packed_end = t.offset + t.bytes;
        }
        check_eq(params, kLlama31Params, n + " params");
        check(contiguous, n + " tensors contiguous");
        for (size_t i = 0; i < kLlama31NamedTensors.size(); ++i)
            check_eq(type_of(w, kLlama31NamedTensors[i]), q.named_types[i],
                     n + " " + std::string(kLlama31NamedTensors[i]));
    }
    const GgufWriter a = llama31_quant("Q4_K_M"), b = llama31_quant("Q4_K_M");
    const std::vector<uint8_t> ha = a.header();
    check(ha == b.header(), "Q4_K_M header deterministic");
    check_eq(uint64_t(ha.size()), kLlama31DataStart, "Q4_K_M header() size");
}

void check_files(const fs::path& dir) {
    const auto paths = write_llama31_lineup(dir);  // in llama31_quants() order
    for (size_t i = 0; i < paths.size(); ++i) {
        struct stat st {};
        ::stat(paths[i].c_str(), &st);
        const std::string n = paths[i].filename().string();
        check_eq(uint64_t(st.st_size), llama31_quants()[i].file_bytes, n + " on disk");
        check(uint64_t(st.st_blocks) * 512 < 16u << 20, n + " is sparse");
    }
    const auto ck = write_llama31_safetensors_checkpoint(dir / "ckpt");
    uint64_t tensors = 0, data = 0, params = 0;
    for (size_t i = 0; i < llama31_shards().size(); ++i) {
        const Llama31Shard& s = llama31_shards()[i];
        const SafetensorsWriter w = llama31_safetensors_shard(i);
        const std::string n(s.file);
        std::printf("%s  %3zu tensors  header %5ju (json %5zu)  file %ju\n", n.c_str(), w.entries().size(),
                    uintmax_t(w.header_length()), w.json().size(), uintmax_t(w.file_size()));
        check_eq(w.entries().size(), s.tensors, n + " tensors");
        check_eq(w.header_length(), s.header_bytes, n + " header length");
        check_eq((w.json().size() + 7) / 8 * 8, s.header_bytes, n + " natural 8-byte padding");
        check_eq(uint64_t(fs::file_size(ck[i])), s.file_bytes, n + " on disk");
        tensors += w.entries().size();
        data += w.data_bytes();
        for (const auto& e : w.entries()) params += (e.end - e.begin) / 2;
    }
    check_eq(tensors, uint64_t(291), "checkpoint tensors");
    check_eq(data, kLlama31Bf16TotalSize, "checkpoint total_size");
    check_eq(params, kLlama31Bf16Params, "checkpoint params");
    const GgufWriter bf16 = llama31_bf16_gguf();
    std::printf("BF16 gguf  %ju bytes, data_start %ju, census %s\n", uintmax_t(bf16.file_size()),
                uintmax_t(bf16.data_start()), census_string(bf16).c_str());
    check_eq(census_string(bf16), std::string("30:226 0:66"), "BF16 gguf census");
}

void check_prologues() {
    for (uint32_t version : {1u, 2u, 3u}) {
        for (Endian e : {Endian::little, Endian::big}) {
            GgufWriter w(version, e);
            w.add_kv("general.alignment", GgufValue::u32(32));
            w.add_kv("x",
                     GgufValue::array(GgufType::array, {GgufValue::array(GgufType::u16, {GgufValue::u16(0x0102)})}));
            w.add_tensor("t", {32}, 0);
            const std::vector<uint8_t> h = w.header();
            const bool big = e == Endian::big;
            const size_t cw = version == 1 ? 4 : 8;
            // Builds an integer of `width` bytes in the file's byte order.
            auto num = [&](uint64_t v, size_t width) {
                std::vector<uint8_t> out(width);
                for (size_t i = 0; i < width; ++i) out[big ? width - 1 - i : i] = uint8_t(v >> (8 * i));
                return out;
            };
            std::vector<uint8_t> want{'G', 'G', 'U', 'F'};
            for (auto part : {num(version, 4), num(1, cw), num(2, cw), num(17, cw)})
                want.insert(want.end(), part.begin(), part.end());
            const std::string tag = std::string("v").append(std::to_string(version)).append(big ? " BE" : " LE");
            check(std::equal(want.begin(), want.end(), h.begin()), tag + " prologue + first key length");
            std::printf("%s  first %zu bytes:", tag.c_str(), want.size());
            for (size_t i = 0; i < want.size(); ++i) std::printf(" %02x", h[i]);
            std::printf("\n");
            check_eq(w.kv_offset(0), uint64_t(8 + 2 * cw), tag + " kv_offset(0)");
            // The nested array: outer elem type 9, count 1, inner elem type 2, count 1, one u16.
            const uint64_t x = w.kv_offset(1) + cw + 1 + 4;
            std::vector<uint8_t> nested;
            for (auto part : {num(9, 4), num(1, cw), num(2, 4), num(1, cw), num(0x0102, 2)})
                nested.insert(nested.end(), part.begin(), part.end());
            check(std::equal(nested.begin(), nested.end(), h.begin() + long(x)), tag + " nested array");
            const uint64_t ti = w.tensor_info_offset(0);
            check_eq(w.metadata_end(), ti, tag + " metadata_end");
            check_eq(w.header_end(), ti + cw + 1 + 4 + cw + 4 + 8, tag + " header_end");
            check_eq(uint64_t(h.size()), (w.header_end() + 31) / 32 * 32, tag + " padded to 32");
            check_eq(w.file_size(), w.data_start() + 128, tag + " file size");
        }
    }
}

void check_writers_misc(const fs::path& dir) {
    GgufWriter w;
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
    w.write_header_only(dir / "vocab.gguf");
    check_eq(uint64_t(fs::file_size(dir / "vocab.gguf")), w.header_end(), "vocab-only file ends at header_end");
    w.add_tensor("a", {33}, 0);     // 132 bytes
    w.add_tensor("b", {64}, 2);     // Q4_0: 2 blocks, 36 bytes, aligned to 160
    w.add_tensor("c", {7}, 99, 5);  // unknown type with explicit size
    check_eq(w.tensors()[1].offset, uint64_t(160), "auto offset aligned");
    check_eq(w.tensors()[2].offset, uint64_t(224), "unknown type offset");
    check_eq(w.data_bytes(), uint64_t(229), "data_bytes without trailing padding");
    w.write(dir / "zeros.gguf", DataMode::zeros);
    check_eq(uint64_t(fs::file_size(dir / "zeros.gguf")), w.file_size(), "zeros file size");

    SafetensorsWriter s;
    s.add("f4", "F4", {3});       // 12 bits -> 2 bytes
    s.add("f6", "F6_E2M3", {5});  // 30 bits -> 4 bytes
    s.add("c", "C64", {2});       // 16 bytes
    s.add_at("odd", "X9", {1}, 100, 101);
    check_eq(s.entries()[1].begin, uint64_t(2), "F4 bytes");
    check_eq(s.entries()[2].begin, uint64_t(6), "F6 bytes");
    check_eq(s.data_bytes(), uint64_t(101), "safetensors data_bytes");
    check_eq(s.json().substr(0, 7), std::string("{\"f4\":{"), "no __metadata__ when absent");
    s.set_metadata_null();
    check_eq(s.json().substr(0, 18), std::string("{\"__metadata__\":nu"), "__metadata__ null");
    s.pad_to_length(300);
    check_eq(uint64_t(s.header().size()), uint64_t(308), "exact header length");
    GgufWriter hostile;
    hostile.add_raw_kv("bad", 13, {1, 2, 3});
    hostile.add_kv("empty", GgufValue::array(static_cast<GgufType>(13), {}));
    hostile.override_tensor_count(1);
    hostile.override_kv_count(5);
    const std::vector<uint8_t> hb = hostile.header();
    check(hb[8] == 1 && hb[16] == 5, "count overrides");
    check(hb[24 + 8 + 3] == 13 && hb[24 + 8 + 3 + 4] == 1, "raw kv type id and payload");
    check_eq(hostile.header_end(), uint64_t(24 + 18 + 29), "empty array of unknown element type");

    write_raw_safetensors(dir / "raw.safetensors", "{\"a\":1,\"a\":2}", 10);
    check_eq(uint64_t(fs::file_size(dir / "raw.safetensors")), uint64_t(8 + 13 + 10), "raw safetensors size");
}

}  // namespace

int main(int argc, char** argv) {
    const fs::path dir = (argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path()) / "modelcat_kit_selftest";
    fs::create_directories(dir);
    check_lineup();
    check_prologues();
    check_writers_misc(dir);
    check_files(dir);
    fs::remove_all(dir);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
