// Loads a GGUF once with llama.cpp (node-llama-cpp's prebuilt CPU backend), creates one context per
// setting, and prints one JSON object: the buffers llama.cpp's log reports for the model and for each
// context, and node-llama-cpp's own estimate (GgufInsights) of the same. Usage:
//   node oracle.mjs MODEL.gguf [--no-alloc] [--ctx N] [--ubatch N] [--cache f16|q8_0|q4_0]
//                              [--flash auto|on|off] [--swa-full 0|1] [--sequences N]
//   node oracle.mjs MODEL.gguf [--no-alloc] --settings '[{"ctx":4096,"cache":"q8_0",...}, ...]'
//   node oracle.mjs --version      (llama.cpp's release and the CPU features its backend uses)
// --cpu VARIANT (default: $MODELCAT_ORACLE_CPU, else the best for this CPU) loads only ggml's CPU backend
// built for VARIANT (haswell: AVX2; skylakex or zen4: AVX-512; sapphirerapids: AMX), as a host with no more
// than that would: the prebuilt package holds one backend per CPU generation and loads the best one
// this CPU can run, so a copy without the others is the only mask it has.
// --no-alloc runs llama.cpp's own no-allocation pass (what `--fit` uses): every buffer is sized as in a
// real load but none is allocated, so a 16 GiB cache costs nothing; the model's buffers then read 0 in
// the log and come from llama.cpp's memory breakdown instead, and CPU_REPACK is not reported.
// node-llama-cpp sets n_batch = n_ubatch = its batchSize; llama.cpp's buffers depend on
// min(n_ctx, n_batch, n_ubatch) alone (llama-context.cpp), so the setting's ubatch is what is passed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

// node-llama-cpp itself, or a linked copy of bench/memory/node_modules whose only CPU backend is `variant`.
async function loadNodeLlamaCpp(variant) {
    if (!variant) return import("node-llama-cpp");
    const modules = path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules");
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), `modelcat-oracle-${variant}-`));
    process.on("exit", () => fs.rmSync(copy, { recursive: true, force: true }));
    try {
        execFileSync("cp", ["-al", modules, copy], { stdio: "ignore" });  // hard links: no bytes copied
    } catch {
        fs.rmSync(path.join(copy, "node_modules"), { recursive: true, force: true });  // a partial copy's links are the package's own files
        execFileSync("cp", ["-r", modules, copy]);  // another file system (a tmpfs /tmp): 85 MB copied
    }
    const bins = path.join(copy, "node_modules", "@node-llama-cpp", `linux-${process.arch}`, "bins", `linux-${process.arch}`);
    const backends = fs.readdirSync(bins).filter((f) => /^libggml-cpu-.+\.so$/.test(f));
    const kept = `libggml-cpu-${variant}.so`;
    if (!backends.includes(kept)) throw new Error(`--cpu ${variant}: no such backend (${backends.map((f) => f.slice(12, -3)).join(", ")})`);
    for (const f of backends) if (f !== kept) fs.unlinkSync(path.join(bins, f));
    return import(pathToFileURL(path.join(copy, "node_modules", "node-llama-cpp", "dist", "index.js")).href);
}

function cpuVariant(argv) {
    const i = argv.indexOf("--cpu");
    if (i < 0) return process.env.MODELCAT_ORACLE_CPU || null;
    const variant = argv[i + 1];
    argv.splice(i, 2);
    if (!/^[a-z0-9]+$/.test(variant ?? "")) throw new Error("--cpu takes a backend's name, such as haswell");
    return variant;
}

function fail(e) {
    process.stderr.write(`oracle: ${e && e.message || e}\n`);
    process.exit(1);
}

const argv = process.argv.slice(2);
const { getLlama, LlamaLogLevel, GgmlType, readGgufFileInfo, GgufInsights } = await loadNodeLlamaCpp(cpuVariant(argv)).catch(fail);

const defaults = { ctx: 4096, ubatch: 512, cache: "f16", flash: "auto", swa_full: 0, sequences: 1 };

