#pragma once
// A SentencePiece tokenizer.model read the way llama.cpp's converter reads it
// (TextModel._create_vocab_sentencepiece, through the same library): each
// piece, its score and the token type the converter gives it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace modelcat::audit {

// gguf-py's TokenType values, as tokenizer.ggml.token_type stores them.
enum TokenType : int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

struct SentencePieceVocab {
    std::vector<std::string> pieces;
    std::vector<float> scores;
    std::vector<int32_t> types;
};

// Throws model::FormatError when the bytes are not a SentencePiece model.
SentencePieceVocab read_sentencepiece(std::string_view model_bytes);

}  // namespace modelcat::audit
