// The stores where models live, built in a temp dir exactly as their tools lay
// them out (an HF cache with two snapshots sharing blobs, an Ollama folder with
// two tags of one model, a projector and an adapter, an LM Studio folder), then
// crawled through the binary: names, links, kinds, blobs read once, an
// unchanged re-crawl reading nothing, and removed tags and snapshots gone.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <fstream>

#include "kit/kinds.hpp"
#include "kit/stores.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kQ8_0 = 8, kQ4_K = 12;
const std::string kOld = "1111111111111111111111111111111111111111";  // snapshot commits
const std::string kNew = "2222222222222222222222222222222222222222";
const std::string kRepo = "bartowski/Tiny-Llama-GGUF";
const std::string kTemplate = "{{ .System }} {{ .Prompt }}";

class Stores : public ::testing::Test {
protected:
    void SetUp() override {
        write_hf_cache();
        write_ollama();
        write_lmstudio();
    }

    fs::path gguf(const std::string& name, const kit::GgufWriter& w) {
        const fs::path p = tmp_ / "scratch" / name;
        fs::create_directories(p.parent_path());
        w.write(p);
        return p;
    }

    // Two snapshots share the Q4_K_M blob; the Q8_0 changed between them; refs/main names the new one.
    void write_hf_cache() {
        kit::HfCacheRepo repo(hub_, kRepo);
        fs::copy_file(gguf("q4.gguf", kit::tiny_llama("Tiny", kQ4_K)), tmp_ / "scratch" / "q4-copy.gguf");
        q4_blob_ = repo.add_blob(tmp_ / "scratch" / "q4.gguf");
        const std::string q8_old = repo.add_blob(gguf("q8old.gguf", kit::tiny_llama("Tiny old", kQ8_0)));
        const std::string q8_new = repo.add_blob(gguf("q8new.gguf", kit::tiny_llama("Tiny", kQ8_0)));
        fs::copy_file(gguf("mmproj.gguf", kit::tiny_mmproj()), tmp_ / "scratch" / "mmproj-copy.gguf");
        const std::string mmproj = repo.add_blob(tmp_ / "scratch" / "mmproj.gguf");
        repo.link(kOld, "tiny-Q4_K_M.gguf", q4_blob_);
        repo.link(kOld, "tiny-Q8_0.gguf", q8_old);
        repo.link(kNew, "tiny-Q4_K_M.gguf", q4_blob_);
        repo.link(kNew, "tiny-Q8_0.gguf", q8_new);
        repo.link(kNew, "mmproj-tiny-f16.gguf", mmproj);
        repo.link(kNew, "pruned.gguf", std::string(64, 'e'));  // its blob was deleted: a dangling link
        repo.set_ref("main", kNew);
        q8_old_blob_ = repo.dir() / "blobs" / q8_old;
        old_snapshot_ = repo.dir() / "snapshots" / kOld;
    }

    // library/tiny:q4 and :latest share every layer; tinyllava has a projector; the hf.co tag an adapter.
    void write_ollama() {
        kit::OllamaStore store(ollama_);
        auto q4 = store.add_blob(tmp_ / "scratch" / "q4-copy.gguf");  // the HF cache's Q4_K_M, byte for byte
        auto llava = store.add_blob(gguf("llava.gguf", kit::tiny_llama("Tiny Llava", kQ8_0)));
        auto projector = store.add_blob(tmp_ / "scratch" / "mmproj-copy.gguf");
        auto adapter = store.add_blob(gguf("lora.gguf", kit::tiny_lora(16.0f)));
        const std::string image = "application/vnd.ollama.image.";
        const std::vector<kit::OllamaStore::Layer> tiny = {
            {image + "model", q4},
            {image + "template", store.add_text_blob(kTemplate)},
            {image + "system", store.add_text_blob("You are tiny.")},
            {image + "params", store.add_text_blob("{\"stop\":[\"<|eot_id|>\"],\"temperature\":0.6}")},
            {image + "license", store.add_text_blob("LLAMA 3.1 COMMUNITY LICENSE")}};
        store.write_manifest("registry.ollama.ai", "library", "tiny", "q4", tiny);
        store.write_manifest("registry.ollama.ai", "library", "tiny", "latest", tiny);
        store.write_manifest("registry.ollama.ai", "library", "tinyllava", "v1",
                             {{image + "model", llava}, {image + "projector", projector}, {image + "template", tiny[1].blob}});
        store.write_manifest("hf.co", "bartowski", "Tiny-Llama-GGUF", "Q4_K_M", {{image + "model", q4}, {image + "adapter", adapter}});
    }

