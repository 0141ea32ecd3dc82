#pragma once
// Where the reads of one remote file go. The first goes to its URL (a Hub
// /resolve/ URL spends a resolver call and redirects to presigned storage);
// once a redirect has said where the file lives, later reads go there
// directly, without the token or a budget; a refusal there (the presigned URL
// expired or was refused: 403, 400, 410), or from where the URL's own redirect
// led (a URL signed before the read began), sends the read back to the URL, once.
// The crawl's header reads and io::SyncFile follow the same route.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/range_reader.hpp"

namespace modelcat::io {

class ReadRoute {
public:
    // `origin`: the file's URL (or path) and how requests to it go (token, budget); its range is ignored.
    explicit ReadRoute(RangeRequest origin) : origin_(std::move(origin)) {}

    const RangeRequest& origin() const { return origin_; }
    // The request for [offset, offset + length): to the redirect's target once known, else to the origin.
    RangeRequest request(uint64_t offset, uint64_t length) const;
    // True when `reply` is the direct target, or the target the origin redirected to, refusing
    // (the first time): the read is to be asked again, and now goes to the origin.
    bool refused(const RangeReply& reply);
    // Where a reply's redirect led, when no target is known yet: later reads go there.
    void follow(const RangeReply& reply);
    // The headers the redirect to the target carried (the Hub's identity headers).
    const std::vector<std::pair<std::string, std::string>>& first_hop() const { return first_hop_; }

private:
    RangeRequest origin_;
    std::string direct_;
    std::vector<std::pair<std::string, std::string>> first_hop_;
    bool re_resolved_ = false;
};

}  // namespace modelcat::io
