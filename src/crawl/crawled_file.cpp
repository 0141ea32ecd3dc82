#include "crawl/crawled_file.hpp"

#include "locate/hub.hpp"
#include "model/utf8.hpp"

namespace modelcat::crawl {

const char* role_name(FileRole role) {
    switch (role) {
        case FileRole::data: return "data";
        case FileRole::index: return "index";
        case FileRole::config: return "config";
        case FileRole::manifest: return "manifest";
    }
    return "data";
}

void ReadCost::add(const io::RangeReply& r) {
    bytes += r.bytes;
    requests += r.requests;
    by_kind.add(locate::request_kinds(r));
}

namespace {

// A presigned URL's query is a credential for an hour: recorded without it.
std::string without_query(const std::string& url) { return url.substr(0, url.find('?')); }

void record_answer(CrawledFile& rec, const io::RangeReply& last, const locate::ListingEntry* listed) {
    rec.identity.size = last.total_size.value_or(rec.header.file_size);
    rec.identity.stat = last.stat;
    if (last.stat) return;  // a local file: the stat triple is its identity
    // header values come from a server: only valid UTF-8 enters the catalogue (bad bytes as \xNN)
    rec.identity.etag = model::quote_bytes(last.etag);
    rec.identity.sha256 = listed && listed->sha256 ? listed->sha256 : locate::hub_sha256(last);
    rec.identity.xet_hash = listed && listed->xet_hash ? listed->xet_hash : locate::hub_xet_hash(last);
    // a presigned query is a credential for an hour: never stored
    const std::string final_url = last.final_url == rec.location ? last.final_url : without_query(last.final_url);
    rec.remote = RemoteAnswer{*rec.identity.etag, model::quote_bytes(last.last_modified), model::quote_bytes(final_url),
                              listed ? listed->revision : std::nullopt, last.status};
}

}  // namespace

CrawledFile crawled_file(const std::string& location, FileRole role, model::FileHeader header, const ReadCost& cost,
                       const io::RangeReply& last, const locate::ListingEntry* listed) {
    CrawledFile rec;
    rec.location = location;
    rec.role = role;
    rec.header = std::move(header);
    rec.cost = cost;
    record_answer(rec, last, listed);
    return rec;
}

CrawledFile crawled_side_file(const std::string& location, FileRole role, model::Format format, const io::RangeReply& reply,
                       std::vector<model::MetadataEntry> metadata, const locate::ListingEntry* listed) {
    CrawledFile rec;
    rec.location = location;
    rec.role = role;
    rec.header.format = format;
    rec.header.file_size = reply.total_size.value_or(reply.body.size());
    rec.header.header_bytes = rec.header.data_start = reply.body.size();
    rec.header.metadata = std::move(metadata);
    rec.cost.add(reply);
    record_answer(rec, reply, listed);
    return rec;
}

}  // namespace modelcat::crawl
