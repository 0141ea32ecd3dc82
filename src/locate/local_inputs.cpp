#include "locate/local_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "io/file_stat.hpp"
#include "model/utf8.hpp"

namespace fs = std::filesystem;

namespace modelcat::locate {

namespace {

// The catalogue's text is UTF-8: such a path is an error, quoted with \xNN.
const std::string kPathNotUtf8 = "path is not valid UTF-8 (shown with \\xNN); not read, as its location cannot be stored as text";

// Why a path found or given cannot be read as a model file, if it cannot.
std::optional<std::string> unusable(const std::string& path) {
    if (model::first_invalid_utf8(path)) return kPathNotUtf8;
    return io::not_a_regular_file(path);
}

bool is_model_file(const fs::path& p) {
    auto ext = p.extension();
    return ext == ".gguf" || ext == ".safetensors" || p.filename().string().ends_with(".safetensors.index.json");
}

// A .txt or .list file named as an input is a list of inputs.
bool is_input_list(const fs::path& p) { return p.extension() == ".txt" || p.extension() == ".list"; }

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

// Model files under `dir`, sorted; an entry with a model suffix that is not a
// regular file (pipe, socket, device, dangling symlink, symlink loop) is a
// problem with its reason. Directory symlinks are not followed, so loops end.
template <typename Add>
void walk_directory(const std::string& dir, std::vector<model::Failure>& problems, Add add) {
    std::error_code ec;
    std::vector<fs::path> found;
    std::vector<model::Failure> unreadable;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (!is_model_file(it->path())) continue;
        std::error_code dir_ec;
        if (it->is_directory(dir_ec)) continue;  // a folder named like a model: walked, not read
        if (auto why = unusable(it->path().string()))
            unreadable.push_back({.location = model::quote_bytes(fs::absolute(it->path()).lexically_normal().string()), .message = *why});
        else
            found.push_back(it->path());
    }
    if (ec) problems.push_back({.location = dir, .message = "cannot walk directory: " + ec.message()});
    std::sort(unreadable.begin(), unreadable.end(), [](const auto& a, const auto& b) { return a.location < b.location; });
    problems.insert(problems.end(), unreadable.begin(), unreadable.end());
    std::sort(found.begin(), found.end());
    for (const auto& p : found) add(p);
}

}  // namespace

std::optional<model::Failure> non_utf8_path(const std::string& path) {
    if (!model::first_invalid_utf8(path)) return std::nullopt;
    return model::Failure{.location = model::quote_bytes(path), .message = kPathNotUtf8};
}

InputList read_input_list(std::istream& in, const std::string& name) {
    std::string text(kMaxInputListBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    auto refuse = [&](const std::string& why) { return InputList{{}, model::Failure{.location = name, .message = why}}; };
    if (text.size() > kMaxInputListBytes) return refuse("list file over " + std::to_string(kMaxInputListBytes >> 20) + " MiB: not read");
    if (auto at = model::first_invalid_utf8(text)) return refuse("not a text list of inputs: invalid UTF-8 at byte " + std::to_string(*at));
    if (auto nul = text.find('\0'); nul != std::string::npos)
        return refuse("not a text list of inputs: a NUL byte at byte " + std::to_string(nul));
    InputList out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        line = trim(line);
        if (!line.empty() && line[0] != '#') out.inputs.push_back(line);
    }
    return out;
}

InputList read_input_list_file(const std::string& path) {
    auto refuse = [&](const std::string& why) { return InputList{{}, model::Failure{.location = path, .message = why}}; };
    if (is_model_file(path)) return refuse("a model file, not a list of inputs (a list is text, one input per line)");
    std::error_code ec;
    uint64_t size = fs::file_size(path, ec);
    if (!ec && size > kMaxInputListBytes)
        return refuse("list file is " + std::to_string(size) + " bytes, over the " + std::to_string(kMaxInputListBytes >> 20) +
                      " MiB a list may hold: not read");
    std::ifstream in(path, std::ios::binary);
    if (!in) return refuse("cannot read list file");
    return read_input_list(in, path);
}

ExpandedInputs expand_inputs(const std::vector<std::string>& given) {
    ExpandedInputs r;
    std::set<std::string> seen, lists_read;
    std::vector<std::string> inputs = given;
    auto add = [&](const fs::path& p) {
        std::string s = fs::absolute(p).lexically_normal().string();
        if (seen.insert(s).second) r.files.push_back(s);
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string input = inputs[i];
        std::error_code ec;
        fs::file_status st = fs::status(input, ec);
        if (model::first_invalid_utf8(input)) {
            r.problems.push_back({.location = model::quote_bytes(input), .message = kPathNotUtf8});
        } else if (ec || !fs::exists(st)) {
            r.problems.push_back({.location = input, .message = io::not_a_regular_file(input).value_or("no such file or directory")});
        } else if (fs::is_directory(st)) {
            walk_directory(input, r.problems, add);
        } else if (auto why = unusable(input)) {
            r.problems.push_back({.location = input, .message = *why});
        } else if (is_input_list(input)) {
            if (!lists_read.insert(fs::absolute(input).lexically_normal().string()).second) continue;  // a list that names itself
            InputList more = read_input_list_file(input);
            if (more.problem) r.problems.push_back(*more.problem);
            inputs.insert(inputs.end(), more.inputs.begin(), more.inputs.end());
        } else {
            add(input);
        }
    }
    return r;
}

std::string model_name_for(const std::string& location) {
    return fs::path(location).stem().string();
}

}  // namespace modelcat::locate
