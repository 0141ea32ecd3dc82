#include "audit/sentencepiece_vocab.hpp"

#include <sentencepiece_processor.h>

#include "model/error.hpp"
#include "model/header.hpp"

namespace modelcat::audit {

SentencePieceVocab read_sentencepiece(std::string_view model_bytes) {
    sentencepiece::SentencePieceProcessor sp;
    if (auto status = sp.LoadFromSerializedProto(model_bytes); !status.ok())
        throw model::FormatError("tokenizer.model is not a SentencePiece model: " + status.ToString());
    SentencePieceVocab v;
    const int n = sp.GetPieceSize();
    for (int id = 0; id < n; ++id) {
        v.pieces.push_back(sp.IdToPiece(id));
        v.scores.push_back(sp.GetScore(id));
        // The converter's order of tests: a user-defined piece stays NORMAL.
        v.types.push_back(sp.IsUnknown(id) ? kUnknown : sp.IsControl(id) ? kControl : sp.IsUnused(id) ? kUnused
                          : sp.IsByte(id) ? kByte : kNormal);
    }
    return v;
}

}  // namespace modelcat::audit
