#include "io/http_reader.hpp"

namespace modelcat::io {

void HttpReader::submit(RangeRequest request, std::function<void(RangeReply)> on_done) {
    HttpRequest r{request.location, request.offset, request.length, request.if_none_match, request.with_token,
                  std::move(request.budget)};
    fetcher_.submit(std::move(r), [done = std::move(on_done)](HttpResponse resp) {
        RangeReply out;
        out.location = std::move(resp.url);
        out.status = resp.status;
        out.body = std::move(resp.body);
        out.total_size = resp.total_size;
        out.etag = std::move(resp.etag);
        out.last_modified = std::move(resp.last_modified);
        out.final_url = std::move(resp.final_url);
        out.first_hop = std::move(resp.first_hop);
        out.link_next = std::move(resp.link_next);
        out.error = std::move(resp.error);
        out.requests = resp.requests;
        out.attempts = resp.attempts;
        out.bytes = resp.bytes_received;
        done(std::move(out));
    });
}

}  // namespace modelcat::io
