#!/usr/bin/env python3
"""A Hugging Face Hub replica for the crawl tests: two HTTP servers on 127.0.0.1.

The Hub host answers the models API (/api/models?author=&search=&filter=, sorted by
lastModified, paged with Link: rel="next"; /api/models/OWNER/REPO, 404 once the repo
is deleted), tree listings (/api/models/OWNER/REPO/tree/REV, paged the same way) and
/resolve/ URLs (302 to the storage host with a presigned,
expiring query string; X-Linked-Etag, X-Linked-Size, X-Xet-Hash and
X-Repo-Commit on the 302 only). Both budgets ("api", "resolvers") are fixed
windows announced in RateLimit / RateLimit-Policy on every answer and enforced
with 429. Repos under a "gated-" name refuse anonymous resolves and mask hashes.
The storage host serves byte ranges of presigned URLs and refuses expired or
forged signatures with 403. Every request is one JSON line in --log.
Files are ROOT/OWNER/REPO/PATH (a repo's lastModified is its newest file's mtime, its
sha a hash of its files' names, sizes and mtimes: a test changes a repo by touching a
file, deletes it by removing its folder); the two ports are written to --ports-file.
"""
import argparse, hashlib, hmac, json, math, os, re, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs, quote

KEY = b"replica-signing-key"
PAGE_MAX = 1000
args = None
lock = threading.Lock()
windows = {}      # budget -> (window index, calls in it)
issued = {}       # path -> presigned URLs issued so far
uses = {}         # signature -> reads served
T0 = time.time()


def log(fields):
    """host, time, method, target, status, body bytes, Range, Authorization: tab-separated."""
    with lock, open(args.log, "a") as f:
        f.write("\t".join(str(v) for v in fields) + "\n")


