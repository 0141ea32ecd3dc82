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

const std::string kOld(kit::SampleStores::old_commit), kNew(kit::SampleStores::new_commit);
const std::string kRepo(kit::SampleStores::repo), kTemplate(kit::SampleStores::chat_template);

class Stores : public ::testing::Test {
protected:
    void SetUp() override {
        const kit::SampleStores s = kit::write_sample_stores(home_);
        q4_blob_ = s.q4_blob;
        q8_old_blob_ = s.q8_old_blob;
        old_snapshot_ = s.old_snapshot;
        kit::HfCacheRepo(hub_, kRepo).link(kNew, "pruned.gguf", std::string(64, 'e'));  // its blob was deleted: dangling
        fs::create_directories(lmstudio_ / "ggml-org" / "vocab");
        fs::copy_file(test::fixtures_dir() / "ggml-vocab-llama-spm.gguf", lmstudio_ / "ggml-org" / "vocab" / "llama-spm.gguf");
    }

    // The three stores by their default locations, as a nightly job names them.
    test::CommandResult crawl(const std::string& flags = "") {
        return test::run_modelcat("crawl --db " + db_.string() + " --json-summary " + flags + " hf-cache: ollama: lmstudio:",
                                  "HF_HUB_CACHE=" + hub_.string() + " OLLAMA_MODELS=" + ollama_.string() + " HOME=" +
                                      home_.string() + " ");
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
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(name, ' | ') FROM (SELECT name FROM models WHERE kind = 'model' ORDER BY name)"),
              kRepo + "@" + kOld + "/tiny-Q8_0.gguf | " + at_new + "tiny-Q4_K_M.gguf | " + at_new +
                  "tiny-Q8_0.gguf | library/tinyllava:v1 | lmstudio-community/Tiny-Llama-GGUF/tiny-Q8_0.gguf");
    // the Q4_K_M blob: two snapshots, two tags and a hf.co tag name it; its location is the blob read
    const std::string q4 = test::sql_value(db_, "SELECT model_id FROM models WHERE name = '" + at_new + "tiny-Q4_K_M.gguf'");
    EXPECT_EQ(test::sql_value(db_, "SELECT location FROM models WHERE model_id = " + q4), (hub_ / "models--bartowski--Tiny-Llama-GGUF" / "blobs" / q4_blob_).string());
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(store || ' ' || name || ' ' || coalesce(refs, '-'), ' | ') FROM (SELECT * FROM store_names"
                  " WHERE model_id = " + q4 + " ORDER BY store, name)"),
              "hf_cache " + kRepo + "@" + kOld + "/tiny-Q4_K_M.gguf - | hf_cache " + at_new +
                  "tiny-Q4_K_M.gguf main | ollama hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M - | ollama library/tiny:latest - | "
                  "ollama library/tiny:q4 -");
    EXPECT_EQ(test::sql_value(db_, "SELECT digest || ' ' || repo || ' ' || revision FROM store_names WHERE name = 'library/tiny:q4'"),
              "sha256:" + q4_blob_ + " library/tiny q4");
    EXPECT_EQ(test::sql_value(db_, "SELECT path FROM store_names WHERE name = 'library/tiny:q4'"),
              (ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4").string());
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM files WHERE sha256 = '" + q4_blob_ + "'"), "1");
    EXPECT_NE(r.err.find("pruned.gguf: dangling symlink"), std::string::npos) << r.err;
}

TEST_F(Stores, ProjectorsAndAdaptersAreModelsOfTheirOwnLinkedToTheTag) {
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(name || ':' || kind, ' | ') FROM (SELECT * FROM models WHERE kind <> 'model' ORDER BY name)"),
              kRepo + "@" + kNew + "/mmproj-tiny-f16.gguf:mmproj | ggml-org/vocab/llama-spm.gguf:vocab | "
              "hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M#adapter:adapter | lmstudio-community/Tiny-Llama-GGUF/tiny.imatrix.gguf:imatrix");
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(l.name || ' ' || l.role || ' ' || m.kind, ' | ') FROM (SELECT * FROM store_links ORDER BY name) l"
                  " JOIN models m ON m.model_id = l.linked_model_id"),
              "hf.co/bartowski/Tiny-Llama-GGUF:Q4_K_M adapter adapter | library/tinyllava:v1 projector mmproj");
    EXPECT_EQ(test::sql_value(db_, "SELECT base_architecture || ' ' || adapter_type || ' ' || lora_alpha || ' ' || typeof(lora_alpha) FROM adapters"),
              "llama lora 16.0 real");
    // the projector is the HF cache's mmproj blob too: one model, two names
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) || ' ' || count(DISTINCT model_id) FROM store_names WHERE model_id ="
                  " (SELECT model_id FROM models WHERE kind = 'mmproj')"),
              "2 1");
}

