// Writes bench/RESULTS-remote.md (on stdout) from the raw output of bench/remote.sh:
//   node bench/remote-report.mjs WORKDIR
// WORKDIR holds meta.json, reference.json (header bytes read locally), count/ (the pass on the
// sndbuf=32k listener that requests and bytes are taken from) and runs/N/ (the timed runs). Each
// case leaves NAME.log (its slice of nginx's access log), NAME.time (GNU time -v), NAME.wall,
// NAME.out (modelcat's --json-summary or the peer's JSON), NAME.err and, for modelcat,
// NAME.files.json (its own per-file counters). Cases: mc-remote, mc-ckpt, mc-local (modelcat),
// peer-remote, peer-local (the peer).
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";

const work = process.argv[2];
if (!work) {
  console.error("usage: node remote-report.mjs WORKDIR");
  process.exit(2);
}

// --- reading ---------------------------------------------------------------------------------------
const text = (p) => (existsSync(p) ? readFileSync(p, "utf8") : "");
const json = (p, fallback) => {
  const t = text(p).trim();
  for (const candidate of [t, t.split("\n").filter(Boolean).pop()]) {
    try {
      return JSON.parse(candidate);
    } catch {}
  }
  return fallback;
};
function accessLog(p) {
  return text(p)
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const f = line.split("\t");
      return {
        end: Number(f[0]),
        duration: Number(f[1]),
        connection: f[2],
        connectionRequests: Number(f[3]),
        status: Number(f[4]),
        bytes: Number(f[5]),
        method: f[6],
        uri: f[7],
        range: f[8],
        port: f[9],
      };
    });
}
function gnuTime(p) {
  const t = text(p);
  const rss = t.match(/Maximum resident set size \(kbytes\): (\d+)/);
  const user = t.match(/User time \(seconds\): ([\d.]+)/);
  const sys = t.match(/System time \(seconds\): ([\d.]+)/);
  return { rss_kb: rss ? Number(rss[1]) : NaN, cpu_s: user && sys ? Number(user[1]) + Number(sys[1]) : NaN };
}
// Requests, bytes, statuses and ranges per file (the URI's last path component).
function perFile(entries) {
  const files = new Map();
  for (const e of entries) {
    const name = decodeURIComponent(basename(e.uri.split("?")[0]));
    if (!files.has(name)) files.set(name, { requests: 0, bytes: 0, ranges: [] });
    const f = files.get(name);
    f.requests += 1;
    f.bytes += e.bytes;
    f.ranges.push(`${e.method} ${e.range || "(no range)"} → ${e.status} ${e.bytes}`);
  }
  return {
    files,
    connections: new Set(entries.map((e) => e.connection)).size,
    requests: entries.length,
    bytes: entries.reduce((s, e) => s + e.bytes, 0),
    statuses: [...new Set(entries.map((e) => e.status))].sort().join(","),
    ports: [...new Set(entries.map((e) => e.port))].join(","),
  };
}
function readCase(dir, name) {
  return {
    ...json(join(dir, `${name}.wall`), { wall_s: NaN, rc: -1 }),
    ...gnuTime(join(dir, `${name}.time`)),
    log: perFile(accessLog(join(dir, `${name}.log`))),
    out: json(join(dir, `${name}.out`), null),
    err: text(join(dir, `${name}.err`)).trim(),
    dbFiles: json(join(dir, `${name}.files.json`), []),
  };
}
const readAll = (dir) => ({
  mcRemote: readCase(dir, "mc-remote"),
  mcCkpt: readCase(dir, "mc-ckpt"),
  mcLocal: readCase(dir, "mc-local"),
  peerRemote: readCase(dir, "peer-remote"),
  peerLocal: readCase(dir, "peer-local"),
});

const meta = JSON.parse(readFileSync(join(work, "meta.json"), "utf8"));
const reference = json(join(work, "reference.json"), []);
const count = readAll(join(work, "count"));
const runs = readdirSync(join(work, "runs"))
  .map(Number)
  .sort((a, b) => a - b)
  .map((i) => readAll(join(work, "runs", String(i))));