    void write_lmstudio() {
        const fs::path repo = lmstudio_ / "lmstudio-community" / "Tiny-Llama-GGUF";
        fs::create_directories(repo);
        kit::tiny_llama("Tiny LM Studio", kQ8_0).write(repo / "tiny-Q8_0.gguf");
        kit::tiny_imatrix().write(repo / "tiny.imatrix.gguf");
        fs::create_directories(lmstudio_ / "ggml-org" / "vocab");
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", lmstudio_ / "ggml-org" / "vocab" / "llama-spm.gguf");
    }

    // The three stores by their default locations, as a nightly job names them.
    test::CommandResult crawl(const std::string& flags = "") {
        return test::run_modelcat("crawl --db " + db_.string() + " --json-summary " + flags + " hf-cache: ollama: lmstudio:",
                                  "HF_HUB_CACHE=" + hub_.string() + " OLLAMA_MODELS=" + ollama_.string() + " HOME=" +
                                      home_.string() + " ");
    }
    std::string one(const std::string& sql) {
        SQLite::Database db(db_.string());
        SQLite::Statement st(db, sql);
        return st.executeStep() && !st.getColumn(0).isNull() ? st.getColumn(0).getString() : "NULL";
    }
    std::string name(const std::string& store, const std::string& n) { return store + "/" + n; }

    test::TempDir tmp_;
    fs::path home_ = tmp_ / "home";
    fs::path hub_ = home_ / ".cache" / "huggingface" / "hub";
    fs::path ollama_ = home_ / ".ollama" / "models";
    fs::path lmstudio_ = home_ / ".lmstudio" / "models";
    fs::path db_ = tmp_ / "catalog.db";
    std::string q4_blob_;
    fs::path q8_old_blob_, old_snapshot_;
};

