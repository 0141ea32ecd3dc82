// ollama:// inputs against the tests' nginx laid out like an Ollama registry:
// the manifest fetched, the model blob's header read by range requests through
// the registry's 307 to its storage, the text layers read whole; the digest is
// the identity, so an unchanged re-crawl costs the manifests alone.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "kit/kinds.hpp"
#include "kit/stores.hpp"
#include "nginx.hpp"
#include "support.hpp"

using namespace modelcat;
namespace fs = std::filesystem;

namespace {

class OllamaRegistry : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string image = "application/vnd.ollama.image.";
        const fs::path scratch = tmp_ / "scratch";
        fs::create_directories(scratch);
        kit::tiny_llama("tiny", 12).write(scratch / "model");
        std::ofstream(scratch / "template") << "{{ .Prompt }}";
        std::ofstream(scratch / "params") << "{\"temperature\":0.7}";
        std::vector<kit::OllamaStore::Layer> layers;
        for (const auto& [file, kind] : std::map<std::string, std::string>{{"model", "model"}, {"params", "params"}, {"template", "template"}}) {
            const std::string digest = "sha256:" + kit::sha256_of_file(scratch / file);
            const fs::path blob = nginx_.root() / "files" / "registry-blobs" / digest;
            fs::create_directories(blob.parent_path());
            fs::copy_file(scratch / file, blob);
            layers.push_back({image + kind, {digest, fs::file_size(blob)}});
            if (kind == "model") model_blob_ = digest;
        }
        const std::string manifest = kit::ollama_manifest_json(layers, "sha256:" + std::string(64, '0'));
        for (const char* tag : {"q4", "latest"}) nginx_.write_file("v2/library/tiny/manifests/" + std::string(tag), manifest);
        registry_ = "127.0.0.1:" + std::to_string(nginx_.port());
    }
    test::CommandResult crawl() {
        return test::run_modelcat("crawl --quiet --json-summary --db " + db_.string() + " ollama://" + registry_ +
                                  "/library/tiny:q4 ollama://" + registry_ + "/library/tiny:latest");
    }
    // Requests per target from log entry `from` on.
    std::map<std::string, unsigned> requests(size_t from) {
        std::map<std::string, unsigned> m;
        auto log = nginx_.access_log();
        for (size_t i = from; i < log.size(); ++i) ++m[log[i].target];
        return m;
    }
    test::Nginx nginx_;
    test::TempDir tmp_;
    fs::path db_ = tmp_ / "catalog.db";
    std::string registry_, model_blob_;
};

TEST_F(OllamaRegistry, TwoTagsOfOneModelReadItsBlobOnce) {
    test::CommandResult r = crawl();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) || ' ' || group_concat(kind) FROM models"), "1 model");
    EXPECT_EQ(test::sql_value(db_, "SELECT group_concat(name || ' ' || root, ' | ') FROM (SELECT * FROM store_names ORDER BY name)"),
              registry_ + "/library/tiny:latest ollama://" + registry_ + " | " + registry_ + "/library/tiny:q4 ollama://" + registry_);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(DISTINCT model_id) FROM store_names"), "1");
    EXPECT_EQ(test::sql_value(db_, "SELECT sha256 FROM files WHERE role = 'data'"), model_blob_.substr(7));
    const std::string q4 = "http://" + registry_ + "/v2/library/tiny/manifests/q4";
    EXPECT_EQ(test::sql_value(db_, "SELECT d.value FROM files f JOIN metadata d USING (file_id) WHERE f.location = '" + q4 +
                  "' AND d.key = 'ollama.template'"),
              "{{ .Prompt }}");
    nginx_.wait_for_log(1);
    auto first = requests(0);
    EXPECT_EQ(first["/v2/library/tiny/manifests/q4"], 1u);  // fetched once, while planning
    EXPECT_EQ(first["/v2/library/tiny/blobs/" + model_blob_], 1u);  // resolved once; its reads go to the storage
    unsigned storage_reads = 0;
    for (const auto& [target, n] : first)
        if (target == "/files/registry-blobs/" + model_blob_) storage_reads = n;
    EXPECT_GE(storage_reads, 1u);
    EXPECT_LE(storage_reads, 2u);
}

TEST_F(OllamaRegistry, AnUnchangedReCrawlFetchesTheManifestsOnly) {
    ASSERT_EQ(crawl().exit_code, 0);
    const size_t before = nginx_.access_log().size();
    test::CommandResult again = crawl();
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("\"files_ok\": 0, \"files_new\": 0, \"files_changed\": 0, \"files_unchanged\": 3"), std::string::npos)
        << again.out;
    nginx_.wait_for_log(before + 2);
    auto later = requests(before);
    EXPECT_EQ(later.size(), 2u);
    EXPECT_EQ(later["/v2/library/tiny/manifests/q4"] + later["/v2/library/tiny/manifests/latest"], 2u);
}

TEST_F(OllamaRegistry, AMissingTagIsAnErrorNamingIt) {
    test::CommandResult r = test::run_modelcat("crawl --db " + db_.string() + " ollama://" + registry_ + "/library/tiny:nope");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("ollama://" + registry_ + "/library/tiny:nope"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
}

}  // namespace