def spend(budget):
    """Counts a call against a fixed window: (allowed, remaining, seconds to reset)."""
    quota = args.api_quota if budget == "api" else args.resolver_quota
    now = time.time() - T0
    index = int(now // args.window)
    reset = max(1, math.ceil((index + 1) * args.window - now))
    with lock:
        w, n = windows.get(budget, (index, 0))
        if w != index:
            n = 0
        if n >= quota:
            windows[budget] = (index, n)
            return False, 0, reset, quota
        windows[budget] = (index, n + 1)
        return True, quota - n - 1, reset, quota


def file_hashes(full, rel):
    st = os.stat(full)
    seed = f"{rel}:{st.st_size}:{st.st_mtime_ns}".encode()
    return hashlib.sha256(seed).hexdigest(), hashlib.sha256(b"xet" + seed).hexdigest()


def repo_card(repo):
    """id, lastModified (the newest file's mtime), sha (of the files' names, sizes, mtimes), tags, gated."""
    base = os.path.join(args.root, repo)
    newest, seed, tags = 0, hashlib.sha1(), set()
    for d, _, names in sorted(os.walk(base)):
        for n in sorted(names):
            st = os.stat(os.path.join(d, n))
            newest = max(newest, st.st_mtime_ns)
            seed.update(f"{os.path.relpath(os.path.join(d, n), base)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
            tags.update(t for t in ("gguf", "safetensors") if n.endswith("." + t))
    ms = newest // 1_000_000
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"
    gated = "manual" if repo.split("/")[1].startswith("gated-") else False
    return {"_id": hashlib.md5(repo.encode()).hexdigest()[:24], "id": repo, "lastModified": stamp, "sha": seed.hexdigest(),
            "tags": sorted(tags), "gated": gated, "private": False, "_ms": ms}


def all_repos():
    return [f"{o}/{r}" for o in sorted(os.listdir(args.root)) if os.path.isdir(os.path.join(args.root, o))
            for r in sorted(os.listdir(os.path.join(args.root, o))) if os.path.isdir(os.path.join(args.root, o, r))]


def sign(path, expires, nonce):
    return hmac.new(KEY, f"{path}:{expires}:{nonce}".encode(), "sha256").hexdigest()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        log([self.server.name, f"{time.time():.3f}", self.command, self.path, status, len(body),
             self.headers.get("Range", "-"), self.headers.get("Authorization", "-")])


class Hub(Handler):
    def do_GET(self):
        url = urlsplit(self.path)
        budget = "api" if url.path.startswith("/api/") else "resolvers" if "/resolve/" in url.path else None
        headers = []
        if budget:
            ok, left, reset, quota = spend(budget)
            headers = [("RateLimit", f'"{budget}";r={left};t={reset}'),
                       ("RateLimit-Policy", f'"fixed window";"{budget}";q={quota};w={args.window:g}')]
            if not ok:
                return self.answer(429, b"rate limited\n", headers + [("Retry-After", str(reset))])
        if url.path == "/api/models":
            return self.models(parse_qs(url.query), headers)
        m = re.fullmatch(r"/api/models/([^/]+/[^/]+)", url.path)
        if m:
            if not os.path.isdir(os.path.join(args.root, m.group(1))):
                return self.answer(404, b'{"error":"Repository not found"}', headers)
            card = {k: v for k, v in repo_card(m.group(1)).items() if not k.startswith("_")}
            return self.answer(200, json.dumps(card).encode(), headers + [("Content-Type", "application/json")])
        m = re.fullmatch(r"/api/models/([^/]+/[^/]+)/tree/([^/]+)", url.path)
        if m:
            return self.listing(m.group(1), parse_qs(url.query), headers)
        m = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", url.path)
        if m:
            return self.resolve(m.group(1), m.group(3), headers)
        self.answer(404, b"not found\n", headers)

    def listing(self, repo, q, headers):
        base = os.path.join(args.root, repo)
        if not os.path.isdir(base):
            return self.answer(404, b"no such repo\n", headers)
        gated = repo.split("/")[1].startswith("gated-")
        entries = []
        for d, _, names in sorted(os.walk(base)):
            for n in sorted(names):
                full = os.path.join(d, n)
                rel = os.path.relpath(full, base)
                sha, xet = file_hashes(full, rel)
                if gated:
                    sha, xet = "*" * 64, "*" * 64
                size = os.stat(full).st_size
                entries.append({"type": "file", "path": rel, "size": size, "oid": "x", "xetHash": xet,
                                "lfs": {"oid": sha, "size": size, "pointerSize": 134}})
        limit = min(int(q.get("limit", ["50"])[0]), PAGE_MAX)
        start = int(q.get("cursor", ["0"])[0])
        page = entries[start:start + limit]
        if start + limit < len(entries):
            nxt = f"http://127.0.0.1:{self.server.server_port}{urlsplit(self.path).path}?recursive=true&expand=false" \
                  f"&limit={limit}&cursor={start + limit}"
            headers = headers + [("Link", f'<{nxt}>; rel="next"')]
        self.answer(200, json.dumps(page).encode(), headers + [("Content-Type", "application/json")])

    def models(self, q, headers):
        """The models API as the Hub answers it: filtered, sorted, paged by an opaque cursor, expand= fields only."""
        if q.get("sort", ["lastModified"])[0] != "lastModified" or q.get("direction", ["-1"])[0] != "-1":
            return self.answer(400, b"this replica sorts by lastModified, newest first, only\n", headers)
        cards = [repo_card(r) for r in all_repos()]
        if "author" in q:
            cards = [c for c in cards if c["id"].split("/")[0] == q["author"][0]]
        if "search" in q:
            cards = [c for c in cards if q["search"][0].lower() in c["id"].lower()]
        for tag in q.get("filter", []):
            cards = [c for c in cards if tag in c["tags"]]
        cards.sort(key=lambda c: (-c["_ms"], c["id"]), reverse=args.models_oldest_first)
        limit = min(int(q.get("limit", ["1000"])[0]), args.models_page_max)
        start = int(q.get("cursor", ["0"])[0])
        expand = q.get("expand", []) + q.get("expand[]", [])
        page = [{k: v for k, v in c.items() if k in ("_id", "id") or k in expand} for c in cards[start:start + limit]]
        if start + limit < len(cards):
            keep = [(k, v) for k, vs in q.items() if k != "cursor" for v in vs]
            nxt = f"http://127.0.0.1:{self.server.server_port}/api/models?" + "&".join(f"{k}={quote(v)}" for k, v in keep) \
                  + f"&cursor={start + limit}"
            headers = headers + [("Link", f'<{nxt}>; rel="next"')]
        self.answer(200, json.dumps(page).encode(), headers + [("Content-Type", "application/json")])

    def resolve(self, repo, path, headers):
        full = os.path.join(args.root, repo, path)
        if not os.path.isfile(full):
            return self.answer(404, b"entry not found\n", headers)
        if repo.split("/")[1].startswith("gated-") and not self.headers.get("Authorization"):
            return self.answer(401, b"gated\n", headers)
        sha, xet = file_hashes(full, path)
        key = f"/{repo}/{path}"
        # --expired-first-url TEXT: the first URL issued for a file whose path holds TEXT is an hour old already
        stale = args.expired_first_url and args.expired_first_url in path and key not in issued
        expires = int(time.time()) + (-1 if stale else 3600)
        with lock:
            nonce = sum(len(v) for v in issued.values())  # every URL issued is a new one
            target = f"{key}?X-Amz-Expires={expires}&X-Amz-Nonce={nonce}&X-Amz-Signature={sign(key, expires, nonce)}"
            issued.setdefault(key, []).append(target)
        location = f"http://127.0.0.1:{args.storage_port}{quote(target, safe='/?=&')}"
        self.answer(302, b"", headers + [("Location", location), ("X-Linked-Etag", f'"{sha}"'),
                                         ("X-Linked-Size", str(os.stat(full).st_size)), ("X-Xet-Hash", xet),
                                         ("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567"),
                                         ("ETag", f'"{sha}"')])


class Storage(Handler):
    def do_GET(self):
        url = urlsplit(self.path)
        q = parse_qs(url.query)
        try:
            expires = int(q["X-Amz-Expires"][0])
            good = hmac.compare_digest(q["X-Amz-Signature"][0], sign(url.path, expires, q["X-Amz-Nonce"][0]))
        except (KeyError, ValueError):
            return self.answer(403, b"missing signature\n")
        with lock:
            n = uses[self.path] = uses.get(self.path, 0) + 1
            first_url = issued.get(url.path, [None])[0] == self.path
        # --first-url-reads N: the first URL issued for a file expires after N reads (as one an hour old would)
        if not good or expires < time.time() or (first_url and args.first_url_reads and n > args.first_url_reads):
            return self.answer(403, b"Request has expired\n")
        full = os.path.join(args.root, url.path.lstrip("/"))
        size = os.stat(full).st_size
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if not m:
            return self.answer(400, b"ranges only\n")
        first, last = int(m.group(1)), min(int(m.group(2)), size - 1)
        with open(full, "rb") as f:
            f.seek(first)
            body = f.read(last - first + 1)
        sha, _ = file_hashes(full, url.path.split("/", 3)[3])
        self.answer(206, body, [("Content-Range", f"bytes {first}-{last}/{size}"), ("ETag", f'"storage-{sha[:16]}"')])


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--ports-file", required=True)
    p.add_argument("--api-quota", type=int, default=1000)
    p.add_argument("--resolver-quota", type=int, default=5000)
    p.add_argument("--window", type=float, default=300)
    p.add_argument("--first-url-reads", type=int, default=0)
    p.add_argument("--expired-first-url", default="")
    p.add_argument("--models-page-max", type=int, default=1000)
    p.add_argument("--models-oldest-first", action="store_true")  # a server ignoring direction=-1
    args = p.parse_args()
    storage = ThreadingHTTPServer(("127.0.0.1", 0), Storage)
    hub = ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    storage.name, hub.name = "storage", "hub"
    storage.daemon_threads = hub.daemon_threads = True
    args.storage_port = storage.server_port
    threading.Thread(target=storage.serve_forever, daemon=True).start()
    with open(args.ports_file + ".tmp", "w") as f:
        f.write(f"{hub.server_port} {storage.server_port}\n")
    os.rename(args.ports_file + ".tmp", args.ports_file)
    hub.serve_forever()


if __name__ == "__main__":
    main()