// --- arithmetic and formatting ---------------------------------------------------------------------
const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const med = (pick) => median(runs.map(pick));
const n0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "–");
const mb = (x) => (Number.isFinite(x) ? (x / 1e6).toFixed(2) : "–");
const verdict = (b) => (b ? "**met**" : "**missed**");
const lastLines = (s, k = 3) => s.split("\n").slice(-k).join(" / ");
const headerOf = new Map(reference.map((r) => [basename(r.location), r.header_bytes]));
const sizeOf = new Map(reference.map((r) => [basename(r.location), r.size]));
const stat = (c, name, key) => c.log.files.get(name)?.[key] ?? 0;
const lineup = meta.lineup;
const short = (name) => name.replace(/^Meta-Llama-3\.1-8B-Instruct-/, "").replace(/\.gguf$/, "");
const ran = (c) => c.rc === 0 && c.log.requests > 0;
const mcOk = ran(count.mcRemote) && runs.every((r) => ran(r.mcRemote));
const ckptOk = ran(count.mcCkpt) && runs.every((r) => ran(r.mcCkpt));
const peerOk = ran(count.peerRemote) && runs.every((r) => ran(r.peerRemote));
// The timed runs must have logged exactly what the count pass logged, file by file.
const sameAsCount = (pick) =>
  runs.every((r) => {
    const a = pick(count).log.files, b = pick(r).log.files;
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (b.get(k)?.requests !== v.requests || b.get(k)?.bytes !== v.bytes) return false;
    return true;
  });

// --- the report ------------------------------------------------------------------------------------
const out = [];
const p = (s = "") => out.push(s);
const peerVersion = count.peerRemote.out?.version ?? runs[0]?.peerRemote.out?.version ?? "?";

p("# Remote crawl benchmark (issue 4)");
p();
p(`Measured ${meta.date} by \`bench/remote.sh\` (RUNS=${meta.runs}: times and memory are medians of the timed runs).`);
p(
  `Machine: ${meta.nproc} cores (${meta.cpu}), ${meta.mem} memory, Linux ${meta.kernel}; load average ${meta.load_before} before the runs, ${meta.load_after} after ` +
    "(the machine is shared: other jobs were running).",
);
p("Earlier runs are in git history: `git log -p -- bench/RESULTS-remote.md` (before 2026-12-06 the page was bench/RESULTS.md).");
p(
  `Versions: modelcat ${meta.modelcat_rev} ("${meta.modelcat_subject}", Release build); the peer @huggingface/gguf ${peerVersion} on node ${meta.node}; nginx ${meta.nginx}.`,
);
p();
p(
  "Input: `modelcat-samples DIR --checkpoint`: the eight Llama 3.1 8B quants as sparse replicas " +
    "(real 7,840,928-byte headers, tensor data a hole, 2.9–8.5 GB apparent), and the 4-shard BF16 safetensors " +
    "checkpoint with its `model.safetensors.index.json` and `config.json`, served by nginx on 127.0.0.1.",
);
p();
p("- **Requests and bytes** per file come from nginx's access log (`$body_bytes_sent`: response bodies), from one pass of each tool on a listener with `sendfile on; listen … sndbuf=32k` as in tests/http/nginx.cpp, so that the bytes are what the client received.");
p("- **Times** come from the timed runs on a second listener with `sndbuf=64k`: with 32k (below loopback's 64 KiB MSS) transfers stall waiting for ACKs (a 5.6 MB range took 1–3.5 s there instead of 5–15 ms), which would time nginx, not the clients. Every timed run must log the same requests and bytes per file as the count pass; the check is below.");
p("- modelcat: one `modelcat crawl --db FRESH.db --quiet --json-summary URL1 … URL8`; the checkpoint as one `crawl` of its index URL; locally one `crawl` of the lineup directory (the 8 files). Its time is the whole process: start-up, schema, parsing, SQLite writes.");
p("- The peer: `bench/peer/peer.mjs`, one node process calling `gguf(url)` (locally `gguf(path, {allowLocalFile: true})`) on each file in turn, as a user would. Its time is the sum of the `gguf()` calls measured inside node: node's start-up and the import are left out, which favours the peer; the whole process is shown beside it.");
p("- Peak memory: GNU `time -v`'s maximum resident set size of each process; CPU: its user + system time.");
p();

