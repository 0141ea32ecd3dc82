// The nightly digest through the real binary: real nights over a generated mirror (a crawl, then
// the crawls' dates moved back a day, as the next night finds them), `changes --since` in each
// form, --json-summary's lists and their bound, a dry run that lists gone files and writes
// nothing, and the nightly script example run as cron would.
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kit/gguf_writer.hpp"
#include "support.hpp"

using namespace modelcat;
using kit::GgufValue;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kQ5_K = 13, kQ6_K = 14;                      // ggml type ids (the kit names the common ones)
constexpr uint32_t kFtypeQ4_K_M = 15, kFtypeQ5_K_M = 17, kFtypeQ8_0 = 7;  // general.file_type

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A small quant: its token embedding in `type`, an output in Q6_K and an F32 norm, data zeros.
void write_quant(const fs::path& path, uint32_t type, uint32_t file_type) {
    fs::create_directories(path.parent_path());
    kit::GgufWriter w;
    w.add_kv("general.architecture", GgufValue::str("llama"));
    w.add_kv("general.name", GgufValue::str(path.stem().string()));
    w.add_kv("general.file_type", GgufValue::u32(file_type));
    w.add_tensor("token_embd.weight", {256, 8}, type);
    w.add_tensor("output.weight", {256, 8}, kQ6_K);
    w.add_tensor("output_norm.weight", {256}, kit::kF32);
    w.write(path, kit::DataMode::zeros);
}

std::string with_commas(uint64_t n) {
    std::string d = std::to_string(n), out;
    for (size_t i = 0; i < d.size(); ++i) out += (i && (d.size() - i) % 3 == 0 ? "," : "") + d.substr(i, 1);
    return out;
}

class NightlyDigest : public ::testing::Test {
protected:
    // The mirror as the first night found it: eight fillers, alpha, beta and gamma (11 files: one may go).
    void SetUp() override {
        for (int i = 0; i < 8; ++i) write_quant(file("filler" + std::to_string(i) + "-Q4_K_M"), kit::kQ4_K, kFtypeQ4_K_M);
        for (const char* name : {"alpha-Q4_K_M", "beta-Q4_K_M", "gamma-Q4_K_M"}) write_quant(file(name), kit::kQ4_K, kFtypeQ4_K_M);
        ASSERT_EQ(night().exit_code, 0);
    }
    fs::path file(const std::string& stem) const { return mirror_ / (stem + ".gguf"); }
    // One night: the crawl, then every crawl's dates a day earlier, as the next night will see them.
    test::CommandResult night(const std::string& flags = "--quiet") {
        test::CommandResult r = test::run_modelcat("crawl " + flags + " --db " + db_.string() + " " + mirror_.string());
        last_started_ = test::sql_value(db_, "SELECT started_at FROM crawls ORDER BY crawl_id DESC LIMIT 1");
        return r;
    }
    void a_day_passes() {
        SQLite::Database db(db_.string(), SQLite::OPEN_READWRITE);
        db.exec("UPDATE crawls SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', started_at, '-1 day'),"
                " finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', finished_at, '-1 day')");
    }
    test::CommandResult changes(const std::string& since) {
        return test::run_modelcat("changes --db " + db_.string() + " --since " + since);
    }
    std::string day_of_crawl(int id) {
        return test::sql_value(db_, "SELECT date(started_at) FROM crawls WHERE crawl_id = " + std::to_string(id));
    }
    // "crawl 2, 2026-12-02 05:41 UTC" for the crawl just run.
    std::string crawl_line(int id) const {
        return "crawl " + std::to_string(id) + ", " + last_started_.substr(0, 10) + " " + last_started_.substr(11, 5) + " UTC\n";
    }
    // The night of the closing note: alpha re-quantized, beta cut in half, gamma removed, delta new.
    void break_things() {
        write_quant(file("alpha-Q4_K_M"), kQ5_K, kFtypeQ5_K_M);
        fs::resize_file(file("beta-Q4_K_M"), fs::file_size(file("beta-Q4_K_M")) / 2);
        fs::remove(file("gamma-Q4_K_M"));
        write_quant(file("delta-Q8_0"), kit::kQ8_0, kFtypeQ8_0);
    }
    std::string beta_error() {
        return test::sql_value(db_, "SELECT message FROM errors WHERE location = '" + file("beta-Q4_K_M").string() +
                                        "' ORDER BY error_id DESC LIMIT 1");
    }

