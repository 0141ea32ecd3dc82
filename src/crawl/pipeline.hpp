#pragma once
// The one model pipeline, for local and remote inputs alike: for each
// planned model, four stages: identify (unchanged: nothing read), read (the
// headers through an io::RangeReader), derive (the checks that its files form
// a whole, and its rows: a pure function), store (one write). Many models are in flight at once; a bad
// model costs only itself, a database error stops the crawl (it propagates).
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/writer.hpp"
#include "crawl/crawled_file.hpp"
#include "crawl/outcome.hpp"
#include "format/header_assembler.hpp"
#include "io/range_reader.hpp"
#include "locate/access.hpp"
#include "locate/plan.hpp"
#include "locate/remote_plan.hpp"
#include "model/header.hpp"
#include "model/limits.hpp"

namespace modelcat::crawl {

struct PipelineOptions {
    model::Limits limits;
    uint64_t first_read_gguf = 64 << 10;         // a GGUF's first read; then what the parser estimates
    uint64_t first_read_safetensors = 64 << 10;  // a safetensors file's first read
    bool read_generously = false;                // remote: a third request costs more than extra bytes
    bool force = false;                          // re-read unchanged files too
    size_t models_in_flight = 16;
    // Headers being read at once (0: no limit): each holds a buffer that the next one reuses, so a
    // 7.8 MB tokenizer costs the kernel no fresh zeroed pages; more than the cores only wait.
    size_t header_reads_at_once = 0;
    locate::HttpAccess access;  // how remote files are asked for (the token, the budgets)
    std::function<bool()> should_stop;  // asked before each model starts: true starts no more
};

struct ModelJob;    // one model on its way through the stages (crawl/pipeline_state.hpp)
struct HeaderRead;  // one data file's header being read

class ModelPipeline {
public:
    ModelPipeline(catalog::Writer& catalog, int64_t crawl_id, io::RangeReader& reader, PipelineOptions options,
                  const locate::RemoteFacts& known, std::function<void(ModelOutcome)> account);
    ~ModelPipeline();
    // Runs every model to its outcome, or (should_stop) those started; false when some were not.
    bool run(std::vector<locate::ModelPlan> plans);

private:
    using JobPtr = std::shared_ptr<ModelJob>;

    // the loop (pipeline.cpp)
    void start_next();
    void start(locate::ModelPlan plan);
    void fail(const JobPtr& job, model::Failure failure);
    void done(const JobPtr& job);
    void abandon(const JobPtr& job);
    static void add_cost(ModelOutcome& o, const io::RangeReply& reply);
    io::RangeRequest request(const std::string& location, uint64_t offset, uint64_t length) const;
    // 1. identify: unchanged, read nothing (pipeline_identify.cpp)
    std::optional<ContentIdentity> identity_now(const locate::ModelPlan& plan, const std::string& location) const;
    void check_unchanged(const JobPtr& job);
    void ask_server(const JobPtr& job, std::vector<std::pair<std::string, std::string>> to_ask);
    void unchanged(const JobPtr& job);
    // 2. read: headers and side files through the reader (pipeline_read.cpp)
    const locate::ListingEntry* listing(const std::string& location) const;
    bool stop_asked() const;
    void read_all(const JobPtr& job);
    void read_data(const JobPtr& job, size_t index, bool restarted);
    void read_next_data(const JobPtr& job);
    void end_read(const std::shared_ptr<HeaderRead>& fr);
    void read_range(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr, format::ByteRange range);
    void on_range(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr, io::RangeReply reply);
    void parsed(const JobPtr& job, const std::shared_ptr<HeaderRead>& fr);
    void read_side_file(const JobPtr& job, size_t index);
    void side_file_done(const JobPtr& job, size_t index, const io::RangeReply& reply);
    void read_layers(const JobPtr& job, size_t index, const locate::PlannedManifest& manifest, CrawledFile record);
    void file_done(const JobPtr& job, size_t index, CrawledFile record);
    // 3. derive, where the bytes arrived (crawl/derive.hpp), and 4. store (pipeline.cpp)
    void finish(const JobPtr& job);
    void store(const JobPtr& job);

    catalog::Writer& catalog_;
    int64_t crawl_id_;
    io::RangeReader& reader_;
    PipelineOptions options_;
    const locate::RemoteFacts& known_;
    std::function<void(ModelOutcome)> account_;
    std::deque<locate::ModelPlan> queue_;
    size_t in_flight_ = 0;
    bool starting_ = false;
    std::vector<std::string> checked_;  // files seen unchanged, recorded together at the end
    // header reads beyond header_reads_at_once wait here (job, file index, restarted); buffers of ended reads
    struct WaitingRead {
        JobPtr job;
        size_t index;
        bool restarted;
    };
    std::deque<WaitingRead> waiting_reads_;
    size_t header_reads_ = 0;
    std::vector<std::unique_ptr<format::ByteBuffer>> spare_buffers_;
};

}  // namespace modelcat::crawl
