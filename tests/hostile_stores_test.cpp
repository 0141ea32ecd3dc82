// Stores laid out by an attacker, crawled through the binary under a memory
// limit and a timeout: a manifest naming one blob as a hundred thousand layers,
// links out of the store, special files, huge refs, a tag whose side blob is
// broken. Each costs only itself, with an error that names it.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "kit/stores.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

// A hang and memory guard: 1 GiB of address space, 60 s.
const std::string kStoreGuard = "ulimit -v 1048576; timeout 60 ";
const std::string kImage = "application/vnd.ollama.image.";

class HostileStores : public ::testing::Test {
protected:
    void SetUp() override {
        if (test::sanitized()) GTEST_SKIP() << "ASan reserves terabytes of address space; ulimit -v cannot apply";
        fs::create_directories(other_.parent_path());
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", other_);
    }
    test::CommandResult crawl(const std::string& inputs) {
        return test::run_modelcat("crawl --db " + db_.string() + " --json-summary " + inputs + " " + other_.string(), kStoreGuard);
    }
    // The unrelated file on the same command line is catalogued whatever the store did.
    void expect_other_catalogued() { EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE location = '" + other_.string() + "'"), "1"); }

    test::TempDir tmp_;
    fs::path ollama_ = tmp_ / "ollama";
    fs::path other_ = tmp_ / "elsewhere" / "vocab.gguf";
    fs::path db_ = tmp_ / "catalog.db";
};

// 100,000 license layers naming one 200 KB blob: before the layer cap each was read
// (20 GB), so the crawl died of bad_alloc (exit 2) and catalogued nothing.
TEST_F(HostileStores, AManifestWithTooManyLayersFailsThatTagAlone) {
    kit::OllamaStore store(ollama_);
    const auto model = store.add_blob([&] {
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", tmp_ / "m.gguf");
        return tmp_ / "m.gguf";
    }());
    const auto license = store.add_text_blob(std::string(200 << 10, 'L'));
    std::vector<kit::OllamaStore::Layer> layers{{kImage + "model", model}};
    layers.resize(100'001, {kImage + "license", license});
    store.write_manifest("registry.ollama.ai", "library", "bomb", "latest", layers);
    store.write_manifest("registry.ollama.ai", "library", "fine", "latest", {{kImage + "model", model}, {kImage + "license", license}});

    test::CommandResult r = crawl("ollama:" + ollama_.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("library/bomb/latest: at layers: manifest has more than 256 layers (the cap)"), std::string::npos) << r.err;
    expect_other_catalogued();
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE name = 'library/fine:latest' AND model_id IS NOT NULL"), "1");
}

// Before: links to files and folders outside the cache were opened and walked, and the first
// bytes of a file that is not a model were printed and stored as hex.
TEST_F(HostileStores, LinksOutOfTheHfCacheAreErrorsNamingTheLinkNeverOpened) {
    const fs::path hub = tmp_ / "hub", outside = tmp_ / "outside";
    fs::create_directories(outside / "folder");
    std::ofstream(outside / "secret") << "root:$y$j9T$SECRET:19000:0:99999:7:::\n";
    fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", outside / "folder" / "stolen.gguf");
    kit::HfCacheRepo repo(hub, "owner/name");
    const std::string commit(40, 'c');
    const fs::path snap = repo.dir() / "snapshots" / commit;
    repo.link(commit, "inside.gguf", repo.add_blob([&] {
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", tmp_ / "in.gguf");
        return tmp_ / "in.gguf";
    }()));
    fs::create_symlink(outside / "secret", snap / "secret.safetensors");
    fs::create_symlink("/proc/self/mem", snap / "mem.gguf");
    fs::create_symlink(outside / "folder", repo.dir() / "snapshots" / std::string(40, 'd'));
    fs::create_symlink("..", repo.dir() / "snapshots" / std::string(40, 'e'));

    test::CommandResult r = crawl("hf-cache:" + hub.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find((snap / "secret.safetensors").string() + ": resolves to " + fs::canonical(outside / "secret").string() +
                         ", outside the store " + fs::canonical(hub).string() + ": not read"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find((snap / "mem.gguf").string() + ": resolves to /proc/"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string(40, 'd') + ": a snapshot that is a symlink, not a folder: not walked"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string(40, 'e') + ": a snapshot that is a symlink, not a folder: not walked"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("72 6f 6f 74"), std::string::npos) << r.err;  // "root" as hex: no byte of it is shown
    EXPECT_EQ(r.err.find("SECRET"), std::string::npos) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM errors WHERE instr(message, '72 6f') OR instr(message, 'SECRET')"), "0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE location LIKE '%outside%' OR location LIKE '/proc/%'"), "0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE store = 'hf_cache'"), "1");  // inside.gguf, once
    expect_other_catalogued();
}

// Before: a 2 GiB refs/ file was read whole (4.2 GB RSS, 24 s); under the limit, bad_alloc and exit 2.
TEST_F(HostileStores, AHugeRefIsAnErrorNotRead) {
    const fs::path hub = tmp_ / "hub";
    kit::HfCacheRepo repo(hub, "owner/name");
    const std::string commit(40, 'c');
    repo.link(commit, "m.gguf", repo.add_blob([&] {
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", tmp_ / "m.gguf");
        return tmp_ / "m.gguf";
    }()));
    repo.set_ref("main", commit);
    repo.set_ref("huge", commit);
    fs::resize_file(repo.dir() / "refs" / "huge", 2ull << 30);  // the commit, then a 2 GiB hole: no disk used

    test::CommandResult r = crawl("hf-cache:" + hub.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("refs/huge: a ref over 4096 bytes (the cap): not read"), std::string::npos) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT refs FROM store_names WHERE store = 'hf_cache'"), "main");
    expect_other_catalogued();
}

// Before: one tag's template blob being a FIFO failed the shared model for both tags (0 models),
// the stores report said both were ok, and the error named the blob twice and never the tag.
TEST_F(HostileStores, ABrokenSideBlobFailsItsTagAloneByName) {
    kit::OllamaStore store(ollama_);
    const auto model = store.add_blob([&] {
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", tmp_ / "m.gguf");
        return tmp_ / "m.gguf";
    }());
    const auto good_template = store.add_text_blob("{{ .Prompt }}");
    const std::string fifo_digest = "sha256:" + std::string(64, 'f');
    ASSERT_EQ(mkfifo((ollama_ / "blobs" / ("sha256-" + std::string(64, 'f'))).c_str(), 0600), 0);
    store.write_manifest("registry.ollama.ai", "library", "m", "good", {{kImage + "model", model}, {kImage + "template", good_template}});
    store.write_manifest("registry.ollama.ai", "library", "m", "bad", {{kImage + "model", model}, {kImage + "template", {fifo_digest, 13}}});
    store.write_manifest("registry.ollama.ai", "library", "junk", "latest", {{kImage + "model", store.add_text_blob("not a model")}});

    test::CommandResult r = crawl("ollama:" + ollama_.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("library/m:bad: its template blob " + (ollama_ / "blobs").string() + "/sha256-" + std::string(64, 'f') +
                         ": a named pipe, not a regular file"),
              std::string::npos) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE name = 'library/m:good' AND model_id IS NOT NULL"), "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE name = 'library/m:bad'"), "0");
    // a name whose model failed is not "ok" in the stores report
    test::CommandResult report = test::run_modelcat("query stores -f csv --db " + db_.string());
    EXPECT_NE(report.out.find("ollama,library/junk:latest,model,,,,,,not catalogued"), std::string::npos) << report.out;
    EXPECT_NE(report.out.find("ollama,library/m:good,model,"), std::string::npos) << report.out;
    expect_other_catalogued();
}

}  // namespace