function parseArgs(argv) {
    const o = { model: null, noAlloc: false, settings: null, one: { ...defaults } };
    for (let i = 0; i < argv.length; ++i) {
        const a = argv[i], v = () => argv[++i];
        if (a === "--no-alloc") o.noAlloc = true;
        else if (a === "--settings") o.settings = JSON.parse(v()).map((s) => ({ ...defaults, ...s }));
        else if (a === "--ctx") o.one.ctx = Number(v());
        else if (a === "--ubatch") o.one.ubatch = Number(v());
        else if (a === "--cache") o.one.cache = v();
        else if (a === "--flash") o.one.flash = v();
        else if (a === "--swa-full") o.one.swa_full = Number(v());
        else if (a === "--sequences") o.one.sequences = Number(v());
        else if (!a.startsWith("--") && !o.model) o.model = a;
        else throw new Error(`unknown argument ${a}`);
    }
    if (!o.model) throw new Error("usage: node oracle.mjs MODEL.gguf [--no-alloc] [--ctx N] [--ubatch N] [--cache T] [--flash auto|on|off] [--swa-full 0|1] | --settings JSON");
    o.settings ??= [o.one];
    for (const s of o.settings) {
        if (!["f16", "q8_0", "q4_0"].includes(s.cache)) throw new Error(`cache type ${s.cache}: f16, q8_0 or q4_0`);
        if (!["auto", "on", "off"].includes(s.flash)) throw new Error(`flash ${s.flash}: auto, on or off`);
    }
    return o;
}

const mib100 = (s) => Math.round(Number(s) * 100);  // MiB as printed (%.2f), in hundredths

// The log lines that carry a buffer, in llama.cpp's own words (src/llama-model.cpp,
// llama-kv-cache.cpp, llama-memory-recurrent.cpp, llama-context.cpp).
const patterns = [
    [/^\S+: +(\S+) model buffer size = +([\d.]+) MiB/, (m, r) => r.model.push({ buffer: m[1], mib100: mib100(m[2]) })],
    [/^\S+: +(\S+) KV buffer size = +([\d.]+) MiB/, (m, r) => r.kv_buffers.push({ buffer: m[1], mib100: mib100(m[2]) })],
    [/^\S+: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+)\/(\d+) seqs\), K \((\w+)\): +([\d.]+) MiB, V \((\w+)\): +([\d.]+) MiB/,
        (m, r) => r.kv.push({ mib100: mib100(m[1]), cells: +m[2], layers: +m[3], seqs: +m[5], k_type: m[6], k_mib100: mib100(m[7]), v_type: m[8], v_mib100: mib100(m[9]) })],
    [/^\S+: +(\S+) RS buffer size = +([\d.]+) MiB/, (m, r) => r.rs_buffers.push({ buffer: m[1], mib100: mib100(m[2]) })],
    [/^\S+: size = +([\d.]+) MiB \( *(\d+) cells, +(\d+) layers, +(\d+) seqs +(\d+) rs_seq\), R \((\w+)\): +([\d.]+) MiB, S \((\w+)\): +([\d.]+) MiB/,
        (m, r) => r.recurrent.push({ mib100: mib100(m[1]), cells: +m[2], layers: +m[3], seqs: +m[4], r_mib100: mib100(m[7]), s_mib100: mib100(m[9]) })],
    [/^\S+: +(\S+) +output buffer size = +([\d.]+) MiB/, (m, r) => r.output.push({ buffer: m[1], mib100: mib100(m[2]) })],
    [/^\S+: +(\S+) compute buffer size = +([\d.]+) MiB/, (m, r) => r.compute.push({ buffer: m[1], mib100: mib100(m[2]) })],
    [/^(?:llama_context|print_info): +(n_ctx|n_ctx_seq|n_batch|n_ubatch|n_seq_max|flash_attn|n_swa|n_ctx_train|n_layer|n_embd|n_vocab|file type|arch) += (.+)$/,
        (m, r) => { r.params[m[1]] = m[2].trim(); }],
    [/^resolve_fused_ops: Flash Attention (enabled|not supported)/, (m, r) => { r.flash_resolved = m[1] === "enabled" ? "on" : "off"; }],
];

function readLog(lines) {
    const r = { model: [], kv_buffers: [], kv: [], rs_buffers: [], recurrent: [], output: [], compute: [], params: {}, flash_resolved: null };
    for (const l of lines)
        for (const [re, take] of patterns) {
            const m = l.match(re);
            if (m) take(m, r);
        }
    return r;
}

