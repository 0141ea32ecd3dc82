// `modelcat show FILE`: one file's header, like gguf-dump, without a database.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include "cli/command.hpp"
#include "cli/terminal.hpp"
#include "format/json_text.hpp"
#include "io/io_error.hpp"
#include "io/local_reader.hpp"
#include "io/sync_file.hpp"
#include "model/census.hpp"
#include "model/content_hash.hpp"
#include "model/error.hpp"

namespace modelcat::cli {

namespace {

std::string value_text(const model::MetadataEntry& e) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                std::string s;
                format::append_json_string(s, v);
                return s.size() > 70 ? s.substr(0, 66) + "...\"" : s;
            } else if constexpr (std::is_same_v<T, bool>) {
                return v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, double>) {
                return format::json_number(v);
            } else if constexpr (std::is_same_v<T, model::ArraySummary>) {
                std::string s = std::string("array<") + model::value_type_name(v.element_type) + ">[" +
                                std::to_string(v.length) + "] " + std::to_string(v.byte_size) + " B hash " +
                                model::hex64(v.content_hash);
                if (v.json) s += " " + (v.json->size() > 40 ? v.json->substr(0, 37) + "..." : *v.json);
                return s;
            } else {
                return std::to_string(v);
            }
        },
        e.value);
}

// The header `h` of the file at `location`, read in `bytes_read` bytes and `reads` reads.
void print_header(std::ostream& out, const std::string& location, const model::FileHeader& h, uint64_t bytes_read, uint64_t reads,
                  bool all_tensors) {
    char buf[256];
    out << terminal_safe(location) << "\n";
    if (h.format == model::Format::gguf)
        out << "  GGUF version " << h.version << ", " << (h.big_endian ? "big" : "little") << "-endian, alignment "
            << h.alignment << "\n";
    else
        out << "  safetensors\n";
    std::snprintf(buf, sizeof buf, "  file %llu bytes; header %llu bytes; data starts at %llu; read %llu bytes in %llu reads\n",
                  (unsigned long long)h.file_size, (unsigned long long)h.header_bytes, (unsigned long long)h.data_start,
                  (unsigned long long)bytes_read, (unsigned long long)reads);
    out << buf;
    out << "\n-- metadata (" << h.metadata.size() << " keys)\n";
    std::vector<std::string> keys;
    size_t kw = 0;
    for (const auto& e : h.metadata) kw = std::max(kw, keys.emplace_back(terminal_safe(e.key)).size());
    for (size_t i = 0; i < keys.size(); ++i)
        out << "  " << keys[i] << std::string(kw - keys[i].size() + 2, ' ') << model::value_type_name(h.metadata[i].type)
            << "  " << terminal_safe(value_text(h.metadata[i])) << "\n";

    uint64_t params = 0;
    for (const auto& t : h.tensors) params += t.n_elements;
    out << "\n-- tensor types; bytes measured from offsets\n";
    std::snprintf(buf, sizeof buf, "  %-10s %8s %18s %18s %12s\n", "type", "tensors", "parameters", "bytes", "bits/weight");
    out << buf;
    for (const auto& c : model::census(h.tensors)) {
        std::snprintf(buf, sizeof buf, "  %-10s %8llu %18llu %18llu %12.4f\n", terminal_safe(c.type_name).c_str(), (unsigned long long)c.tensors,
                      (unsigned long long)c.params, (unsigned long long)c.bytes, c.params ? c.bytes * 8.0 / c.params : 0.0);
        out << buf;
    }
    uint64_t data = h.file_size > h.header_bytes ? h.file_size - h.header_bytes : 0;
    std::snprintf(buf, sizeof buf, "  %zu tensors, %llu parameters, %.4f bits per weight overall\n", h.tensors.size(),
                  (unsigned long long)params, params ? data * 8.0 / params : 0.0);
    out << buf;

    size_t shown = all_tensors ? h.tensors.size() : std::min<size_t>(h.tensors.size(), 20);
    out << "\n-- tensors" << (shown < h.tensors.size() ? " (first " + std::to_string(shown) + "; --all for every one)" : "") << "\n";
    for (size_t i = 0; i < shown; ++i) {
        const auto& t = h.tensors[i];
        std::snprintf(buf, sizeof buf, "  %-32s %-20s %-8s offset %12llu  %12llu B  %.4f bpw\n", terminal_safe(t.name).c_str(),
                      format::json_dims(t.dims).c_str(), terminal_safe(t.type_name).c_str(), (unsigned long long)t.offset,
                      (unsigned long long)t.bytes, t.n_elements ? t.bytes * 8.0 / t.n_elements : 0.0);
        out << buf;
    }
    if (!h.warnings.empty()) {
        out << "\n-- warnings\n";
        for (const auto& w : h.warnings) out << "  offset " << w.offset << ": " << terminal_safe(w.message) << "\n";
    }
}

struct ShowArgs {
    std::string path;
    bool all = false;
};

int run_show(const ShowArgs& s) {
    try {
        io::LocalReader inline_reads(0);
        io::SyncFile file(inline_reads, io::RangeRequest{s.path});
        const model::FileHeader header = io::read_header(file, {});
        print_header(std::cout, s.path, header, file.bytes_read(), file.requests(), s.all);
    } catch (const model::FormatError& e) {
        std::cerr << "error: " << terminal_safe(e.failure(s.path).describe()) << "\n";
        return kExitSomeFailed;
    } catch (const io::IoError& e) {
        std::cerr << "error: " << terminal_safe(e.what()) << "\n";
        return kExitSomeFailed;
    }
    return kExitOk;
}

}  // namespace

Command show_command(CLI::App& app) {
    auto s = std::make_shared<ShowArgs>();
    auto* cmd = app.add_subcommand("show", "print one file's header (no database)");
    cmd->add_option("file", s->path, "a GGUF or safetensors file")->required();
    cmd->add_flag("--all", s->all, "list every tensor");
    return {cmd, [s] { return run_show(*s); }};
}

}  // namespace modelcat::cli