// --- per-file GGUF table -----------------------------------------------------------------------------
const rows = lineup.map((name) => {
  const header = headerOf.get(name);
  const mcReq = stat(count.mcRemote, name, "requests");
  const mcBytes = stat(count.mcRemote, name, "bytes");
  const peerReq = stat(count.peerRemote, name, "requests");
  const peerBytes = stat(count.peerRemote, name, "bytes");
  return {
    name, header, mcReq, mcBytes, peerReq, peerBytes,
    fewerReq: mcReq < peerReq,
    fewerBytes: mcBytes < peerBytes,
    budget: mcReq <= 3 && mcBytes <= 1.05 * header,
  };
});
const sum = (k) => rows.reduce((s, r) => s + r[k], 0);
const tot = { header: sum("header"), mcReq: sum("mcReq"), mcBytes: sum("mcBytes"), peerReq: sum("peerReq"), peerBytes: sum("peerBytes") };

const mcWall = med((r) => r.mcRemote.wall_s);
const peerCalls = med((r) => (r.peerRemote.out?.total_ms ?? NaN) / 1000);
const peerWall = med((r) => r.peerRemote.wall_s);
const mcLocalWall = med((r) => r.mcLocal.wall_s);
const peerLocalCalls = med((r) => (r.peerLocal.out?.total_ms ?? NaN) / 1000);
const peerLocalWall = med((r) => r.peerLocal.wall_s);

p("## Goals (issue 4, with issue 25's tighter bounds on reads and on the local crawl)");
p();
p("| goal | measured | |");
p("|---|---|:-:|");
if (!mcOk) p(`| (modelcat's remote crawl) | **did not succeed**: exit ${count.mcRemote.rc}, ${count.mcRemote.log.requests} requests: \`${lastLines(count.mcRemote.err)}\` | |`);
p(`| fewer requests than the peer on every file | ${rows.filter((r) => r.fewerReq).length} of 8 files; total ${n0(tot.mcReq)} vs ${n0(tot.peerReq)} | ${verdict(mcOk && rows.every((r) => r.fewerReq))} |`);
p(`| fewer bytes than the peer on every file | ${rows.filter((r) => r.fewerBytes).length} of 8 files; total ${mb(tot.mcBytes)} MB vs ${mb(tot.peerBytes)} MB | ${verdict(mcOk && rows.every((r) => r.fewerBytes))} |`);
const cpu = (pick) => med(pick);
p(`| total wall time for the lineup ≤ 1/3 of the peer's | ${f3(mcWall)} s vs ${f3(peerCalls)} s: ${f3(mcWall / peerCalls)} of the peer's (${f2(peerCalls / mcWall)} × faster; CPU ${f2(cpu((r) => r.mcRemote.cpu_s))} s vs ${f2(cpu((r) => r.peerRemote.cpu_s))} s) | ${verdict(mcOk && mcWall / peerCalls <= 1 / 3)} |`);
const misses = rows.filter((r) => !r.budget);
p(
  `| Llama-3 class header in ≤ 3 requests and ≤ 1.05 × header bytes, each file (issue 4: ≤ 2 and ≤ 1.15 ×) | ` +
    (misses.length === 0
      ? `all 8 files: at most ${Math.max(...rows.map((r) => r.mcReq))} requests and ${f3(Math.max(...rows.map((r) => r.mcBytes / r.header)))} × header`
      : `${8 - misses.length} of 8 files; ` + [...new Set(misses.map((r) => `${r.mcReq} requests, ${n0(r.mcBytes)} bytes = ${f3(r.mcBytes / r.header)} × header`))].map((s) => `${misses.filter((r) => `${r.mcReq} requests, ${n0(r.mcBytes)} bytes = ${f3(r.mcBytes / r.header)} × header` === s).map((r) => short(r.name)).join(", ")}: ${s}`).join("; ")) +
    ` | ${verdict(mcOk && misses.length === 0)} |`,
);
p(`| local crawl ≥ 100 × faster than the peer's \`allowLocalFile\` (issue 4: ≥ 20 ×) | ${f3(mcLocalWall)} s vs ${f3(peerLocalCalls)} s: ${f2(peerLocalCalls / mcLocalWall)} × (CPU ${f2(cpu((r) => r.mcLocal.cpu_s))} s vs ${f2(cpu((r) => r.peerLocal.cpu_s))} s: ${f2(cpu((r) => r.peerLocal.cpu_s) / cpu((r) => r.mcLocal.cpu_s))} ×) | ${verdict(peerLocalCalls / mcLocalWall >= 100)} |`);
p();

