// Runs llama.cpp (oracle.mjs) and the memory engine (modelcat-memory-figures) on the same files and
// settings and prints a Markdown table of every term side by side, with node-llama-cpp's GgufInsights
// estimate of the total. Usage: node compare.mjs FIGURES_BINARY PLAN.json > table.md
// PLAN.json: [{"file": PATH, "label": TEXT, "no_alloc": BOOL, "settings": [{ctx, cache, flash, ubatch, swa_full}...]}, ...]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const [figuresBin, planPath] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planPath, "utf8"));
const MiB = 1024 * 1024;
// Bytes as llama.cpp prints them (%.2f of MiB: glibc rounds the exact value, half to even), in hundredths.
const m100 = (bytes) => {
    const q = Math.floor(bytes * 100 / MiB), r = bytes * 100 - q * MiB;
    return 2 * r > MiB || (2 * r === MiB && q % 2 === 1) ? q + 1 : q;
};
const fmt = (h) => h == null ? "—" : (h / 100).toFixed(2);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const worst = {};  // term -> largest error seen

function note(term, err) { if (err != null && (worst[term] == null || Math.abs(err.value) > Math.abs(worst[term].value))) worst[term] = err; }

// An exact term: each of its log lines equal to the module's bytes for it, or the difference in MiB.
function exact(term, oracle, mine, where, lines = null, parts = null) {
    if (oracle == null) return `— / ${fmt(m100(mine))}`;
    const d = lines && parts && lines.length === parts.length ? sum(parts.map((p, i) => m100(p) - lines[i])) : m100(mine) - oracle;
    note(term, { value: d / 100, unit: "MiB", where });
    return d === 0 ? `${fmt(oracle)} =` : `${fmt(oracle)} / ${fmt(m100(mine))} (**${d > 0 ? "+" : ""}${fmt(d)}**)`;
}

const outside = {};  // term -> rows outside the target (compute: 10 % or 32 MiB; total: 2 %)
function relative(term, oracleBytes, mineBytes, where) {
    const pct = (mineBytes - oracleBytes) / oracleBytes * 100;
    const miss = term === "compute" ? Math.abs(mineBytes - oracleBytes) > Math.max(0.10 * oracleBytes, 32 * MiB) : term === "total" && Math.abs(pct) > 2;
    if (miss) outside[term] = (outside[term] ?? 0) + 1;
    note(term, { value: pct, unit: "%", where, mib: (mineBytes - oracleBytes) / MiB });
    const text = `${(pct >= 0 ? "+" : "") + pct.toFixed(1)} %`;
    return miss ? `**${text}**` : text;
}

const rows = [];
for (const item of plan) {
    const oracle = JSON.parse(execFileSync("node", [join(here, "oracle.mjs"), item.file, ...(item.no_alloc ? ["--no-alloc"] : []),
        "--settings", JSON.stringify(item.settings)], { encoding: "utf8", maxBuffer: 1 << 26 }));
    const input = item.settings.map((s) => [s.ctx, s.cache ?? "f16", s.ubatch ?? 512, s.flash ?? "auto", s.swa_full ?? 0, s.sequences ?? 1].join(" ")).join("\n") + "\n";
    const mine = execFileSync(figuresBin, [item.file], { input, encoding: "utf8" }).trim().split("\n").map((l) => JSON.parse(l));
    const mlog = oracle.model.log.model;
    const mapped = item.no_alloc ? null : sum(mlog.filter((b) => b.buffer !== "CPU_REPACK").map((b) => b.mib100));
    const repack = item.no_alloc ? null : sum(mlog.filter((b) => b.buffer === "CPU_REPACK").map((b) => b.mib100));
    item.settings.forEach((s, i) => {
        const o = oracle.contexts[i], f = mine[i] ?? {};
        const where = `${item.label} ${s.ctx} ${s.cache ?? "f16"} flash ${s.flash ?? "auto"}${s.swa_full ? " swa_full" : ""}${s.ubatch && s.ubatch !== 512 ? " ubatch " + s.ubatch : ""}`;
        const setting = where.slice(item.label.length + 1);
        if (f.not_modelled) { rows.push(`| ${item.label} | ${setting} | not modelled: ${f.not_modelled} |||||||||`); return; }
        if (o.error || f.error) {
            rows.push(`| ${item.label} | ${setting} | llama.cpp: ${o.error ? o.error.split(":")[0] : "loads"}; module: ${f.error ?? "figures"} |||||||||`);
            return;
        }
        const l = o.log;
        const kvLog = l.kv.length ? sum(l.kv.map((k) => k.mib100)) : null;
        const cells = l.kv.map((k) => k.cells).join("+") || "—";
        const myCells = (f.caches ?? []).map((c) => c.cells).join("+") || "—";
        const rsLog = l.rs_buffers.length ? sum(l.rs_buffers.map((b) => b.mib100)) : (f.recurrent ? null : 0);
        const compLog = sum(l.compute.map((b) => b.mib100)) / 100 * MiB;
        const totalLog = ((mapped ?? m100(f.weights)) + (repack ?? m100(f.repack)) + (kvLog ?? 0) + (rsLog ?? 0) + sum(l.output.map((b) => b.mib100))) / 100 * MiB + compLog;
        const insights = oracle.model.estimate_bytes + o.estimate_bytes;
        rows.push(`| ${item.label} | ${setting} | ${exact("weights (CPU_Mapped)", mapped, f.weights, where)} | ${exact("repack (CPU_REPACK)", repack, f.repack, where)} | ` +
            `${cells === myCells ? cells : cells + " / **" + myCells + "**"} | ${exact("KV cache", kvLog, f.kv, where, l.kv.map((k) => k.mib100), (f.caches ?? []).map((c) => c.k_bytes + c.v_bytes))} | ${exact("recurrent state", rsLog, f.recurrent, where)} | ` +
            `${exact("output", sum(l.output.map((b) => b.mib100)), f.output, where)} | ${fmt(m100(compLog))} / ${fmt(m100(f.compute))} (${relative("compute", compLog, f.compute, where)}) | ` +
            `${fmt(m100(totalLog))} / ${fmt(m100(f.total))} (${relative("total", totalLog, f.total, where)}) | ${fmt(m100(insights))} (${relative("GgufInsights total", totalLog, insights, where)}) |`);
    });
}
console.log("| file | setting | weights MiB (llama.cpp / module) | repack MiB | KV cells | KV MiB | recurrent MiB | output MiB | compute MiB (llama.cpp / module) | total MiB (llama.cpp / module) | GgufInsights total MiB |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`\nRows: ${rows.length}. Outside the targets (compute within 10 % or 32 MiB, total within 2 %; in bold above): ` +
    `compute ${outside.compute ?? 0}, total ${outside.total ?? 0}.`);
console.log("\nWorst error per term:\n");
for (const [term, e] of Object.entries(worst))
    console.log(`- ${term}: ${e.unit === "%" ? (e.value >= 0 ? "+" : "") + e.value.toFixed(1) + " % (" + e.mib.toFixed(2) + " MiB)" : (e.value === 0 ? "0 (every figure equal)" : e.value.toFixed(2) + " MiB")}, at ${e.where}`);
