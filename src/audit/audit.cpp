#include "audit/audit.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "audit/compare.hpp"
#include "audit/metadata_audit.hpp"
#include "audit/sides.hpp"
#include "format/model_config.hpp"
#include "locate/locator.hpp"
#include "locate/split_name.hpp"
#include "locate/stores.hpp"
#include "model/tensor_names.hpp"

namespace modelcat::audit {

namespace {

constexpr double kGeneratedRelative = 1e-6;

struct Pairing {
    std::vector<PairPlan> pairs;
    std::vector<model::TensorResult> unmatched;
    std::vector<const TensorSpan*> generated;
};

// llama.cpp's converter permutes q/k rows for these architectures (LlamaModel and its subclasses).
bool permutes_qk(const std::string& arch) { return arch == "llama" || arch == "mistral"; }

std::optional<std::string> mapped_name(const std::string& source, const std::map<std::string, std::string>& map) {
    model::TensorName n = model::split_tensor_name(source);
    auto it = map.find(n.kind);
    if (it == map.end()) return std::nullopt;
    return n.layer ? "blk." + std::to_string(*n.layer) + "." + it->second : it->second;
}

PairPlan plan_for(const TensorSpan& g, const TensorSpan& s, const AuditSides& in) {
    PairPlan p{&g, &s, 0, ""};
    if (!permutes_qk(in.architecture) || s.shape.size() != 2) return p;
    if (g.name.ends_with("attn_q.weight")) p.permute_heads = static_cast<uint32_t>(in.config.heads.value_or(0)), p.transform = "permute_q";
    if (g.name.ends_with("attn_k.weight")) p.permute_heads = static_cast<uint32_t>(in.config.kv_heads.value_or(0)), p.transform = "permute_k";
    return p;
}

model::TensorResult unmatched(model::Verdict v, const TensorSpan& t, std::string message) {
    model::TensorResult r;
    (v == model::Verdict::unmatched_gguf ? r.gguf_tensor : r.source_tensor) = t.name;
    (v == model::Verdict::unmatched_gguf ? r.gguf_type : r.source_dtype) = t.type;
    r.verdict = v;
    r.elements = t.elements();
    r.message = std::move(message);
    return r;
}

Pairing pair_tensors(const AuditSides& in, const std::map<std::string, std::string>& map) {
    std::map<std::string, const TensorSpan*> gguf_by_name, source_by_name;
    for (const auto& g : in.gguf) gguf_by_name.emplace(g.name, &g);
    for (const auto& s : in.source) source_by_name.emplace(s.name, &s);
    Pairing out;
    std::set<std::string> paired;
    for (const auto& s : in.source) {
        auto name = mapped_name(s.name, map);
        auto g = name ? gguf_by_name.find(*name) : gguf_by_name.end();
        if (!name) out.unmatched.push_back(unmatched(model::Verdict::unmatched_source, s, "no name mapping for this kind in '" + in.architecture + "'"));
        else if (g == gguf_by_name.end()) out.unmatched.push_back(unmatched(model::Verdict::unmatched_source, s, "no GGUF tensor " + *name));
        else out.pairs.push_back(plan_for(*g->second, s, in)), paired.insert(*name);
    }
    // Tied embeddings written out anyway: output.weight holds the embedding table.
    auto out_w = gguf_by_name.find("output.weight"), embed = source_by_name.find("model.embed_tokens.weight");
    if (out_w != gguf_by_name.end() && !paired.count("output.weight") && !source_by_name.count("lm_head.weight") &&
        embed != source_by_name.end()) {
        out.pairs.push_back({out_w->second, embed->second, 0, "tied"});
        paired.insert("output.weight");
    }
    for (const auto& g : in.gguf) {
        if (paired.count(g.name)) continue;
        if (g.name == "rope_freqs.weight") out.generated.push_back(&g);
        else out.unmatched.push_back(unmatched(model::Verdict::unmatched_gguf, g, "no source tensor maps to it"));
    }
    return out;
}

model::TensorResult check_generated(const TensorSpan& g, const AuditSides& in, AuditReaders& files) {
    std::vector<double> expected = format::llama3_rope_factors(in.config);
    if (!expected.empty()) return compare_generated(g, files, expected, kGeneratedRelative);
    model::TensorResult r = generated_result(g);
    r.verdict = model::Verdict::generated_unchecked;
    r.message = "generated, not checked: config.json has no llama3 rope_scaling";
    return r;
}

// Compares every pair on `jobs` threads, each with its own open files.
std::vector<model::TensorResult> compare_all(const std::vector<PairPlan>& pairs, const AuditSides& in, const AuditOptions& o,
                                      uint64_t& bytes, uint64_t& requests) {
    std::vector<model::TensorResult> results(pairs.size());
    std::vector<size_t> order(pairs.size());  // largest first: no worker is left with a big tensor at the end
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return pairs[a].gguf->bytes > pairs[b].gguf->bytes; });
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> done{0};
    uint64_t total = 0;
    for (const auto& p : pairs) total += p.gguf->bytes;
    std::mutex mu;
    std::exception_ptr error;
    auto work = [&] {
        AuditReaders files(in);
        try {
            for (size_t k; (k = next++) < pairs.size();) {
                size_t i = order[k];
                results[i] = compare_pair(pairs[i], files, o.sample_rows);
                uint64_t d = done += pairs[i].gguf->bytes;
                if (o.on_progress) {
                    std::lock_guard lock(mu);
                    o.on_progress(d, total);
                }
            }
        } catch (...) {
            std::lock_guard lock(mu);
            if (!error) error = std::current_exception();
            next = pairs.size();
        }
        std::lock_guard lock(mu);
        bytes += files.bytes_read(), requests += files.requests();
    };
    std::vector<std::thread> threads;
    for (unsigned j = 1; j < std::max(1u, o.jobs); ++j) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
    return results;
}

}  // namespace

model::AuditResult run_audit(const std::string& gguf, const std::string& source, const AuditOptions& options) {
    auto start = std::chrono::steady_clock::now();
    // located as the crawl locates them, so that the audit's rows name the catalogue's files
    auto located = [](const std::string& l) { return locate::is_remote(l) ? l : locate::absolute_path(l); };
    model::AuditResult res;
    res.gguf_location = locate::split_set_files(located(gguf)).front(), res.source_location = located(source);
    AuditSides in = read_sides(res.gguf_location, res.source_location, options.access, options.known_budgets);
    if (!in.source.empty()) res.source_first_file = in.files[in.source.front().file].route.origin().location;
    res.source_tensors = in.source.size();
    res.sample_rows = options.sample_rows;
    res.bytes_read = in.header_bytes_read, res.requests = in.header_requests;
    Pairing pairing = pair_tensors(in, options.name_map ? options.name_map(in.architecture) : std::map<std::string, std::string>{});
    res.tensors = compare_all(pairing.pairs, in, options, res.bytes_read, res.requests);
    AuditReaders files(in);
    for (const TensorSpan* g : pairing.generated) res.tensors.push_back(check_generated(*g, in, files));
    res.bytes_read += files.bytes_read(), res.requests += files.requests();
    for (auto& u : pairing.unmatched) res.tensors.push_back(std::move(u));
    res.metadata = audit_metadata(in.gguf_header, in.texts);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
}

}  // namespace modelcat::audit