    test::TempDir tmp_;
    fs::path mirror_ = tmp_ / "mirror";
    fs::path db_ = tmp_ / "catalog.db";
    std::string last_started_;
};

TEST_F(NightlyDigest, ARealNightReadsAsNewChangedGoneAndNewlyFailing) {
    const uint64_t alpha_before = fs::file_size(file("alpha-Q4_K_M"));
    a_day_passes();
    break_things();
    ASSERT_EQ(night().exit_code, 1);  // beta failed
    const uint64_t alpha_after = fs::file_size(file("alpha-Q4_K_M"));
    test::CommandResult r = changes("last");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(beta_error().find("truncated: "), std::string::npos) << beta_error();
    EXPECT_EQ(r.out, "modelcat: 1 new, 1 changed, 1 gone, 1 newly failing\n" + crawl_line(2) +
                         "\nnew:\n  " + file("delta-Q8_0").string() + " (" + with_commas(fs::file_size(file("delta-Q8_0"))) +
                         " bytes, Q8_0:1 Q6_K:1 F32:1)\n"
                         "\nchanged:\n  " + file("alpha-Q4_K_M").string() + ": re-quantized; size " + with_commas(alpha_before) +
                         " -> " + with_commas(alpha_after) + " bytes (+" + with_commas(alpha_after - alpha_before) +
                         "); census Q4_K:1 Q6_K:1 F32:1 -> Q5_K:1 Q6_K:1 F32:1; metadata changed\n"
                         "\ngone:\n  " + file("gamma-Q4_K_M").string() + "\n"
                         "\nnewly failing:\n  " + file("beta-Q4_K_M").string() + ": " + beta_error() + "\n");
    std::cout << "---- the digest of the night ----\n" << r.out << "----\n";
}

TEST_F(NightlyDigest, ANightWithNothingNewIsSilentAndAFileBrokenTwoNightsIsReportedOnce) {
    a_day_passes();
    break_things();
    ASSERT_EQ(night().exit_code, 1);
    a_day_passes();
    // the second night: only beta, still broken; nothing to say
    ASSERT_EQ(night().exit_code, 1);
    test::CommandResult quiet = changes("last");
    EXPECT_EQ(quiet.exit_code, 0);
    EXPECT_EQ(quiet.out, "");
    EXPECT_EQ(quiet.err, "");
    a_day_passes();
    // the third: news (epsilon), and beta among the still failing once, not as a new failure
    write_quant(file("epsilon-Q8_0"), kit::kQ8_0, kFtypeQ8_0);
    ASSERT_EQ(night().exit_code, 1);
    test::CommandResult r = changes("last");
    EXPECT_EQ(r.out, "modelcat: 1 new, 1 still failing\n" + crawl_line(4) + "\nnew:\n  " + file("epsilon-Q8_0").string() + " (" +
                         with_commas(fs::file_size(file("epsilon-Q8_0"))) + " bytes, Q8_0:1 Q6_K:1 F32:1)\n" +
                         "\nstill failing:\n  " + file("beta-Q4_K_M").string() + ": still failing since " + day_of_crawl(2) +
                         " (3 nights): " + beta_error() + "\n");
    a_day_passes();
    // the fourth: beta repaired
    write_quant(file("beta-Q4_K_M"), kit::kQ4_K, kFtypeQ4_K_M);
    ASSERT_EQ(night().exit_code, 0);
    r = changes("last");
    EXPECT_EQ(r.out, "modelcat: 1 recovered\n" + crawl_line(5) + "\nrecovered:\n  " + file("beta-Q4_K_M").string() +
                         " (failing since " + day_of_crawl(2) + ", 3 nights)\n");
}

