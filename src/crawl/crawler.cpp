#include "crawl/crawler.hpp"

#include <chrono>

#include "crawl/inputs.hpp"
#include "io/byte_source.hpp"

namespace modelcat::crawl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

FileOutcome crawl_file(catalog::Catalog& catalog, int64_t crawl_id, const std::string& location,
                       const CrawlOptions& options) {
    FileOutcome out;
    out.location = location;
    try {
        auto t0 = Clock::now();
        io::LocalFile source(location);
        catalog::FileRecord rec;
        rec.location = location;
        try {
            rec.header = read_header(source, options.read);
        } catch (...) {
            out.bytes_read = source.bytes_read();
            out.requests = source.requests();
            throw;
        }
        rec.bytes_read = out.bytes_read = source.bytes_read();
        rec.requests = out.requests = source.requests();
        rec.read_ms = ms_since(t0);
        rec.mtime_ns = source.mtime_ns();
        out.tensors = rec.header.tensors.size();
        out.warnings = rec.header.warnings.size();
        catalog.store_model(crawl_id, {model_name_for(location), {std::move(rec)}});
        out.ok = true;
    } catch (const format::FormatError& e) {
        out.offset = e.offset();
        out.message = e.what();
    } catch (const std::exception& e) {
        out.message = e.what();
    }
    if (!out.ok) catalog.record_error(crawl_id, location, out.offset, out.message);
    return out;
}

}  // namespace

CrawlReport run_crawl(catalog::Catalog& catalog, const std::vector<std::string>& inputs, const CrawlOptions& options) {
    auto t0 = Clock::now();
    CrawlReport report;
    report.crawl_id = catalog.begin_crawl(inputs);
    ExpandedInputs expanded = expand_inputs(inputs);
    auto account = [&](FileOutcome o) {
        auto& t = report.totals;
        t.bytes_read += o.bytes_read;
        t.requests += o.requests;
        if (o.ok) {
            ++t.files_ok;
            t.tensors += o.tensors;
        } else {
            ++t.files_failed;
        }
        if (options.on_file) options.on_file(o);
        if (!o.ok) report.failures.push_back(std::move(o));
    };
    for (const auto& p : expanded.problems) {
        catalog.record_error(report.crawl_id, p.input, std::nullopt, p.message);
        account({p.input, false, std::nullopt, p.message});
    }
    for (const auto& f : expanded.files) account(crawl_file(catalog, report.crawl_id, f, options));
    report.totals.seconds = ms_since(t0) / 1000.0;
    catalog.finish_crawl(report.crawl_id, report.totals);
    return report;
}

}  // namespace modelcat::crawl
