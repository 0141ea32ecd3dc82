// Model references (-p model=, a=, b=, gguf=, source=, and diff's arguments)
// resolve to exactly one model_id before a report runs: by id, name or
// location; an ambiguous or unknown reference, or a missing required
// parameter, is an error (exit 2), never an empty table or a silent pick.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

void write_model(const fs::path& path) {
    fs::create_directories(path.parent_path());
    kit::GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_tensor("blk.0.attn_q.weight", {256, 4}, 12);   // Q4_K majority
    w.add_tensor("blk.0.attn_k.weight", {256, 4}, 12);
    w.add_tensor("blk.0.attn_v.weight", {256, 4}, 14);   // promoted to Q6_K
    w.write(path);
}

class ModelRefs : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        tmp_ = new test::TempDir();
        // crawled one at a time so the ids are known: solo is 1, "1" is not
        for (const char* f : {"solo.gguf", "a/twin.gguf", "b/twin.gguf", "1.gguf", "007.gguf", "x5.gguf", "x6.gguf", "x7.gguf"}) {
            write_model(*tmp_ / "store" / f);
            test::CommandResult r = test::run_modelcat("crawl -q --db " + db() + " " + (*tmp_ / "store" / f).string());
            ASSERT_EQ(r.exit_code, 0) << r.err;
        }
    }
    static void TearDownTestSuite() { delete tmp_; }
    static std::string db() { return (*tmp_ / "catalog.db").string(); }
    static std::string loc(const std::string& f) { return (*tmp_ / "store" / f).string(); }
    static std::string id_of(const std::string& location) {
        SQLite::Database d(db(), SQLite::OPEN_READONLY);
        SQLite::Statement st(d, "SELECT model_id FROM models WHERE location = ?");
        st.bind(1, location);
        return st.executeStep() ? st.getColumn(0).getString() : "(none)";
    }
    static test::CommandResult policy(const std::string& ref) {
        return test::run_modelcat("query policy --format csv --db " + db() + " -p 'model=" + ref + "'");
    }
    static inline test::TempDir* tmp_;
};

TEST_F(ModelRefs, AnIdANameAndALocationResolveToTheSameModel) {
    ASSERT_EQ(id_of(loc("solo.gguf")), "1");
    test::CommandResult by_name = policy("solo");
    ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
    EXPECT_NE(by_name.out.find("Q4_K,14,Q6_K,attn_v.weight,1,0"), std::string::npos) << by_name.out;
    EXPECT_EQ(policy("1 ").exit_code, 2);  // not an id with a space: no model is named so
    EXPECT_EQ(policy(loc("solo.gguf")).out, by_name.out);
    EXPECT_EQ(policy(loc("1.gguf")).out, by_name.out);  // the same tensors: the same policy rows
}

TEST_F(ModelRefs, ANameLikeAnIdResolvesAsANameWhenItIsNotTheIdWrittenInDecimal) {
    ASSERT_NE(id_of(loc("x7.gguf")), "(none)");
    ASSERT_EQ(id_of(loc("x7.gguf")), "8");  // there are models 7 and 8, yet "007" is a name
    test::CommandResult r = policy("007");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    test::CommandResult d = test::run_modelcat("diff --format csv --db " + db() + " 007 solo");
    EXPECT_EQ(d.exit_code, 0) << d.err;
    EXPECT_EQ(d.out, "tensor,change,a_type,b_type,a_dims,b_dims,a_bytes,b_bytes\n");  // same tensors: no difference
}

TEST_F(ModelRefs, AmbiguousReferencesListTheirCandidates) {
    test::CommandResult twins = policy("twin");
    EXPECT_EQ(twins.exit_code, 2);
    EXPECT_EQ(twins.out, "");
    EXPECT_NE(twins.err.find("model reference 'twin' is ambiguous: 2 models match it"), std::string::npos) << twins.err;
    EXPECT_NE(twins.err.find("model_id " + id_of(loc("a/twin.gguf")) + "  name twin  location " + loc("a/twin.gguf") +
                             "  (matches its name)"),
              std::string::npos)
        << twins.err;
    EXPECT_NE(twins.err.find("location " + loc("b/twin.gguf")), std::string::npos) << twins.err;
    // "1" is model 1's id and another model's name
    test::CommandResult one = policy("1");
    EXPECT_EQ(one.exit_code, 2);
    EXPECT_NE(one.err.find("model_id 1  name solo  location " + loc("solo.gguf") + "  (matches its model_id)"), std::string::npos)
        << one.err;
    EXPECT_NE(one.err.find("name 1  location " + loc("1.gguf") + "  (matches its name)"), std::string::npos) << one.err;
    test::CommandResult d = test::run_modelcat("diff --db " + db() + " solo twin");
    EXPECT_EQ(d.exit_code, 2);
    EXPECT_NE(d.err.find("'twin' is ambiguous"), std::string::npos) << d.err;
    // a location is always one model
    EXPECT_EQ(policy(loc("b/twin.gguf")).exit_code, 0);
}

TEST_F(ModelRefs, UnknownReferencesAndMissingParametersAreNamed) {
    test::CommandResult unknown = policy("no-such-model");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("no catalogued model 'no-such-model'"), std::string::npos) << unknown.err;
    test::CommandResult none = test::run_modelcat("query policy --db " + db());
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, "modelcat: report 'policy' needs -p model=MODEL (a model_id, name or location)\n");
    test::CommandResult half = test::run_modelcat("query diff --db " + db() + " -p a=solo");
    EXPECT_EQ(half.exit_code, 2);
    EXPECT_NE(half.err.find("needs -p b="), std::string::npos) << half.err;
    test::CommandResult rec = test::run_modelcat("query reconcile --db " + db() + " -p gguf=solo");
    EXPECT_EQ(rec.exit_code, 2);
    EXPECT_NE(rec.err.find("needs -p source="), std::string::npos) << rec.err;
    test::CommandResult diff_unknown = test::run_modelcat("diff --db " + db() + " solo nothing-like-it");
    EXPECT_EQ(diff_unknown.exit_code, 2);
    EXPECT_NE(diff_unknown.err.find("no catalogued model 'nothing-like-it'"), std::string::npos) << diff_unknown.err;
}

// The bundled report pastes into sqlite3 with the resolved id set by hand.
TEST_F(ModelRefs, TheReportRunsInSqlite3WithTheIdAsParameter) {
    const fs::path out = tmp_->path() / "sqlite3.out";
    const std::string cmd = "sqlite3 -csv -header -cmd '.param set :model 1' " + db() + " < " MODELCAT_SOURCE_DIR "/queries/policy.sql > " +
                            out.string() + " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::ifstream in(out);
    std::stringstream got;
    got << in.rdbuf();
    std::string csv = got.str();
    std::erase(csv, '\r');  // sqlite3 ends CSV lines with CRLF
    EXPECT_EQ(csv, policy("solo").out);
}

}  // namespace