// The addon hands over log messages asynchronously, one line each (sometimes several).
function lineCollector() {
    const lines = [];
    let last = Date.now();
    return {
        add(message) {
            for (const l of String(message).split("\n")) if (l.trim()) lines.push(l.trim());
            last = Date.now();
        },
        // The lines so far, once `done` matches one of them (or the messages have stopped for 500 ms).
        async take(done = null) {
            const start = Date.now();
            const finished = () => done ? lines.some((l) => done.test(l)) : Date.now() - last >= 500;
            while (!finished() && Date.now() - start < 20000) await new Promise((resolve) => setTimeout(resolve, 20));
            return lines.splice(0);
        },
    };
}

const cacheTypes = { f16: GgmlType.F16, q8_0: GgmlType.Q8_0, q4_0: GgmlType.Q4_0 };

async function measureContext(bindings, model, s, log) {
    const context = new bindings.AddonContext(model, {
        contextSize: s.ctx, batchSize: s.ubatch, sequences: s.sequences,
        flashAttention: s.flash === "auto" ? "auto" : s.flash === "on",
        kvCacheKeyType: cacheTypes[s.cache], kvCacheValueType: cacheTypes[s.cache], swaFullCache: s.swa_full === 1,
    });
    let error = null, breakdown = null;
    try {
        if (!(await context.init())) error = "failed to create context";
        else breakdown = context.getMemoryBreakdown();
    } catch (e) {
        error = String(e && e.message || e);
    }
    const lines = await log.take(error ? null : /^sched_reserve: reserve took/);
    if (error) error += ": " + lines.filter((l) => /error|failed|requires|not supported/i.test(l)).slice(-3).join(" | ");
    await context.dispose();
    return { request: s, error, context_compute_bytes: breakdown ? breakdown.cpuRam : null, log: readLog(lines) };
}

function estimate(insights, s) {
    const e = insights.estimateContextResourceRequirements({
        contextSize: s.ctx, modelGpuLayers: 0, batchSize: s.ubatch, sequences: s.sequences, flashAttention: s.flash === "on",
        swaFullCache: s.swa_full === 1, kvCacheKeyType: cacheTypes[s.cache], kvCacheValueType: cacheTypes[s.cache], includeGraphOverhead: true,
    });
    return e.cpuRam;
}

async function main() {
    if (argv[0] === "--version") {
        const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
        console.log(`${llama.llamaCppRelease.release} (${llama.llamaCppRelease.repo}), CPU backend: ${llama.systemInfo.trim().replace(/ \|$/, "")}`);
        return llama.dispose();
    }
    const o = parseArgs(argv);
    const log = lineCollector();
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.debug, logger: (_level, message) => log.add(message) });
    const insights = await GgufInsights.from(await readGgufFileInfo(o.model), llama);
    const bindings = llama._bindings;  // the addon itself: its contexts take n_ctx, batch, cache types, flash and swa_full as llama.cpp does
    const model = new bindings.AddonModel(o.model, { gpuLayers: 0, noAlloc: o.noAlloc, useMmap: true, useMlock: false });
    if (!(await model.init())) {
        throw new Error("failed to load model: " + (await log.take()).filter((l) => /error|failed|missing|wrong|invalid/i.test(l)).slice(-4).join(" | "));
    }
    const modelLog = readLog(await log.take());
    const out = {
        llama_cpp: llama.llamaCppRelease, system_info: llama.systemInfo, model_path: o.model, no_alloc: o.noAlloc,
        model: { log: modelLog, breakdown_bytes: model.getMemoryBreakdown().cpuRam, estimate_bytes: insights.estimateModelResourceRequirements({ gpuLayers: 0 }).cpuRam },
        contexts: [],
    };
    for (const s of o.settings) {
        const c = await measureContext(bindings, model, s, log);
        c.estimate_bytes = estimate(insights, s);
        out.contexts.push(c);
    }
    process.stdout.write(JSON.stringify(out) + "\n");
    await model.dispose();
    await llama.dispose();
}

main().catch(fail);
