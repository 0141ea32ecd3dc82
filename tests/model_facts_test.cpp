// What a header says beyond its tensors, as pure functions: the kind of
// artifact, the KV cache estimate, the hashes that tell re-uploads apart, an
// Ollama manifest's layers and ollama:// references.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "format/gguf.hpp"
#include "format/ollama_manifest.hpp"
#include "format/safetensors.hpp"
#include "kit/kinds.hpp"
#include "locate/ollama_registry.hpp"
#include "model/error.hpp"
#include "model/header_hashes.hpp"
#include "model/kind.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufType;
using kit::GgufValue;
using kit::GgufWriter;

namespace {

model::FileHeader parse_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    auto r = p.extension() == ".gguf" ? format::parse_gguf(bytes, bytes.size()) : format::parse_safetensors(bytes, bytes.size());
    return std::get<model::FileHeader>(r);
}

std::string kind_of(const model::FileHeader& h) { return model::kind_name(model::classify_model({&h})); }

std::span<const uint8_t> bytes_of(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

TEST(ModelKind, EachKindLlamaCppWritesByItsOwnMarks) {
    EXPECT_EQ(kind_of(kit::parse_header(kit::tiny_llama("t", 8))), "model");
    EXPECT_EQ(kind_of(kit::parse_header(kit::tiny_mmproj())), "mmproj");
    EXPECT_EQ(kind_of(kit::parse_header(kit::tiny_lora(8.0f))), "adapter");
    EXPECT_EQ(kind_of(kit::parse_header(kit::tiny_imatrix())), "imatrix");
}

TEST(ModelKind, TheRuleInItsOrder) {
    GgufWriter typed;  // 1. general.type says so, whatever else the file holds
    typed.add_kv("general.type", GgufValue::str("mmproj"));
    typed.add_kv("adapter.type", GgufValue::str("lora"));
    typed.add_tensor("x.weight", {32}, 0);
    EXPECT_EQ(kind_of(kit::parse_header(typed)), "mmproj");
    GgufWriter lora;  // 2. lora tensors without general.type (older converters)
    lora.add_kv("general.architecture", GgufValue::str("llama"));
    lora.add_tensor("blk.0.attn_q.weight.LORA_A", {32}, 0);
    EXPECT_EQ(kind_of(kit::parse_header(lora)), "adapter");
    GgufWriter clip;  // 3. clip keys
    clip.add_kv("clip.has_vision_encoder", GgufValue::boolean(true));
    clip.add_tensor("v.x.weight", {32}, 0);
    EXPECT_EQ(kind_of(kit::parse_header(clip)), "mmproj");
    GgufWriter sums;  // 4. llama-imatrix's sums without general.type
    sums.add_tensor("blk.0.attn_q.weight.in_sum2", {32}, 0);
    EXPECT_EQ(kind_of(kit::parse_header(sums)), "imatrix");
    GgufWriter vocab;  // 5. a tokenizer and no tensors, even when it says model
    vocab.add_kv("general.type", GgufValue::str("model"));
    vocab.add_kv("tokenizer.ggml.model", GgufValue::str("llama"));
    EXPECT_EQ(kind_of(kit::parse_header(vocab)), "vocab");
    GgufWriter other;  // 7. a type the rule does not know
    other.add_kv("general.type", GgufValue::str("control_vector"));
    other.add_tensor("direction.0", {32}, 0);
    EXPECT_EQ(kind_of(kit::parse_header(other)), "unknown");
    EXPECT_EQ(kind_of(kit::parse_header(GgufWriter())), "unknown");  // nothing at all
}

TEST(ModelKind, RealFilesFromOtherTools) {
    for (const char* f : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf", "ggml-vocab-baichuan.gguf"})
        EXPECT_EQ(kind_of(parse_file(test::fixtures_dir() / f)), "vocab") << f;
    EXPECT_EQ(kind_of(parse_file(test::fixtures_dir() / "llama-2-tiny-random.gguf")), "model");
    // a PEFT-style safetensors LoRA from Ollama's tests: model.layers.30.self_attn.q_proj.lora_a ...
    EXPECT_EQ(kind_of(parse_file(test::fixtures_dir() / "ollama-discollama-lora-adapters.safetensors")), "adapter");
}

TEST(HeaderHashes, TensorIndexIgnoresMetadataAndMetadataIgnoresOrder) {
    auto index = [](const model::FileHeader& h) {
        model::ContentHash c;
        model::hash_tensor_index(h, c);
        return c.digest();
    };
    const model::FileHeader a = kit::parse_header(kit::tiny_llama("t", 8, "{{ a }}"));
    const model::FileHeader b = kit::parse_header(kit::tiny_llama("t", 8, "{{ b }}"));
    EXPECT_EQ(index(a), index(b));
    EXPECT_NE(model::metadata_hash(a), model::metadata_hash(b));
    EXPECT_NE(index(a), index(kit::parse_header(kit::tiny_llama("t", 12, "{{ a }}"))));  // another type
    GgufWriter x, y;
    x.add_kv("k1", GgufValue::u32(1));
    x.add_kv("k2", GgufValue::str("v"));
    y.add_kv("k2", GgufValue::str("v"));
    y.add_kv("k1", GgufValue::u32(1));
    EXPECT_EQ(model::metadata_hash(kit::parse_header(x)), model::metadata_hash(kit::parse_header(y)));
    GgufWriter z;  // the same number, another type
    z.add_kv("k1", GgufValue::u64(1));
    z.add_kv("k2", GgufValue::str("v"));
    EXPECT_NE(model::metadata_hash(kit::parse_header(x)), model::metadata_hash(kit::parse_header(z)));
}

TEST(OllamaManifest, LayersAndWhatIsWrongWithThem) {
    const std::string d = "sha256:" + std::string(64, 'a');
    auto layers = format::parse_ollama_manifest(bytes_of(
        R"({"schemaVersion":2,"config":{"digest":"x"},"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":")" +
        d + R"(","size":42}]})"));
    ASSERT_EQ(layers.size(), 1u);
    EXPECT_EQ(layers[0].digest, d);
    EXPECT_EQ(layers[0].size, 42u);
    EXPECT_EQ(format::ollama_layer_kind(layers[0].media_type), "model");
    EXPECT_EQ(format::ollama_layer_kind("application/vnd.ollama.image.embed"), "");
    auto error_path = [](const std::string& json) {
        try {
            format::parse_ollama_manifest(bytes_of(json));
        } catch (const model::FormatError& e) {
            return e.json_path() + ": " + e.what();
        }
        return std::string("accepted");
    };
    EXPECT_EQ(error_path(R"({"layers":{}})"), "layers: manifest has no \"layers\" array");
    EXPECT_EQ(error_path(R"({"layers":[{"mediaType":"m","digest":"sha256:../../etc/passwd","size":1}]})"),
              "layers[0].digest: layer digest is not \"sha256:\" and 64 lowercase hex digits");
    EXPECT_EQ(error_path(R"({"layers":[{"mediaType":"m","digest":")" + d + R"(","size":-1}]})"),
              "layers[0].size: layer has no non-negative \"size\"");
    EXPECT_EQ(error_path("not json").substr(0, 28), ": manifest is not valid JSON");
}

TEST(OllamaReference, ReferencesAsOllamaNamesThem) {
    auto ref = locate::parse_ollama_input("ollama://llama3.1:8b");
    ASSERT_TRUE(ref);
    EXPECT_EQ(locate::ollama_manifest_url(*ref), "https://registry.ollama.ai/v2/library/llama3.1/manifests/8b");
    ref = locate::parse_ollama_input("ollama://hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M");
    ASSERT_TRUE(ref);
    EXPECT_EQ(locate::ollama_blob_url(*ref, "sha256:ab"), "https://hf.co/v2/bartowski/Llama-3.2-1B-Instruct-GGUF/blobs/sha256:ab");
    ref = locate::parse_ollama_input("ollama://127.0.0.1:8080/me/tiny");  // a loopback registry speaks HTTP; the tag defaults
    ASSERT_TRUE(ref);
    EXPECT_EQ(locate::ollama_manifest_url(*ref), "http://127.0.0.1:8080/v2/me/tiny/manifests/latest");
    for (const char* bad : {"ollama://", "ollama://a/b/c/d", "ollama://../x:1", "ollama://x:y?z", "ollama://a b"})
        EXPECT_FALSE(locate::parse_ollama_input(bad)) << bad;
}

}  // namespace
