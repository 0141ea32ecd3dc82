#pragma once
// Byte-level BPE vocabularies (GPT-2's tokenizer model) that llama.cpp's loader accepts.
#include <string>
#include <vector>

#include "gguf_writer.hpp"

namespace modelcat::kit {

// The 256 byte-level tokens, printable bytes first, in the order Llama 3 ranks them.
std::vector<std::string> byte_level_alphabet();

// A vocabulary of `n` tokens (n >= 512): the byte-level alphabet, distinct words, and
// four control tokens at the end (<unk> <|endoftext|> <s> </s>); bos is n - 2, eos n - 1. Writes the tokenizer.* keys.
void add_bpe_vocab(GgufWriter& w, size_t n);

}  // namespace modelcat::kit
