#include "audit/checkpoint_texts.hpp"

#include <array>
#include <filesystem>

#include "format/byte_buffer.hpp"
#include "io/io_error.hpp"
#include "io/sync_file.hpp"
#include "locate/locator.hpp"

namespace modelcat::audit {

namespace {

constexpr std::array<TextCap, 5> kCaps{{
    {"generation_config.json", 1ull << 20},
    {"tokenizer.json", 64ull << 20},  // Llama 3's is 9 MB, Gemma 3's 33 MB
    {"tokenizer_config.json", 16ull << 20},
    {"tokenizer.model", 16ull << 20},  // SentencePiece models: 0.5-4 MB
    {"chat_template.jinja", 4ull << 20},
}};

// A server's answer for a file that is not there: io::HttpFetcher's "not found (HTTP 404): URL".
bool is_not_found(const io::IoError& e) { return std::string_view(e.what()).starts_with("not found (HTTP 404)"); }

CheckpointFile read_capped(locate::SyncReads& reads, const std::string& location, uint64_t cap, uint64_t& bytes,
                           uint64_t& requests) {
    CheckpointFile out;
    std::error_code ec;
    if (!locate::is_remote(location) && !std::filesystem::exists(location, ec)) return out;
    try {
        io::SyncFile f = reads.open(location);
        try {
            format::ByteBuffer buf = f.read_whole(cap);  // the size from the first 64 KiB: over the cap, no more is read
            out.bytes = std::string(buf.begin(), buf.end());
        } catch (const io::IoError& e) {
            bool absent = is_not_found(e);  // the request that found nothing counts; its error page is not read
            if (f.size() > cap)
                out.problem = "not read: " + std::to_string(f.size()) + " bytes, over the audit's cap of " + std::to_string(cap >> 20) + " MiB";
            else if (!absent)
                out.problem = std::string("not read: ") + e.what();
            bytes += absent ? 0 : f.bytes_read(), requests += f.requests();
            return out;
        }
        bytes += f.bytes_read(), requests += f.requests();
    } catch (const io::IoError& e) {
        out.problem = std::string("not read: ") + e.what();
    }
    return out;
}

}  // namespace

std::span<const TextCap> checkpoint_text_caps() { return kCaps; }

CheckpointTexts read_checkpoint_texts(locate::SyncReads& reads, const std::string& config_location, std::string config_bytes,
                                      uint64_t& bytes, uint64_t& requests) {
    const std::string folder = config_location.substr(0, config_location.rfind('/') + 1);
    auto read = [&](size_t i) { return read_capped(reads, folder + kCaps[i].name, kCaps[i].max_bytes, bytes, requests); };
    CheckpointTexts t;
    t.config.bytes = std::move(config_bytes);
    t.generation_config = read(0);
    t.tokenizer = read(1);
    t.tokenizer_config = read(2);
    t.tokenizer_model = read(3);
    t.chat_template_jinja = read(4);
    return t;
}

}  // namespace modelcat::audit
