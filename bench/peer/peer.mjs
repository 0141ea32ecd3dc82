// The peer of bench/remote.sh: @huggingface/gguf's gguf() on each input, one after the other,
// as a user cataloguing a lineup would. Inputs are URLs, or local paths with --local
// (gguf(path, { allowLocalFile: true })). Prints one JSON object on stdout:
//   { version, mode, files: [{ input, ms, header_bytes, tensors, kv }], total_ms, import_ms }
// header_bytes is gguf()'s tensorDataOffset (where the tensor data starts), for checking
// that both tools saw the same header. Exits 1 if any file fails.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const { gguf } = await import("@huggingface/gguf");
const importMs = performance.now() - t0;

// The package's exports hide package.json: read it beside this script's node_modules.
const pkg = new URL("./node_modules/@huggingface/gguf/package.json", import.meta.url);
const version = JSON.parse(readFileSync(pkg, "utf8")).version;

const args = process.argv.slice(2);
const local = args[0] === "--local";
const inputs = local ? args.slice(1) : args;
if (inputs.length === 0) {
  console.error("usage: node peer.mjs [--local] INPUT...");
  process.exit(2);
}

const files = [];
let failed = 0;
for (const input of inputs) {
  const start = performance.now();
  try {
    const r = await gguf(input, local ? { allowLocalFile: true } : {});
    files.push({
      input,
      ms: performance.now() - start,
      header_bytes: Number(r.tensorDataOffset),
      tensors: r.tensorInfos.length,
      kv: Number(r.metadata.kv_count),
    });
  } catch (e) {
    failed += 1;
    files.push({ input, ms: performance.now() - start, error: String(e?.message ?? e) });
    console.error(`peer: ${input}: ${e?.message ?? e}`);
  }
}
const total = files.reduce((s, f) => s + f.ms, 0);
console.log(JSON.stringify({ version, mode: local ? "local" : "remote", files, total_ms: total, import_ms: importMs }));
process.exit(failed ? 1 : 0);