TEST_F(NightlyDigest, AFileBrokenTwoNightsIsStillFailingFor2NightsOnce) {
    a_day_passes();
    fs::resize_file(file("beta-Q4_K_M"), 100);
    ASSERT_EQ(night().exit_code, 1);
    a_day_passes();
    write_quant(file("delta-Q8_0"), kit::kQ8_0, kFtypeQ8_0);
    ASSERT_EQ(night().exit_code, 1);
    test::CommandResult r = changes("last");
    const std::string line = "  " + file("beta-Q4_K_M").string() + ": still failing since " + day_of_crawl(2) + " (2 nights): ";
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("newly failing"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(file("beta-Q4_K_M").string()), r.out.rfind(file("beta-Q4_K_M").string())) << r.out;  // once
}

TEST_F(NightlyDigest, SinceTakesLastACrawlIdADateAndADuration) {
    a_day_passes();  // crawl 1: three days back when the last night is done
    break_things();
    night();  // crawl 2: two days back
    a_day_passes();
    write_quant(file("epsilon-Q8_0"), kit::kQ8_0, kFtypeQ8_0);
    night();  // crawl 3: yesterday
    a_day_passes();
    write_quant(file("beta-Q4_K_M"), kit::kQ4_K, kFtypeQ4_K_M);
    night();  // crawl 4: today
    auto headline = [&](const std::string& since) {
        test::CommandResult r = changes(since);
        EXPECT_EQ(r.exit_code, 0) << since << ": " << r.err;
        return r.out.substr(0, r.out.find('\n'));
    };
    EXPECT_EQ(headline("last"), "modelcat: 1 recovered");
    EXPECT_EQ(headline("4"), "modelcat: 1 recovered");
    EXPECT_EQ(headline("3"), "modelcat: 1 new, 1 recovered");
    EXPECT_EQ(headline("2"), "modelcat: 2 new, 1 changed, 1 gone, 1 recovered");  // beta broke and recovered within the span
    EXPECT_EQ(headline("12h"), "modelcat: 1 recovered");
    EXPECT_EQ(headline("36h"), "modelcat: 1 new, 1 recovered");
    EXPECT_EQ(headline("2d"), "modelcat: 1 new, 1 recovered");
    EXPECT_EQ(headline("60h"), "modelcat: 2 new, 1 changed, 1 gone, 1 recovered");
    EXPECT_EQ(headline(day_of_crawl(3)), "modelcat: 1 new, 1 recovered");
    test::CommandResult span = changes("3");
    EXPECT_NE(span.out.find("\ncrawls 3-4, "), std::string::npos) << span.out;
    test::CommandResult far = changes("1w");
    // every crawl: the first night's files are new too (alpha new then changed: new), beta new, broken and repaired
    EXPECT_EQ(far.out.substr(0, far.out.find('\n')), "modelcat: 11 new, 1 gone, 1 recovered");
    test::CommandResult none = changes("99");
    EXPECT_EQ(none.exit_code, 0);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, "modelcat changes: no crawl since 99\n");
    for (const std::string bad : {"yesterday", "-3d", "2026-13-01", "h"}) {
        test::CommandResult r = changes(bad);
        EXPECT_EQ(r.exit_code, 2) << bad;
        EXPECT_NE(r.err.find("expected last, a crawl id, a date"), std::string::npos) << r.err;
    }
}

