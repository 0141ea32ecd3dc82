#include "llama_tokenizer.hpp"

#include "bpe_vocab.hpp"

#include <stdexcept>

#include "format/json_text.hpp"

namespace modelcat::kit {

const char* const kLlama3SplitRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

namespace {

std::string quoted(const std::string& s) {
    std::string out;
    format::append_json_string(out, s);
    return out;
}

}  // namespace

std::string llama3_added_token(uint32_t i) {
    static const char* const kNamed[] = {
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
        "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"};
    constexpr uint32_t n = sizeof kNamed / sizeof kNamed[0];
    return i < n ? kNamed[i] : "<|reserved_special_token_" + std::to_string(i - n + 3) + "|>";
}

KitTokenizer kit_tokenizer(uint32_t vocab) {
    if (vocab < 256 + kKitAddedTokens + 1) throw std::invalid_argument("kit_tokenizer: vocabulary too small");
    KitTokenizer t;
    t.tokens = byte_level_alphabet();
    t.base = vocab - kKitAddedTokens;
    // Merged tokens: "aa", "ab" ... "zz", then "aaa" ...: each its prefix merged with its last letter.
    std::vector<std::string> level{""};
    while (t.tokens.size() < t.base) {
        std::vector<std::string> longer;
        for (const auto& prefix : level)
            for (char c = 'a'; c <= 'z' && t.tokens.size() < t.base; ++c) {
                std::string s = prefix + c;
                longer.push_back(s);
                if (s.size() < 2) continue;
                t.merges.emplace_back(prefix, std::string(1, c));
                t.tokens.push_back(s);
            }
        level = std::move(longer);
    }
    t.types.assign(t.base, 1);
    for (uint32_t i = 0; i < kKitAddedTokens; ++i) t.tokens.push_back(llama3_added_token(i)), t.types.push_back(3);
    return t;
}

std::string tokenizer_json(const KitTokenizer& t) {
    std::string added, vocab, merges;
    for (uint32_t i = t.base; i < t.tokens.size(); ++i)
        added += (added.empty() ? "" : ",\n    ") + ("{\"id\": " + std::to_string(i) + ", \"content\": " + quoted(t.tokens[i]) +
                 ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": false, \"special\": true}");
    for (uint32_t i = 0; i < t.base; ++i) vocab += (vocab.empty() ? "" : ", ") + quoted(t.tokens[i]) + ": " + std::to_string(i);
    for (const auto& [a, b] : t.merges) merges += (merges.empty() ? "" : ", ") + ("[" + quoted(a) + ", " + quoted(b) + "]");
    return "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n  \"added_tokens\": [\n    " + added +
           "\n  ],\n  \"normalizer\": null,\n"
           "  \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", \"pattern\": {\"Regex\": " +
           quoted(kLlama3SplitRegex) +
           "}, \"behavior\": \"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
           "\"trim_offsets\": true, \"use_regex\": false}]},\n"
           "  \"post_processor\": {\"type\": \"Sequence\", \"processors\": [{\"type\": \"ByteLevel\", \"add_prefix_space\": true, "
           "\"trim_offsets\": false, \"use_regex\": true}, {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": "
           "{\"id\": \"<|begin_of_text|>\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": "
           "[{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 0}}, {\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}, "
           "{\"SpecialToken\": {\"id\": \"<|begin_of_text|>\", \"type_id\": 1}}, {\"Sequence\": {\"id\": \"B\", \"type_id\": 1}}], "
           "\"special_tokens\": {\"<|begin_of_text|>\": {\"id\": \"<|begin_of_text|>\", \"ids\": [" + std::to_string(t.bos()) +
           "], \"tokens\": [\"<|begin_of_text|>\"]}}}]},\n"
           "  \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true, \"use_regex\": true},\n"
           "  \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, \"continuing_subword_prefix\": null, "
           "\"end_of_word_suffix\": null, \"fuse_unk\": false, \"byte_fallback\": false, \"ignore_merges\": true,\n"
           "    \"vocab\": {" + vocab + "},\n    \"merges\": [" + merges + "]}\n}\n";
}

std::string kit_chat_template(bool stale) {
    std::string t =
        "{{- bos_token }}\n{%- for message in messages %}\n"
        "    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}\n"
        "{%- endfor %}\n";
    if (!stale) t += "{%- if add_generation_prompt %}\n    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n{%- endif %}\n";
    return t;
}

std::string tokenizer_config_json(const std::string& chat_template) {
    return "{\n  \"bos_token\": \"<|begin_of_text|>\",\n  \"chat_template\": " + quoted(chat_template) +
           ",\n  \"clean_up_tokenization_spaces\": true,\n  \"eos_token\": \"<|eot_id|>\",\n"
           "  \"model_input_names\": [\"input_ids\", \"attention_mask\"],\n  \"model_max_length\": 131072,\n"
           "  \"tokenizer_class\": \"PreTrainedTokenizerFast\"\n}\n";
}

std::string generation_config_json(const KitTokenizer& t) {
    return "{\n  \"bos_token_id\": " + std::to_string(t.bos()) + ",\n  \"do_sample\": true,\n  \"eos_token_id\": [" +
           std::to_string(t.end_of_text()) + ", " + std::to_string(t.eom()) + ", " + std::to_string(t.eot()) +
           "],\n  \"temperature\": 0.6,\n  \"top_p\": 0.9,\n  \"transformers_version\": \"4.44.0\"\n}\n";
}

}  // namespace modelcat::kit
