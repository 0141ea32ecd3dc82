// `modelcat show FILE`: one file's header, like gguf-dump, without a database;
// `--json` as one JSON object (docs/usage.md describes it).
#include <algorithm>
#include <cmath>
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

// A metadata value as JSON: numbers exactly as the file holds them (NaN and the infinities, which
// JSON lacks, as the strings "NaN", "Infinity", "-Infinity"); an array as its element type, length,
// bytes and hash, with its values when it has at most 64 (longer ones are not kept while reading).
void append_json_value(std::string& out, const model::MetadataEntry& e) {
    out += "{\"type\": \"" + std::string(model::value_type_name(e.type)) + "\", ";
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) {
                out += "\"value\": ";
                format::append_json_string(out, v);
            } else if constexpr (std::is_same_v<T, bool>) {
                out += v ? "\"value\": true" : "\"value\": false";
            } else if constexpr (std::is_same_v<T, double>) {
                out += "\"value\": " + (std::isnan(v) ? "\"NaN\"" : std::isinf(v) ? (v > 0 ? "\"Infinity\"" : "\"-Infinity\"")
                                                                      : format::json_number(v));
            } else if constexpr (std::is_same_v<T, model::ArraySummary>) {
                out += "\"element_type\": \"" + std::string(model::value_type_name(v.element_type)) + "\", \"length\": " +
                       std::to_string(v.length) + ", \"bytes\": " + std::to_string(v.byte_size) + ", \"hash\": \"" +
                       model::hex64(v.content_hash) + "\"";
                if (v.json) out += ", \"values\": " + *v.json;
            } else {
                out += "\"value\": " + std::to_string(v);
            }
        },
        e.value);
    out += "}";
}

// The header as one JSON object: the file's layout, metadata by key (in file order), tensors, warnings.
std::string header_json(const std::string& location, const model::FileHeader& h) {
    std::string out = "{\"location\": ";
    format::append_json_string(out, location);
    out += ",\n \"format\": \"" + std::string(model::format_name(h.format)) + "\"";
    if (h.format == model::Format::gguf)
        out += ", \"version\": " + std::to_string(h.version) + ", \"endianness\": \"" + (h.big_endian ? "big" : "little") +
               "\", \"alignment\": " + std::to_string(h.alignment);
    out += ", \"file_bytes\": " + std::to_string(h.file_size) + ", \"header_bytes\": " + std::to_string(h.header_bytes) +
           ", \"data_start\": " + std::to_string(h.data_start) + ",\n \"metadata\": {";
    for (size_t i = 0; i < h.metadata.size(); ++i) {
        out += i ? ",\n  " : "\n  ";
        format::append_json_string(out, h.metadata[i].key);
        out += ": ";
        append_json_value(out, h.metadata[i]);
    }
    out += "},\n \"tensors\": [";
    for (size_t i = 0; i < h.tensors.size(); ++i) {
        const auto& t = h.tensors[i];
        out += i ? ",\n  {\"name\": " : "\n  {\"name\": ";
        format::append_json_string(out, t.name);
        out += ", \"type\": ";
        format::append_json_string(out, t.type_name);
        if (t.type_id) out += ", \"type_id\": " + std::to_string(*t.type_id);
        out += ", \"dims\": " + format::json_dims(t.dims) + ", \"n_elements\": " + std::to_string(t.n_elements) +
               ", \"offset\": " + std::to_string(t.offset) + ", \"bytes\": " + std::to_string(t.bytes) + "}";
    }
    out += "],\n \"warnings\": [";
    for (size_t i = 0; i < h.warnings.size(); ++i) {
        out += (i ? ", {\"offset\": " : "{\"offset\": ") + std::to_string(h.warnings[i].offset) + ", \"message\": ";
        format::append_json_string(out, h.warnings[i].message);
        out += "}";
    }
    return out + "]}\n";
}

struct ShowArgs {
    std::string path;
    bool all = false, json = false;
};

int run_show(const ShowArgs& s) {
    try {
        io::LocalReader inline_reads(0);
        io::SyncFile file(inline_reads, io::RangeRequest{s.path});
        const model::FileHeader header = io::read_header(file, {});
        if (s.json) std::cout << json_terminal_safe(header_json(s.path, header));
        else print_header(std::cout, s.path, header, file.bytes_read(), file.requests(), s.all);
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
    cmd->add_flag("--json", s->json, "the header as one JSON object: metadata by key, every tensor (docs/usage.md)");
    return {cmd, [s] { return run_show(*s); }};
}

}  // namespace modelcat::cli
