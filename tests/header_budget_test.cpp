// How many reads and bytes a remote header costs, simulated over real files
// with the remote reader's first read of 1 MiB: the estimator must size the
// reads from what it has seen (counts, array sizes, entry lengths) so that
// headers finish in at most 3 requests without reading much past their end.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "format/header_assembler.hpp"
#include "kit/llama31.hpp"
#include "kit/ranked_vocab.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

struct Cost {
    uint64_t reads = 0, bytes = 0, header = 0;
};

Cost simulate(const std::vector<uint8_t>& file, uint64_t file_size, const std::string& name) {
    format::HeaderReadOptions o;
    o.first_read = 1 << 20;
    o.read_generously = true;  // as the remote crawl reads
    format::HeaderAssembler a(name, o);
    Cost c;
    std::optional<format::ByteRange> next = a.first_read();
    while (next) {
        uint64_t end = std::min<uint64_t>(next->offset + next->length, file_size);
        std::vector<uint8_t> chunk(file.begin() + static_cast<std::ptrdiff_t>(next->offset),
                                   file.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(end, file.size())));
        c.bytes += end - next->offset;
        ++c.reads;
        next = a.add(chunk, file_size);
    }
    c.header = a.take().header_bytes;
    return c;
}

TEST(HeaderBudget, RealVocabularies) {
    for (const char* f : {"ggml-vocab-gpt-2.gguf", "ggml-vocab-starcoder.gguf", "ggml-vocab-baichuan.gguf",
                          "ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf", "llama-2-tiny-random.gguf"}) {
        SCOPED_TRACE(f);
        std::ifstream in(test::fixtures_dir() / f, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        Cost c = simulate(bytes, bytes.size(), f);
        if (c.header < (1u << 20)) {
            EXPECT_EQ(c.reads, 1u);
        } else {
            EXPECT_LE(c.reads, 2u);
            EXPECT_LE(double(c.bytes), std::max(1.25 * double(c.header), double(c.header + (1 << 20))));
        }
    }
}

// The same vocabularies as the first bytes of a model file (tensor data after them), so that
// the reads are sized by the estimate alone, not cut at the file's end.
TEST(HeaderBudget, RealVocabulariesBeforeTensorData) {
    for (const char* f : {"ggml-vocab-gpt-2.gguf", "ggml-vocab-starcoder.gguf", "ggml-vocab-baichuan.gguf"}) {
        SCOPED_TRACE(f);
        std::ifstream in(test::fixtures_dir() / f, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        Cost c = simulate(bytes, bytes.size() + (4ull << 30), f);
        ASSERT_GT(c.header, 1u << 20);
        EXPECT_LE(c.reads, 3u);
        EXPECT_GE(c.bytes, c.header);
        EXPECT_LE(double(c.bytes), 1.05 * double(c.header));
    }
}

// Vocabularies of 32K to 512K tokens whose lengths grow with rank as published ones do, one with
// Llama 3's 2.18 merges per token, a SentencePiece one, and a header over 16 MiB.
TEST(HeaderBudget, VocabulariesOfEverySize) {
    bool over_16_mib = false;
    for (const auto& shape : kit::vocab_shapes()) {
        SCOPED_TRACE(shape.name);
        kit::GgufWriter w = kit::ranked_vocab_model(shape);
        Cost c = simulate(w.header(), w.file_size(), shape.name + ".gguf");
        EXPECT_EQ(c.header, w.data_start());
        EXPECT_LE(c.reads, 3u);
        EXPECT_GE(c.bytes, c.header);
        EXPECT_LE(double(c.bytes), 1.05 * double(c.header));
        over_16_mib |= c.header > (16u << 20);
    }
    EXPECT_TRUE(over_16_mib);
}

TEST(HeaderBudget, LlamaThreeLineup) {
    for (const auto& q : kit::llama31_quant_names()) {
        SCOPED_TRACE(q);
        kit::GgufWriter w = kit::llama31_quant(q);
        Cost c = simulate(w.header(), w.file_size(), q + ".gguf");
        EXPECT_LE(c.reads, 3u);  // the merges' count is read before their bytes are sized
        EXPECT_EQ(c.header, kit::kLlama31DataStart);
        EXPECT_LE(double(c.bytes), 1.05 * double(c.header));
    }
}

TEST(HeaderBudget, VeryLargeVocabularyInThreeReads) {
    // a ~30 MB header: 600,000 tokens and 1.2 million merges that grow longer with rank
    kit::GgufWriter w;
    w.add_kv("general.architecture", kit::GgufValue::str("qwen2"));
    w.add_kv("tokenizer.ggml.model", kit::GgufValue::str("gpt2"));
    w.add_kv("tokenizer.ggml.pre", kit::GgufValue::str("qwen2"));
    std::vector<std::string> tokens(600'000), merges(1'200'000);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = std::string(3 + i % 9 + i / 100'000, 'a' + char(i % 26));
    for (size_t i = 0; i < merges.size(); ++i) merges[i] = std::string(4 + i % 7 + i / 200'000, 'b') + " " + std::string(3, 'c');
    w.add_kv("tokenizer.ggml.tokens", kit::GgufValue::string_array(std::move(tokens)));
    w.add_kv("tokenizer.ggml.token_type", kit::GgufValue::i32_array(std::vector<int32_t>(600'000, 1)));
    w.add_kv("tokenizer.ggml.merges", kit::GgufValue::string_array(std::move(merges)));
    w.add_tensor("token_embd.weight", {256, 8}, 12);
    Cost c = simulate(w.header(), w.file_size(), "big-vocab.gguf");
    ASSERT_GT(c.header, 20u << 20);
    EXPECT_LE(c.reads, 3u);
    EXPECT_LE(double(c.bytes), std::max(1.25 * double(c.header), double(c.header + (1 << 20))));
}

}  // namespace
