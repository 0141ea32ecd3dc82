#pragma once
// The pipeline's state of one model and of one header being read: private to
// the pipeline's files (pipeline.cpp, pipeline_identify.cpp, pipeline_read.cpp).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crawl/crawled_file.hpp"
#include "crawl/outcome.hpp"
#include "format/header_assembler.hpp"
#include "io/range_reader.hpp"
#include "io/read_route.hpp"
#include "locate/plan.hpp"
#include "model/error.hpp"
#include "model/rows.hpp"

namespace modelcat::crawl {

struct ModelJob {
    void derive();
    locate::ModelPlan plan;
    std::vector<std::string> files;                // all_files(plan): data files, then index and config
    std::vector<std::optional<CrawledFile>> read;   // one per file
    size_t pending = 0;
    size_t next_data = 0, data_reading = 0;  // data files: the next to start, and those started and not done
    bool known = false, finished = false;
    ModelOutcome outcome;
    std::optional<model::ModelRows> rows;   // what derive() made of the files, to be written
    std::optional<model::Failure> failure;  // or why they are not one model
};

struct HeaderRead {
    HeaderRead(const std::string& location, format::HeaderReadOptions options, io::RangeRequest origin, size_t i, bool again,
               std::unique_ptr<format::ByteBuffer> reused)
        : buffer(std::move(reused)), assembler(location, std::move(options), buffer.get()), route(std::move(origin)), index(i),
          restarted(again) {}
    void parse();
    std::unique_ptr<format::ByteBuffer> buffer;  // a buffer an earlier read used, or none (the assembler's own)
    format::HeaderAssembler assembler;
    // Where the reads go: after the first read's redirect, its target (a presigned storage URL),
    // directly; the headers the redirect carried identify the file.
    io::ReadRoute route;
    io::RangeReply last;                       // the latest reply; its bytes go to the assembler
    std::optional<format::ByteRange> next;     // what parse() asks to read next, if anything
    std::optional<model::FormatError> error;  // or what it found wrong
    size_t index;
    bool restarted;
    ReadCost cost;
    std::string version;  // of the first reply
    format::ByteRange asked;  // the read in flight
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

}  // namespace modelcat::crawl