TEST_F(NightlyDigest, AFileBackAfterBeingGoneAndAFileRewrittenAsItWas) {
    a_day_passes();
    fs::rename(file("gamma-Q4_K_M"), tmp_ / "gamma.gguf");
    ASSERT_EQ(night().exit_code, 0);
    a_day_passes();
    fs::rename(tmp_ / "gamma.gguf", file("gamma-Q4_K_M"));  // back, as it was
    write_quant(file("alpha-Q4_K_M"), kit::kQ4_K, kFtypeQ4_K_M);  // written again, the same header
    ASSERT_EQ(night().exit_code, 0);
    EXPECT_EQ(changes("last").out, "modelcat: 2 changed\n" + crawl_line(3) + "\nchanged:\n  " + file("alpha-Q4_K_M").string() +
                                       ": rewritten; size, policy, census and metadata unchanged\n  " + file("gamma-Q4_K_M").string() +
                                       ": back after being gone\n");
}

TEST_F(NightlyDigest, TextFromFilesIsEscaped) {
    a_day_passes();
    const fs::path odd = mirror_ / "odd\x1b[31mname\nnew: fake.gguf";
    write_quant(odd, kit::kQ8_0, kFtypeQ8_0);
    ASSERT_EQ(night().exit_code, 0);
    test::CommandResult r = changes("last");
    EXPECT_EQ(test::first_control_character(r.out), "");
    EXPECT_NE(r.out.find("odd\\x1b[31mname\\x0anew: fake.gguf"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\nnew: fake"), std::string::npos) << r.out;
}

TEST_F(NightlyDigest, JsonSummaryCarriesTheLists) {
    a_day_passes();
    break_things();
    test::CommandResult r = night("--quiet --json-summary");
    ASSERT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("\"new\": [\"" + file("delta-Q8_0").string() + "\"], \"new_total\": 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"changed\": [{\"location\": \"" + file("alpha-Q4_K_M").string() +
                         "\", \"what\": [\"size\", \"policy\", \"census\", \"metadata\"]}], \"changed_total\": 1"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\"gone\": [\"" + file("gamma-Q4_K_M").string() + "\"], \"gone_total\": 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"failures\": [{\"location\": \"" + file("beta-Q4_K_M").string() + "\", \"offset\": "), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\"failures_total\": 1"), std::string::npos) << r.out;
}

TEST_F(NightlyDigest, JsonSummaryListsTheFirstThousandWithTotals) {
    const fs::path many = tmp_ / "many";
    for (int i = 0; i < 1005; ++i) {
        kit::GgufWriter w;
        w.add_tensor("t", {8}, kit::kF32);
        fs::create_directories(many);
        w.write(many / ("m" + std::to_string(i) + ".gguf"), kit::DataMode::zeros);
    }
    for (int i = 0; i < 1002; ++i) std::ofstream(many / ("bad" + std::to_string(i) + ".gguf")) << "GGML";
    test::CommandResult r = test::run_modelcat("crawl --quiet --json-summary --db " + (tmp_ / "many.db").string() + " " + many.string());
    ASSERT_EQ(r.exit_code, 1) << r.err;
    auto count = [&](const std::string& s) {
        size_t n = 0;
        for (size_t at = r.out.find(s); at != std::string::npos; at = r.out.find(s, at + 1)) ++n;
        return n;
    };
    EXPECT_NE(r.out.find("\"new_total\": 1005"), std::string::npos);
    EXPECT_NE(r.out.find("\"failures_total\": 1002"), std::string::npos);
    EXPECT_EQ(count("/many/m"), 1000u);     // new: the first thousand
    EXPECT_EQ(count("\"location\": "), 1000u);  // failures: the first thousand
}

