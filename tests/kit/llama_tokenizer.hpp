#pragma once
// A small Llama-3.1-style tokenizer for the kit's checkpoints: a byte-level BPE
// (the 256 GPT-2 byte characters, then tokens merged from them) with merges in
// the pair form, twelve added special tokens named as Llama 3.1's at the end of
// the vocabulary, a chat template, and several EOS ids in generation_config.json;
// and how llama.cpp's converter writes it (gpt2 model, llama-bpe pre-tokenizer).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace modelcat::kit {

struct KitTokenizer {
    std::vector<std::string> tokens;  // in id order: base, then the added tokens
    std::vector<int32_t> types;       // 1 NORMAL for base tokens, 3 CONTROL for the added ones
    std::vector<std::pair<std::string, std::string>> merges;
    uint32_t base = 0;                // the first added token's id: <|begin_of_text|>
    uint32_t bos() const { return base; }
    uint32_t end_of_text() const { return base + 1; }
    uint32_t eom() const { return base + 8; }
    uint32_t eot() const { return base + 9; }
};
inline constexpr uint32_t kKitAddedTokens = 12;

// Llama 3.1's added token i (id 128000 + i): <|begin_of_text|> ... <|python_tag|>, then reserved ones.
std::string llama3_added_token(uint32_t i);

// Throws std::invalid_argument when `vocab` is under 256 + kKitAddedTokens + 1.
KitTokenizer kit_tokenizer(uint32_t vocab);

// Llama 3's Split regex, as tokenizer.json holds it.
extern const char* const kLlama3SplitRegex;

std::string tokenizer_json(const KitTokenizer& t);
std::string tokenizer_config_json(const std::string& chat_template);
std::string generation_config_json(const KitTokenizer& t);  // eos_token_id [end_of_text, eom, eot]
// The template in tokenizer_config.json; `stale`: an earlier one, without the generation prompt.
std::string kit_chat_template(bool stale = false);

}  // namespace modelcat::kit
