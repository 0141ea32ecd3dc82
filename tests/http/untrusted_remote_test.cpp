// Text from a server never reaches the terminal raw: a body that is not a
// model, a Hub listing whose paths hold escape sequences, and a served GGUF
// whose keys and values hold them, crawled through the binary against nginx.
#include <gtest/gtest.h>

#include <fstream>

#include "kit/gguf_writer.hpp"
#include "nginx.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

TEST(UntrustedRemote, ServerTextIsEscapedOnStderrAndInTables) {
    test::Nginx nginx;
    test::TempDir tmp;
    const std::string db = (tmp / "c.db").string();
    nginx.write_file("files/evil.gguf", std::string("\x1b]0;pwned\x07\x1b[2J\xc2\x9b" "31m and more bytes to read"));
    kit::GgufWriter w;
    w.add_kv("general.name", kit::GgufValue::str("\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\"));
    w.add_kv("k.\x1b[2J", kit::GgufValue::str("\x1b]52;c;cHduZWQ=\x07"));
    w.add_tensor("t.\x1b[5m", {8}, 0);
    w.write(nginx.root() / "files/crafted.gguf");
    // a listing naming files whose paths hold ESC and a C1 CSI (JSON escapes)
    nginx.write_file("tree/page.json", R"([{"type":"file","path":"a\u001b[2J.gguf","size":10},)"
                                       R"({"type":"file","path":"b\u009b31m.gguf","size":10}])");
    nginx.write_file("tree/page2.json", "[]");

    test::CommandResult r = test::run_modelcat("crawl --db " + db + " --hf-endpoint " + nginx.url("") + " " +
                                               nginx.url("/files/evil.gguf") + " " + nginx.url("/files/crafted.gguf") +
                                               " hf://owner/repo");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(test::first_control_character(r.err), "");
    EXPECT_NE(r.err.find("evil.gguf: offset 0: not a GGUF file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a\\x1b[2J.gguf"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("b\\u009b31m.gguf"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("new: " + nginx.url("/files/crafted.gguf")), std::string::npos) << r.err;

    std::ofstream(tmp / "all.sql") << "SELECT key, value FROM metadata UNION ALL SELECT name, NULL FROM tensors"
                                       " UNION ALL SELECT location, message FROM errors";
    test::CommandResult table = test::run_modelcat("query " + (tmp / "all.sql").string() + " --db " + db);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_EQ(test::first_control_character(table.out), "");
    EXPECT_NE(table.out.find("k.\\x1b[2J"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("\\x1b]52;c;cHduZWQ=\\x07"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("t.\\x1b[5m"), std::string::npos) << table.out;
}

}  // namespace