TEST_F(NightlyDigest, ADryRunListsNewChangedAndGoneAndWritesNothing) {
    break_things();
    const std::string before = read_text(db_);
    test::CommandResult r = night("--dry-run");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string lines = "\n" + r.out;
    EXPECT_NE(lines.find("\nnew\tdelta-Q8_0\t" + file("delta-Q8_0").string() + "\n"), std::string::npos) << r.out;
    EXPECT_NE(lines.find("\nchanged\talpha-Q4_K_M\t" + file("alpha-Q4_K_M").string() + "\n"), std::string::npos) << r.out;
    EXPECT_NE(lines.find("\nchanged\tbeta-Q4_K_M\t"), std::string::npos) << r.out;  // cut, not yet read
    EXPECT_NE(lines.find("\ngone\t" + file("gamma-Q4_K_M").string() + "\n"), std::string::npos) << r.out;
    EXPECT_EQ(lines.find("\nunchanged\t"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "dry run: 1 new, 2 changed, 8 unchanged, 0 failed (models); 1 files gone; nothing read or written\n");
    EXPECT_EQ(read_text(db_), before);
    const fs::path wal = db_.string() + "-wal";  // a reader may leave it empty, as every reader does
    EXPECT_EQ(fs::exists(wal) ? fs::file_size(wal) : 0, 0u);
    EXPECT_EQ(test::sql_value(db_, "SELECT count(*) FROM crawls"), "1");
    test::CommandResult v = night("--dry-run -v");
    EXPECT_NE(("\n" + v.out).find("\nunchanged\tfiller0-Q4_K_M\t"), std::string::npos) << v.out;
    test::CommandResult q = night("--dry-run --quiet");
    EXPECT_EQ(q.out + q.err, "");
    test::CommandResult j = night("--dry-run --quiet --json-summary");
    EXPECT_EQ(j.err, "");
    EXPECT_NE(j.out.find("{\"dry_run\": true, \"models_new\": 1, \"models_changed\": 2, \"models_unchanged\": 8, \"models_failed\": 0,"
                         " \"files_gone\": 1, \"new\": [\"" + file("delta-Q8_0").string() + "\"], \"new_total\": 1"),
              std::string::npos)
        << j.out;
    EXPECT_NE(j.out.find("\"gone\": [\"" + file("gamma-Q4_K_M").string() + "\"], \"gone_total\": 1}"), std::string::npos) << j.out;
    EXPECT_EQ(read_text(db_), before);
}

TEST_F(NightlyDigest, ADryRunSaysWhatItWouldHoldBack) {
    fs::rename(mirror_, tmp_ / "moved");
    fs::create_directories(mirror_);  // an empty mount point
    test::CommandResult r = night("--dry-run");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.err.find(mirror_.string() + ": no files where 11 were catalogued (not mounted?)"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("gone\t"), std::string::npos) << r.out;
}

TEST_F(NightlyDigest, TheNightlyScriptMailsTheDigestOnlyWhenSomethingChanged) {
    const fs::path mailbox = tmp_ / "mailbox";
    const std::string script = std::string(MODELCAT_SOURCE_DIR) + "/scripts/nightly-example";
    const std::string env = "MODELCAT='" + test::modelcat_binary() + "' MODELCAT_DB='" + db_.string() +
                            "' MAIL_COMMAND='{ echo \"Subject: $1\"; cat; } >> \"" + mailbox.string() + "\"' ";
    auto run_night = [&] { return test::run_command(env + "sh " + script + " " + mirror_.string()); };
    a_day_passes();
    break_things();
    test::CommandResult r = run_night();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out + r.err, "");  // cron mails nothing of its own
    const std::string mail = read_text(mailbox);
    EXPECT_EQ(mail.substr(0, mail.find('\n')), "Subject: modelcat: 1 new, 1 changed, 1 gone, 1 newly failing");
    EXPECT_NE(mail.find("\nnewly failing:\n  " + file("beta-Q4_K_M").string() + ": "), std::string::npos) << mail;
    a_day_passes();
    r = run_night();  // beta still broken, nothing else: no mail, no output
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out + r.err, "");
    EXPECT_EQ(read_text(mailbox), mail);
    fs::rename(mirror_, tmp_ / "moved");
    fs::create_directories(mirror_);
    r = run_night();  // unmounted: said on stdout for cron to mail; nothing marked gone, so no digest
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("no files where"), std::string::npos) << r.out;
    EXPECT_EQ(read_text(mailbox), mail);
}

}  // namespace
