#include "bpe_vocab.hpp"

#include <algorithm>
#include <cstdint>

namespace modelcat::kit {

namespace {

std::string utf8_char(uint32_t cp) {
    if (cp < 0x80) return std::string(1, static_cast<char>(cp));
    return {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};  // cp < 0x800 here
}

// A distinct word per i (base 26, with a letter count that grows with i).
std::string vocab_word(size_t i) {
    std::string w;
    for (size_t k = i; w.empty() || k > 0; k /= 26) w += static_cast<char>('a' + k % 26);
    return w;
}

}  // namespace

std::vector<std::string> byte_level_alphabet() {
    std::vector<std::string> printable, others;
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
        if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE)
            printable.push_back(utf8_char(b));
        else
            others.push_back(utf8_char(next++));
    }
    printable.insert(printable.end(), others.begin(), others.end());
    return printable;
}

void add_bpe_vocab(GgufWriter& w, size_t n) {
    std::vector<std::string> tokens = byte_level_alphabet();
    std::vector<std::string> merges;
    for (size_t i = 0; tokens.size() + 4 < n; ++i) {
        tokens.push_back("\xC4\xA0" + vocab_word(i));  // "Ġword": a word after a space
        if (merges.size() < 256) merges.push_back("\xC4\xA0 " + vocab_word(i));
    }
    for (const char* control : {"<unk>", "<|endoftext|>", "<s>", "</s>"}) tokens.emplace_back(control);  // llama.cpp looks these up for Phi-3
    std::vector<int32_t> types(tokens.size(), 1);  // normal
    std::fill(types.end() - 4, types.end(), 3);    // control
    w.add_kv("tokenizer.ggml.model", GgufValue::str("gpt2"));
    w.add_kv("tokenizer.ggml.pre", GgufValue::str("llama-bpe"));
    w.add_kv("tokenizer.ggml.tokens", GgufValue::string_array(std::move(tokens)));
    w.add_kv("tokenizer.ggml.token_type", GgufValue::i32_array(types));
    w.add_kv("tokenizer.ggml.merges", GgufValue::string_array(std::move(merges)));
    w.add_kv("tokenizer.ggml.bos_token_id", GgufValue::u32(static_cast<uint32_t>(n - 2)));
    w.add_kv("tokenizer.ggml.eos_token_id", GgufValue::u32(static_cast<uint32_t>(n - 1)));
}

}  // namespace modelcat::kit
