// Prints the memory engine's figures for a GGUF, one JSON line per setting read from stdin as
// "CTX CACHE UBATCH FLASH SWA_FULL SEQUENCES" (flash: auto|on|off), for bench/memory.sh.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "format/gguf.hpp"
#include "memory/memory.hpp"

using namespace modelcat;

namespace {

model::FileHeader read_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error("cannot open " + path);
    const uint64_t size = static_cast<uint64_t>(in.tellg());
    std::vector<uint8_t> prefix;
    for (uint64_t want = 1 << 20;;) {
        prefix.resize(std::min(want, size));
        in.seekg(0);
        in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(prefix.size()));
        auto r = format::parse_gguf(prefix, size);
        if (auto* h = std::get_if<model::FileHeader>(&r)) return *h;
        want = std::max(std::get<format::NeedMore>(r).estimated_total, want * 2);
        if (prefix.size() == size) throw std::runtime_error("truncated header in " + path);
    }
}

std::string cache_json(const memory::MemoryFigures& f) {
    std::string out = "[";
    for (const auto& c : f.caches) {
        const char* kind = model::cache_kind_name(c.kind);
        if (out.size() > 1) out += ',';
        out += "{\"kind\":\"";
        out += kind;
        out += "\",\"cells\":" + std::to_string(c.cells);
        out += ",\"layers\":" + std::to_string(c.layers);
        out += ",\"k_bytes\":" + std::to_string(c.k_bytes);
        out += ",\"v_bytes\":" + std::to_string(c.v_bytes);
        out += '}';
    }
    return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODEL.gguf < settings\n", argv[0]);
        return 2;
    }
    try {
        const auto read = memory::read_memory_model(read_header(argv[1]));
        if (auto* n = std::get_if<memory::NotModelled>(&read)) {
            std::printf("{\"not_modelled\":\"%s\"}\n", n->reason.c_str());
            return 0;
        }
        const memory::MemoryTerms terms = memory::memory_terms(std::get<memory::MemoryModel>(read));
        std::string line;
        while (std::getline(std::cin, line)) {
            std::istringstream in(line);
            memory::MemorySettings s;
            std::string cache, flash;
            int swa_full = 0, sequences = 0;
            if (!(in >> s.ctx >> cache >> s.ubatch >> flash >> swa_full >> sequences)) continue;
            if (sequences != 1) {
                std::printf("{\"error\":\"the engine models one sequence\"}\n");
                continue;
            }
            s.cache = cache == "q8_0" ? memory::CacheType::q8_0 : cache == "q4_0" ? memory::CacheType::q4_0 : memory::CacheType::f16;
            s.flash = flash == "on" ? memory::Flash::on : flash == "off" ? memory::Flash::off : memory::Flash::automatic;
            s.swa_full = swa_full != 0;
            const auto fig = memory::memory_figures(terms, s);
            if (auto* e = std::get_if<memory::SettingError>(&fig)) {
                std::printf("{\"error\":\"%s\"}\n", e->message.c_str());
                continue;
            }
            const auto& f = std::get<memory::MemoryFigures>(fig);
            std::printf("{\"n_ctx\":%u,\"flash\":%s,\"weights\":%llu,\"repack\":%llu,\"kv\":%llu,\"caches\":%s,\"recurrent\":%llu,\"output\":%llu,\"compute\":%llu,\"total\":%llu}\n",
                        f.n_ctx, f.flash ? "true" : "false", (unsigned long long)f.weights_bytes, (unsigned long long)f.repack_bytes,
                        (unsigned long long)f.kv_bytes, cache_json(f).c_str(), (unsigned long long)f.recurrent_bytes,
                        (unsigned long long)f.output_bytes, (unsigned long long)f.compute_bytes, (unsigned long long)f.total_bytes());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "memory_figures: %s\n", e.what());
        return 1;
    }
    return 0;
}