TEST_F(Stores, EachTagsManifestIsAFileOfItsModelHoldingItsTextLayers) {
    ASSERT_EQ(crawl().exit_code, 1);
    const std::string manifest = (ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "q4").string();
    auto value = [&](const std::string& key) {
        return test::sql_value(db_, "SELECT d.value FROM files f JOIN metadata d USING (file_id) WHERE f.location = '" + manifest +
                   "' AND d.key = '" + key + "'");
    };
    EXPECT_EQ(value("ollama.template"), kTemplate);
    EXPECT_EQ(value("ollama.system"), "You are tiny.");
    EXPECT_EQ(test::sql_value(db_, "SELECT json_extract(value, '$.temperature') FROM (SELECT d.value FROM files f JOIN metadata d USING (file_id)"
                  " WHERE f.location = '" + manifest + "' AND d.key = 'ollama.params')"),
              "0.6");
    EXPECT_EQ(value("ollama.license"), "LLAMA 3.1 COMMUNITY LICENSE");
    EXPECT_EQ(test::sql_value(db_, "SELECT json_array_length(value) || ' ' || json_extract(value, '$[0].mediaType') || ' ' ||"
                  " json_extract(value, '$[0].digest') FROM (SELECT d.value FROM files f JOIN metadata d USING (file_id)"
                  " WHERE f.location = '" + manifest + "' AND d.key = 'ollama.layers')"),
              "5 application/vnd.ollama.image.model sha256:" + q4_blob_);
    // the manifest and its four text layers were read, and nothing else for it
    const uintmax_t text_bytes = kTemplate.size() + std::string("You are tiny.").size() +
                                 std::string("{\"stop\":[\"<|eot_id|>\"],\"temperature\":0.6}").size() +
                                 std::string("LLAMA 3.1 COMMUNITY LICENSE").size();
    EXPECT_EQ(test::sql_value(db_, "SELECT role || ' ' || format || ' ' || bytes_read || ' ' || requests FROM files WHERE location = '" + manifest + "'"),
              "manifest json " + std::to_string(fs::file_size(manifest) + text_bytes) + " 5");
    // the three tags of the Q4_K_M blob are three manifests of its one model
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) || ' ' || count(DISTINCT model_id) FROM files WHERE role = 'manifest' AND model_id ="
                  " (SELECT model_id FROM files WHERE sha256 = '" + q4_blob_ + "')"),
              "3 1");
}

TEST_F(Stores, EveryBlobIsReadOnceAndAnUnchangedRecrawlReadsNothing) {
    ASSERT_EQ(crawl().exit_code, 1);
    // what the crawl read is exactly what its files record: no blob read twice
    EXPECT_EQ(test::sql_value(db_, "SELECT bytes_read = (SELECT sum(bytes_read) FROM files) AND requests = (SELECT sum(requests) FROM files)"
                  " FROM crawls"),
              "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) || ' ' || count(DISTINCT location) FROM files"), "13 13");
    test::CommandResult again = crawl();
    EXPECT_EQ(again.exit_code, 1) << again.err;
    EXPECT_NE(again.out.find("\"files_ok\": 0, \"files_new\": 0, \"files_changed\": 0, \"files_unchanged\": 13"), std::string::npos)
        << again.out;
    EXPECT_EQ(test::sql_value(db_, "SELECT bytes_read || ' ' || requests FROM crawls WHERE crawl_id = 2"), "0 0");
}

TEST_F(Stores, ARemovedTagOrSnapshotIsGoneWhileTheBlobAnotherNameUsesStays) {
    ASSERT_EQ(crawl().exit_code, 1);
    fs::remove(ollama_ / "manifests" / "registry.ollama.ai" / "library" / "tiny" / "latest");
    fs::remove_all(old_snapshot_);  // the old Q8_0 blob stays in blobs/, no name leads to it
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(name, ' | ') FROM (SELECT name FROM store_names WHERE status = 'gone' ORDER BY name)"),
              kRepo + "@" + kOld + "/tiny-Q4_K_M.gguf | " + kRepo + "@" + kOld + "/tiny-Q8_0.gguf | library/tiny:latest");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE status = 'gone' AND gone_crawl_id = 2"), "3");
    EXPECT_EQ(test::sql_value(db_, "SELECT f.status FROM files f WHERE f.sha256 = '" + q4_blob_ + "'"), "ok");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE status = 'ok' AND model_id = (SELECT model_id FROM files WHERE sha256 = '" +
                  q4_blob_ + "')"),
              "3");
    EXPECT_EQ(test::sql_value(db_, "SELECT status FROM files WHERE location = '" + q8_old_blob_.string() + "'"), "gone");
}

TEST_F(Stores, PolicyViewsAndTheQuantReportHoldModelsOnly) {
    ASSERT_EQ(crawl().exit_code, 1);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM policy_deviations JOIN models m USING (model_id) WHERE m.kind <> 'model'"), "0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM type_rates WHERE type_name = 'F16'"), "0");  // the projector's F16 is not a model's
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
    EXPECT_EQ(test::sql_value(db_, "SELECT count(DISTINCT store) || ' ' || count(*) FROM store_names"), "3 14");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM models"), "9");
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
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names WHERE name LIKE '%bad%'"), "0");
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM store_names"), "14");
}

TEST_F(Stores, AMissingStoreIsAnErrorOnThatInput) {
    test::CommandResult r = test::run_modelcat("crawl --db " + db_.string() + " ollama:" + (tmp_ / "nowhere").string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no store at " + (tmp_ / "nowhere").string()), std::string::npos) << r.err;
}

}  // namespace
