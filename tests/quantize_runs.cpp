#include "quantize_runs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "format/gguf.hpp"

namespace fs = std::filesystem;

namespace modelcat::test {

const fs::path kRunsDir = fs::path(MODELCAT_TESTS_DIR) / "llama-quantize";
const fs::path kFixtureDir = fs::path(MODELCAT_SOURCE_DIR) / ".." / "shared" / "fixtures" / "llama-cpp";

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, sep)) out.push_back(field);
    if (!line.empty() && line.back() == sep) out.emplace_back();
    return out;
}

std::vector<std::vector<std::string>> tsv(const fs::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') rows.push_back(split(line, '\t'));
    return rows;
}

std::optional<uint64_t> size_field(const std::string& s) {
    if (s.empty() || s == "-") return std::nullopt;
    return std::stoull(s);
}

// PROVENANCE.md's variants of the fixture, by file name.
const std::map<std::string, std::vector<std::string>>& fixture_variant_options() {
    static const std::map<std::string, std::vector<std::string>> m{
        {"Q4_K_L", {"--token-embedding-type", "q8_0", "--output-tensor-type", "q8_0"}},
        {"Q5_K_L", {"--token-embedding-type", "q8_0", "--output-tensor-type", "q8_0"}},
        {"Q3_K_XL", {"--token-embedding-type", "q8_0", "--output-tensor-type", "q8_0"}},
        {"Q4_K_M-pure", {"--pure"}},
        {"Q4_K_M-leave-output", {"--leave-output-tensor"}},
        {"Q4_K_M-attnq8", {"--tensor-type", "attn_q=q8_0"}},
    };
    return m;
}

model::GgmlTypeId type_argument(const std::string& s) {
    if (auto t = quantize::parse_type(s)) return *t;
    throw std::runtime_error("not a ggml type: " + s);
}

}  // namespace

std::vector<QuantizeRun> quantize_runs() {
    std::vector<QuantizeRun> runs;
    for (const auto& f : tsv(kRunsDir / "results.tsv")) {
        if (f.size() < 7) throw std::runtime_error("results.tsv: a row of " + std::to_string(f.size()) + " fields");
        runs.push_back({f[0], f[1], f[2], f[3].empty() ? std::vector<std::string>{} : split(f[3], ' '),
                        std::stoi(f[4]), size_field(f[5]), f[6]});
    }
    return runs;
}

std::vector<QuantizeRun> fixture_runs() {
    std::vector<QuantizeRun> runs;
    for (const auto& f : tsv(kFixtureDir / "quantize-results.tsv")) {
        auto it = fixture_variant_options().find(f.at(0));
        runs.push_back({"tiny-" + f.at(0), "tiny", f.at(1),
                        it == fixture_variant_options().end() ? std::vector<std::string>{} : it->second,
                        std::stoi(f.at(2)), size_field(f.at(3)), f.size() > 4 ? f[4] : ""});
    }
    return runs;
}

model::FileHeader read_header(const fs::path& path, uint64_t file_size) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes;
    for (uint64_t want = 64 << 10;; want *= 2) {  // of a whole file, only as much as its header needs
        bytes.resize(want);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(want));
        bytes.resize(static_cast<size_t>(in.gcount()));
        format::ParseResult r = format::parse_gguf(bytes, file_size);
        if (auto* h = std::get_if<model::FileHeader>(&r)) return std::move(*h);
        if (!in) throw std::runtime_error(path.string() + " holds less than its header");
        in.clear();
        in.seekg(0);
    }
}

model::FileHeader read_header(const fs::path& path) { return read_header(path, fs::file_size(path)); }

fs::path header_path(const QuantizeRun& run) {
    return run.model == "tiny" ? kFixtureDir / "gguf" / (run.name + ".gguf")
                               : kRunsDir / "headers" / (run.name + ".gguf");
}

model::FileHeader run_header(const QuantizeRun& run) {
    if (!run.file_size) throw std::runtime_error(run.name + " wrote no file");
    return read_header(header_path(run), *run.file_size);
}