p("## GGUF lineup over HTTP, per file (count pass)");
p();
p("| file | header bytes | modelcat requests | modelcat bytes | ÷ header | peer requests | peer bytes | ÷ header | fewer requests | fewer bytes |");
p("|---|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|");
const yn = (b) => (b ? "yes" : "**no**");
for (const r of rows) {
  p(`| ${short(r.name)} | ${n0(r.header)} | ${r.mcReq} | ${n0(r.mcBytes)} | ${f3(r.mcBytes / r.header)} | ${r.peerReq} | ${n0(r.peerBytes)} | ${f3(r.peerBytes / r.header)} | ${yn(r.fewerReq)} | ${yn(r.fewerBytes)} |`);
}
p(`| **total** | ${n0(tot.header)} | ${n0(tot.mcReq)} | ${n0(tot.mcBytes)} | ${f3(tot.mcBytes / tot.header)} | ${n0(tot.peerReq)} | ${n0(tot.peerBytes)} | ${f3(tot.peerBytes / tot.header)} | | |`);
p();
const firstRanges = (c) => c.log.files.get(lineup[0])?.ranges.join("; ") ?? "none";
p(`The ranges asked for ${short(lineup[0])} (every file alike): modelcat \`${firstRanges(count.mcRemote)}\`; the peer \`${firstRanges(count.peerRemote)}\`.`);
p();
p(
  `Connections for the 8 files: modelcat ${count.mcRemote.log.connections}, the peer ${count.peerRemote.log.connections}; statuses: modelcat ${count.mcRemote.log.statuses || "–"}, the peer ${count.peerRemote.log.statuses || "–"}. ` +
    `The ${runs.length} timed runs logged ${sameAsCount((c) => c.mcRemote) ? "the same" : "**different**"} requests and bytes per file for modelcat and ${sameAsCount((c) => c.peerRemote) ? "the same" : "**different**"} for the peer.`,
);
const peerHeaderOk = [count, ...runs].every((r) => (r.peerRemote.out?.files ?? []).every((f) => f.header_bytes === headerOf.get(basename(f.input))));
const mcDb = count.mcRemote.dbFiles;
const mcDbOk = mcDb.length === 8 && mcDb.every((f) => f.header_bytes === headerOf.get(basename(f.location)));
const mcSelfOk = mcDb.every((f) => f.requests === stat(count.mcRemote, basename(f.location), "requests") && f.bytes_read === stat(count.mcRemote, basename(f.location), "bytes"));
p(
  `Both read the same headers: the peer's \`tensorDataOffset\` ${peerHeaderOk ? "equals" : "**differs from**"} the header bytes modelcat read locally, for every file, ` +
    `and modelcat's remote \`files.header_bytes\` ${mcDbOk ? "equal" : "**do not all equal**"} them. modelcat's own \`files.requests\`/\`bytes_read\` ${mcSelfOk ? "agree" : "**disagree**"} with nginx's log` +
    (count.mcRemote.out ? `; its --json-summary: \`${JSON.stringify(count.mcRemote.out)}\`.` : "."),
);
p();

