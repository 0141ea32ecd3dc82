// The content hashes the catalogue stores (metadata.array_hash, files.header_hash)
// are compared across crawls and catalogues (duplicates, shared tokenizers): these
// are the values modelcat has written for these files since the hash was defined.
// A change here would make every stored catalogue disagree with the next crawl.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "format/header_assembler.hpp"
#include "kit/llama31.hpp"
#include "model/content_hash.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

// Reads a header as a local crawl does (a small first read, then the estimate, then a top-up),
// so the parser runs over several prefixes before the one that completes.
model::FileHeader read_locally(const std::vector<uint8_t>& bytes, uint64_t file_size, const std::string& name) {
    format::HeaderReadOptions o;  // the local defaults: 64 KiB first, then the likely end
    format::HeaderAssembler a(name, o);
    std::optional<format::ByteRange> next = a.first_read();
    while (next) {
        const uint64_t end = std::min<uint64_t>(next->offset + next->length, bytes.size());
        next = a.add(std::span(bytes).subspan(next->offset, end - next->offset), file_size);
    }
    return a.take();
}

std::map<std::string, std::string> array_hashes(const model::FileHeader& h) {
    std::map<std::string, std::string> out;
    for (const auto& e : h.metadata)
        if (const auto* a = std::get_if<model::ArraySummary>(&e.value)) out[e.key] = model::hex64(a->content_hash);
    return out;
}

TEST(StoredHashes, LlamaThreeTokenizerAndHeader) {
    kit::GgufWriter w = kit::llama31_quant("Q4_K_M");
    model::FileHeader h = read_locally(w.header(), w.file_size(), "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf");
    const std::map<std::string, std::string> expected{{"general.languages", "517ede8e39fc8459"},
                                                      {"general.tags", "2e41c7dcc09f108c"},
                                                      {"tokenizer.ggml.merges", "02ece997e585fbd1"},
                                                      {"tokenizer.ggml.token_type", "757801156a42219f"},
                                                      {"tokenizer.ggml.tokens", "e0a8c105c0ea0608"}};
    EXPECT_EQ(array_hashes(h), expected);
    EXPECT_EQ(model::hex64(h.header_hash), "6e7a9b2892336faf");
}

// Two hashes fed one span together get what each would alone, whatever bytes each holds over from before.
TEST(StoredHashes, UpdatingTwoAtOnceIsUpdatingEach) {
    std::vector<uint8_t> bytes(1000);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + 7);
    for (size_t lead_a : {0, 1, 5, 8, 13})
        for (size_t lead_b : {0, 3, 7})
            for (size_t n : {0, 1, 7, 8, 9, 64, 999}) {
                model::ContentHash a, b, alone_a, alone_b;
                a.update(std::span(bytes).first(lead_a));
                alone_a.update(std::span(bytes).first(lead_a));
                b.update(std::span(bytes).first(lead_b));
                alone_b.update(std::span(bytes).first(lead_b));
                model::ContentHash::update_both(a, b, std::span(bytes).subspan(1, n));
                alone_a.update(std::span(bytes).subspan(1, n));
                alone_b.update(std::span(bytes).subspan(1, n));
                EXPECT_EQ(a.digest(), alone_a.digest()) << lead_a << " " << lead_b << " " << n;
                EXPECT_EQ(b.digest(), alone_b.digest()) << lead_a << " " << lead_b << " " << n;
            }
}

std::vector<uint8_t> fixture(const std::string& name) {
    std::ifstream in(test::fixtures_dir() / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(StoredHashes, RealVocabularies) {
    struct Expected {
        const char* file;
        const char* header;
        std::map<std::string, std::string> arrays;
    };
    const Expected files[] = {
        {"ggml-vocab-gpt-2.gguf", "3e870df1f4f40e85",
         {{"tokenizer.ggml.merges", "909f4bd43bab61fa"}, {"tokenizer.ggml.token_type", "74e94940ecd8b5a5"},
          {"tokenizer.ggml.tokens", "3ce98626011e0bfd"}}},
        {"ggml-vocab-llama-spm.gguf", "fca8b889def3266a",
         {{"tokenizer.ggml.scores", "881372a3b4d616a9"}, {"tokenizer.ggml.token_type", "73cf4805b58cb46c"},
          {"tokenizer.ggml.tokens", "ca1d2bb4c70e9a46"}}},
        {"ggml-vocab-baichuan.gguf", "6dc3dbae2436027b",
         {{"tokenizer.ggml.scores", "b8aeb41db2be46a7"}, {"tokenizer.ggml.token_type", "2bcc04282ae4d7b9"},
          {"tokenizer.ggml.tokens", "378e885ad9036e01"}}},
        {"llamacpp-gguf-example-dummy.gguf", "f811ac364a1006da",
         {{"some.parameter.arr.f32", "2d4d53f8c6b35a4f"}, {"some.parameter.arr.i16", "5099157c36c092f6"},
          {"some.parameter.arr.str", "a71c00aebb844c3a"}}},
        {"iree-empty-v2.gguf", "c0a47c7a71784ffc", {{"metadata_strs", "cd2ca348343a4fc8"}}},
    };
    for (const auto& f : files) {
        SCOPED_TRACE(f.file);
        std::vector<uint8_t> bytes = fixture(f.file);
        model::FileHeader h = read_locally(bytes, bytes.size(), f.file);
        EXPECT_EQ(array_hashes(h), f.arrays);
        EXPECT_EQ(model::hex64(h.header_hash), f.header);
    }
}

}  // namespace