quantize::QuantizeOptions run_options(const QuantizeRun& run) {
    quantize::QuantizeOptions o;
    const auto& a = run.options;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string& opt = a[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= a.size()) throw std::runtime_error(run.name + ": " + opt + " without a value");
            return a[++i];
        };
        if (opt == "--pure") o.pure = true;
        else if (opt == "--leave-output-tensor") o.leave_output_tensor = true;
        else if (opt == "--token-embedding-type") o.token_embedding_type = type_argument(value());
        else if (opt == "--output-tensor-type") o.output_tensor_type = type_argument(value());
        else if (opt == "--imatrix") o.imatrix = !value().empty();
        else if (opt == "--override-kv") value();
        else if (opt == "--tensor-type") {
            const std::string& v = value();
            const size_t eq = v.find('=');
            std::string pattern = v.substr(0, eq);
            for (char& c : pattern) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            o.tensor_types.push_back({pattern, type_argument(v.substr(eq + 1))});
        } else {
            throw std::runtime_error(run.name + ": option " + opt + " is not one the replay knows");
        }
    }
    return o;
}

bool typed_options(const QuantizeRun& run) { return run_options(run).count() > 0; }

bool relabelling(const QuantizeRun& run) {
    return std::find(run.options.begin(), run.options.end(), "--override-kv") != run.options.end();
}

const std::map<std::string, std::string>& equivalents() {
    static const std::map<std::string, std::string> m{
        // stock Q4_K_M already gives output Q6_K and attn_q the default Q4_K
        {"llama-32L-Q4_K_M-output6", ""},
        {"llama-32L-Q4_K_M-attnq4", ""},
        // no output.weight to leave: tied embeddings
        {"llama-28L-tied-Q4_K_M-leave-output", ""},
        {"qwen3-36L-tied-Q4_K_M-leave-output", ""},
        {"gemma-18L-Q4_K_M-leave-output", ""},
        {"gemma3-26L-Q4_K_M-leave-output", ""},
        // the regex attn_q matches falcon's fused attn_qkv: the same file as attn_qkv=q8_0, which names the kind
        {"falcon-32L-Q4_K_M-attnq8", "--tensor-type attn_qkv=q8_0"},
        // rows of 800 do not divide into Q6_K's 256 blocks: the fallback stores Q8_0, as ffn_down=q8_0 would
        {"llama-hidden320-Q4_K_M-ffndown6", "--tensor-type ffn_down=q8_0"},
        // tied: --output-tensor-type only reaches token_embd, which --token-embedding-type names
        {"llama-28L-tied-Q4_K_L", "--token-embedding-type q8_0"},
        {"qwen3-36L-tied-Q4_K_L", "--token-embedding-type q8_0"},
        {"gemma-18L-Q4_K_L", "--token-embedding-type q8_0"},
        {"gemma3-26L-Q4_K_L", "--token-embedding-type q8_0"},
        {"llama-28L-tied-Q4_K_M-output8", "--token-embedding-type q8_0"},
        // stock output is Q8_0 already: falcon always, and rows of 320 do not divide into Q6_K's 256
        {"falcon-32L-Q4_K_L", "--token-embedding-type q8_0"},
        {"llama-hidden320-Q4_K_L", "--token-embedding-type q8_0"},
        // --pure skips the standard logic, through which alone a tied embedding follows --output-tensor-type
        {"llama-28L-tied-Q4_K_M-pure-output8", "--pure"},
    };
    return m;
}

ExpectedRecipe expected_recipe(const QuantizeRun& run) {
    const std::string typed = run_options(run).command_line();
    if (relabelling(run)) {
        auto kv = std::find(run.options.begin(), run.options.end(), "--override-kv");
        return {"relabelled", "--override-kv " + *(kv + 1) + (typed.empty() ? "" : " " + typed)};
    }
    if (run.name.ends_with("-scattered")) return {"custom", std::nullopt};
    std::string overrides = typed;
    if (auto e = equivalents().find(run.name); e != equivalents().end()) overrides = e->second;
    return {overrides.empty() ? "stock" : "stock+overrides", overrides};
}

}  // namespace modelcat::test