TEST_F(Stores, EachModelIsNamedAsItsStoreNamesIt) {
    test::CommandResult r = crawl();
    EXPECT_EQ(r.exit_code, 1) << r.err;  // the dangling link is an error; everything else is catalogued
    const std::string at_new = kRepo + "@" + kNew + "/";
    EXPECT_EQ(one("SELECT group_concat(name, ' | ') FROM (SELECT name FROM models WHERE kind = 'model' ORDER BY name)"),
              kRepo + "@" + kOld + "/tiny-Q8_0.gguf | " + at_new + "tiny-Q4_K_M.gguf | " + at_new +
                  "tiny-Q8_0.gguf | library/tinyllava:v1 | lmstudio-community/Tiny-Llama-GGUF/tiny-Q8_0.gguf");
    // the Q4_K_M blob: two snapshots, two tags and a hf.co tag name it; its location is the blob read
    const std::string q4 = one("SELECT model_id FROM models WHERE name = '" + at_new + "tiny-Q4_K_M.gguf'");
    EXPECT_EQ(one("SELECT location FROM models WHERE model_id = " + q4), (hub_ / "models--bartowski--Tiny-Llama-GGUF" / "blobs" / q4_blob_).string());
    EXPECT_EQ(one("SELECT group_concat(store || ' ' || name || ' ' || coalesce(refs, '-'), ' | ') FROM (SELECT * FROM store_names"
                  " WHERE model_id = " + q4 + " ORDER BY store, name)"),
              "hf_cache " + kRepo + "@" + kOld + "/tiny-Q4_K_M.gguf - | hf_cache " + at_new +
                  "tiny-Q4_K_M.gguf main | ollama hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M - | ollama library/tiny:latest - | "
                  "ollama library/tiny:q4 -");
    EXPECT_EQ(one("SELECT digest || ' ' || repo || ' ' || revision FROM store_names WHERE name = 'library/tiny:q4'"),
              "sha256:" + q4_blob_ + " library/tiny q4");
    EXPECT_EQ(one("SELECT path FROM store_names WHERE name = 'library/tiny:q4'"),
              (ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4").string());
    EXPECT_EQ(one("SELECT count(*) FROM files WHERE sha256 = '" + q4_blob_ + "'"), "1");
    EXPECT_NE(r.err.find("pruned.gguf: dangling symlink"), std::string::npos) << r.err;
}

TEST_F(Stores, ProjectorsAndAdaptersAreModelsOfTheirOwnLinkedToTheTag) {
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(one("SELECT group_concat(name || ':' || kind, ' | ') FROM (SELECT * FROM models WHERE kind <> 'model' ORDER BY name)"),
              kRepo + "@" + kNew + "/mmproj-tiny-f16.gguf:mmproj | ggml-org/vocab/llama-spm.gguf:vocab | "
              "hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M#adapter:adapter | lmstudio-community/Tiny-Llama-GGUF/tiny.imatrix.gguf:imatrix");
    EXPECT_EQ(one("SELECT group_concat(l.name || ' ' || l.role || ' ' || m.kind, ' | ') FROM (SELECT * FROM store_links ORDER BY name) l"
                  " JOIN models m ON m.model_id = l.linked_model_id"),
              "hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M adapter adapter | library/tinyllava:v1 projector mmproj");
    EXPECT_EQ(one("SELECT base_architecture || ' ' || adapter_type || ' ' || lora_alpha || ' ' || typeof(lora_alpha) FROM adapters"),
              "llama lora 16.0 real");
    // the projector is the HF cache's mmproj blob too: one model, two names
    EXPECT_EQ(one("SELECT count(*) || ' ' || count(DISTINCT model_id) FROM store_names WHERE model_id ="
                  " (SELECT model_id FROM models WHERE kind = 'mmproj')"),
              "2 1");
}

TEST_F(Stores, EachTagsManifestIsAFileOfItsModelHoldingItsTextLayers) {
    ASSERT_EQ(crawl().exit_code, 1);
    const std::string manifest = (ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4").string();
    auto value = [&](const std::string& key) {
        return one("SELECT d.value FROM files f JOIN metadata d USING (file_id) WHERE f.location = '" + manifest +
                   "' AND d.key = '" + key + "'");
    };
    EXPECT_EQ(value("ollama.template"), kTemplate);
    EXPECT_EQ(value("ollama.system"), "You are tiny.");
    EXPECT_EQ(one("SELECT json_extract(value, '$.temperature') FROM (SELECT d.value FROM files f JOIN metadata d USING (file_id)"
                  " WHERE f.location = '" + manifest + "' AND d.key = 'ollama.params')"),
              "0.6");
    EXPECT_EQ(value("ollama.license"), "LLAMA 3.1 COMMUNITY LICENSE");
    EXPECT_EQ(one("SELECT json_array_length(value) || ' ' || json_extract(value, '$[0].mediaType') || ' ' ||"
                  " json_extract(value, '$[0].digest') FROM (SELECT d.value FROM files f JOIN metadata d USING (file_id)"
                  " WHERE f.location = '" + manifest + "' AND d.key = 'ollama.layers')"),
              "5 application/vnd.ollama.image.model sha256:" + q4_blob_);
    // the manifest and its four text layers were read, and nothing else for it
    const uintmax_t text_bytes = kTemplate.size() + std::string("You are tiny.").size() +
                                 std::string("{\"stop\":[\"<|eot_id|>\"],\"temperature\":0.6}").size() +
                                 std::string("LLAMA 3.1 COMMUNITY LICENSE").size();
    EXPECT_EQ(one("SELECT role || ' ' || format || ' ' || bytes_read || ' ' || requests FROM files WHERE location = '" + manifest + "'"),
              "manifest json " + std::to_string(fs::file_size(manifest) + text_bytes) + " 5");
    // the three tags of the Q4_K_M blob are three manifests of its one model
    EXPECT_EQ(one("SELECT count(*) || ' ' || count(DISTINCT model_id) FROM files WHERE role = 'manifest' AND model_id ="
                  " (SELECT model_id FROM files WHERE sha256 = '" + q4_blob_ + "')"),
              "3 1");
}

TEST_F(Stores, EveryBlobIsReadOnceAndAnUnchangedRecrawlReadsNothing) {
    ASSERT_EQ(crawl().exit_code, 1);
    // what the crawl read is exactly what its files record: no blob read twice
    EXPECT_EQ(one("SELECT bytes_read = (SELECT sum(bytes_read) FROM files) AND requests = (SELECT sum(requests) FROM files)"
                  " FROM crawls"),
              "1");
    EXPECT_EQ(one("SELECT count(*) || ' ' || count(DISTINCT location) FROM files"), "13 13");
    test::CommandResult again = crawl();
    EXPECT_EQ(again.exit_code, 1) << again.err;
    EXPECT_NE(again.out.find("\"files_ok\": 0, \"files_new\": 0, \"files_changed\": 0, \"files_unchanged\": 13"), std::string::npos)
        << again.out;
    EXPECT_EQ(one("SELECT bytes_read || ' ' || requests FROM crawls WHERE crawl_id = 2"), "0 0");
}

TEST_F(Stores, ARemovedTagOrSnapshotIsGoneWhileTheBlobAnotherNameUsesStays) {
    ASSERT_EQ(crawl().exit_code, 1);
    fs::remove(ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "latest");
    fs::remove_all(old_snapshot_);  // the old Q8_0 blob stays in blobs/, no name leads to it
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(one("SELECT group_concat(name, ' | ') FROM (SELECT name FROM store_names WHERE status = 'gone' ORDER BY name)"),
              kRepo + "@" + kOld + "/tiny-Q4_K_M.gguf | " + kRepo + "@" + kOld + "/tiny-Q8_0.gguf | library/tiny:latest");
    EXPECT_EQ(one("SELECT count(*) FROM store_names WHERE status = 'gone' AND gone_crawl_id = 2"), "3");
    EXPECT_EQ(one("SELECT f.status FROM files f WHERE f.sha256 = '" + q4_blob_ + "'"), "ok");
    EXPECT_EQ(one("SELECT count(*) FROM store_names WHERE status = 'ok' AND model_id = (SELECT model_id FROM files WHERE sha256 = '" +
                  q4_blob_ + "')"),
              "3");
    EXPECT_EQ(one("SELECT status FROM files WHERE location = '" + q8_old_blob_.string() + "'"), "gone");
}

TEST_F(Stores, PolicyViewsAndTheQuantReportHoldModelsOnly) {
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(one("SELECT count(*) FROM policy_deviations JOIN models m USING (model_id) WHERE m.kind <> 'model'"), "0");
    EXPECT_EQ(one("SELECT count(*) FROM type_rates WHERE type_name = 'F16'"), "0");  // the projector's F16 is not a model's
    test::CommandResult models = test::run_modelcat("query quant_summary --format csv --db " + db_.string());
    EXPECT_EQ(models.out.find("mmproj"), std::string::npos) << models.out;
    test::CommandResult all = test::run_modelcat("query quant_summary --format csv -p kind=% --db " + db_.string());
    EXPECT_NE(all.out.find("mmproj-tiny-f16.gguf,gguf,mmproj,clip"), std::string::npos) << all.out;
    // a store's name for a model is a model reference
    test::CommandResult policy = test::run_modelcat("query policy -p model=library/tiny:latest --db " + db_.string());
    EXPECT_EQ(policy.exit_code, 0) << policy.err;
}

TEST_F(Stores, FoldersLaidOutAsStoresAreRecognisedWithoutAPrefix) {
    test::CommandResult r = test::run_modelcat("crawl --quiet --db " + db_.string() + " " + hub_.string() + " " + ollama_.string() +
                                               " " + lmstudio_.string());
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(one("SELECT count(DISTINCT store) || ' ' || count(*) FROM store_names"), "3 14");
    EXPECT_EQ(one("SELECT count(*) FROM models"), "9");
}

TEST_F(Stores, NamesThatAreNotUtf8AreErrorsNotText) {
    fs::create_directories(ollama_ / "manifests" / "registry.ollama.ai" / "library" / "bad\xff");
    fs::copy_file(ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4",
                  ollama_ / "manifests" / "registry.ollama.ai" / "library" / "bad\xff" / "q4");
    fs::create_directories(hub_ / "models--bad--na\xfeme" / "snapshots" / kNew);
    test::CommandResult r = crawl();
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("library/bad\\xff/q4: path is not valid UTF-8"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("models--bad--na\\xfeme: path is not valid UTF-8"), std::string::npos) << r.err;
    EXPECT_EQ(one("SELECT count(*) FROM store_names WHERE name LIKE '%bad%'"), "0");
    EXPECT_EQ(one("SELECT count(*) FROM store_names"), "14");
}

TEST_F(Stores, AMissingStoreIsAnErrorOnThatInput) {
    test::CommandResult r = test::run_modelcat("crawl --db " + db_.string() + " ollama:" + (tmp_ / "nowhere").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no store at " + (tmp_ / "nowhere").string()), std::string::npos) << r.err;
}

}  // namespace