// --- wall time and memory ----------------------------------------------------------------------------
p("## Wall time, memory, CPU (8 GGUF files)");
p();
p("| case | modelcat s | peer `gguf()` calls s | peer process s | peer calls ÷ modelcat | modelcat peak RSS MB | peer peak RSS MB | modelcat CPU s | peer CPU s |");
p("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
const mem = (pick) => f2(med(pick) / 1024);
p(`| HTTP | ${f3(mcWall)} | ${f3(peerCalls)} | ${f3(peerWall)} | ${f2(peerCalls / mcWall)} × | ${mem((r) => r.mcRemote.rss_kb)} | ${mem((r) => r.peerRemote.rss_kb)} | ${f2(med((r) => r.mcRemote.cpu_s))} | ${f2(med((r) => r.peerRemote.cpu_s))} |`);
p(`| local | ${f3(mcLocalWall)} | ${f3(peerLocalCalls)} | ${f3(peerLocalWall)} | ${f2(peerLocalCalls / mcLocalWall)} × | ${mem((r) => r.mcLocal.rss_kb)} | ${mem((r) => r.peerLocal.rss_kb)} | ${f2(med((r) => r.mcLocal.cpu_s))} | ${f2(med((r) => r.peerLocal.cpu_s))} |`);
p();
p("Each timed run (s): " + runs.map((r, i) => `${i + 1}: modelcat HTTP ${f3(r.mcRemote.wall_s)}, peer HTTP ${f3((r.peerRemote.out?.total_ms ?? NaN) / 1000)}, modelcat local ${f3(r.mcLocal.wall_s)}, peer local ${f3((r.peerLocal.out?.total_ms ?? NaN) / 1000)}`).join("; ") + ".");
p();
const perFileMs = (c) => new Map((c.out?.files ?? []).map((f) => [basename(f.input), f.ms]));
p("The peer's `gguf()` time per file, HTTP / local (ms, median): " + lineup.map((name) => `${short(name)} ${n0(med((r) => perFileMs(r.peerRemote).get(name)))} / ${n0(med((r) => perFileMs(r.peerLocal).get(name)))}`).join(", ") + ".");
p();
p(`In the count pass (sndbuf=32k listener) modelcat took ${f3(count.mcRemote.wall_s)} s and the peer's calls ${f3((count.peerRemote.out?.total_ms ?? NaN) / 1000)} s: the send-buffer stall described above, not either tool.`);
p();
if (!peerOk) p(`**The peer failed** (exit ${count.peerRemote.rc}): \`${lastLines(count.peerRemote.err)}\`\n`);

// --- checkpoint ----------------------------------------------------------------------------------------
p("## BF16 checkpoint through its index URL (modelcat alone)");
p();
p("@huggingface/gguf reads GGUF only, so modelcat is measured alone here. Header bytes: the safetensors header (8-byte length + JSON), read locally; for the index and config, the whole file.");
p();
p("| file | size | header bytes | requests | bytes | ÷ header |");
p("|---|---:|---:|---:|---:|---:|");
const ckptNames = new Set(count.mcCkpt.log.files.keys());
for (const ref of reference) if (ref.location.includes(`/${meta.checkpoint}/`)) ckptNames.add(basename(ref.location));
const ck = { req: 0, bytes: 0, header: 0 };
for (const name of [...ckptNames].sort()) {
  const size = sizeOf.get(name);
  const header = headerOf.get(name) ?? size;
  const req = stat(count.mcCkpt, name, "requests");
  const bytes = stat(count.mcCkpt, name, "bytes");
  ck.req += req;
  ck.bytes += bytes;
  ck.header += header ?? 0;
  p(`| ${name} | ${n0(size)} | ${n0(header)} | ${req} | ${n0(bytes)} | ${f3(bytes / header)} |`);
}
p(`| **total** | | ${n0(ck.header)} | ${ck.req} | ${n0(ck.bytes)} | ${f3(ck.bytes / ck.header)} |`);
p();
p(
  `Wall ${f3(med((r) => r.mcCkpt.wall_s))} s, peak RSS ${mem((r) => r.mcCkpt.rss_kb)} MB, ${count.mcCkpt.log.connections} connections, exit ${count.mcCkpt.rc}; ` +
    `the timed runs logged ${sameAsCount((c) => c.mcCkpt) ? "the same" : "**different**"} requests and bytes.` +
    (count.mcCkpt.out ? ` --json-summary: \`${JSON.stringify(count.mcCkpt.out)}\`.` : ""),
);
if (!ckptOk) p(`\n**modelcat's checkpoint crawl did not succeed**: \`${lastLines(count.mcCkpt.err)}\``);
p();

p("## Notes");
p();
p("- Loopback, one nginx worker, warm page cache (the lineup is generated just before). On a real network each request costs a round trip, so the request counts weigh more there than in these wall times.");
p("- Header bytes run to the start of the tensor data (GGUF: `tensorDataOffset`, padding included).");
p("- The peer fetches fixed 2,000,000-byte ranges and fetches the next one whenever less than 500 kB remains ahead of its parse position.");
p("- `KEEP=1 bench/remote.sh` keeps the raw material: the nginx config and access log, each case's log slice, `time -v`, JSON outputs and databases.");
console.log(out.join("\n"));
