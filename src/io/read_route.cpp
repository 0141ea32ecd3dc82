#include "io/read_route.hpp"

namespace modelcat::io {

namespace {

// What a storage host answers to a presigned URL that expired or was refused.
bool presigned_refused(long status) { return status == 403 || status == 400 || status == 410; }

}  // namespace

RangeRequest ReadRoute::request(uint64_t offset, uint64_t length) const {
    if (!direct_.empty()) return RangeRequest{direct_, offset, length};
    RangeRequest r = origin_;
    r.offset = offset;
    r.length = length;
    return r;
}

bool ReadRoute::refused(const RangeReply& reply) {
    // a refusal by the origin itself (the Hub: gated) is its answer; one from storage is the signature's
    if (reply.ok() || !presigned_refused(reply.status) || re_resolved_ || (direct_.empty() && !reply.redirected())) return false;
    direct_.clear();
    re_resolved_ = true;
    return true;
}

void ReadRoute::follow(const RangeReply& reply) {
    if (!direct_.empty() || !reply.redirected()) return;
    direct_ = reply.final_url;
    first_hop_ = reply.first_hop;
}

}  // namespace modelcat::io
