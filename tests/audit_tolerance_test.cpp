// Every type is either compared exactly or has both ceilings, and the table in
// docs/audit.md gives the ceilings audit/tolerance.cpp applies.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "audit/tolerance.hpp"
#include "model/ggml_types.hpp"

using namespace modelcat;

TEST(AuditTolerance, EveryQuantizedTypeHasBothCeilings) {
    for (const auto& t : model::ggml_types()) {
        bool exact = t.block_size == 1;  // F32, F16, BF16, F64, integers
        const audit::Tolerance* c = audit::tolerance(t.id);
        EXPECT_EQ(c == nullptr, exact) << t.name;
        if (c) {
            EXPECT_TRUE(c->tensor_nmse > 0 && c->block_nmse >= c->tensor_nmse) << t.name;
        }
    }
    EXPECT_EQ(audit::tolerance(43), nullptr);
}

TEST(AuditTolerance, DocsTableIsTheCodes) {
    std::ifstream in(std::filesystem::path(MODELCAT_SOURCE_DIR) / "docs" / "audit.md");
    std::map<std::string, std::pair<double, double>> documented;
    bool in_ceilings = false;  // the table of the section "### Ceilings"
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("### ")) in_ceilings = line == "### Ceilings";
        if (!in_ceilings || !line.starts_with("| ") || line.starts_with("| type") || line.starts_with("|---")) continue;
        std::vector<std::string> cells;
        std::stringstream ss(line.substr(1));
        for (std::string cell; std::getline(ss, cell, '|');) cells.push_back(cell);
        ASSERT_GE(cells.size(), 5u) << line;
        std::stringstream names(cells[0]);
        for (std::string name; std::getline(names, name, ',');) {
            name.erase(0, name.find_first_not_of(' '));
            name.erase(name.find_last_not_of(' ') + 1);
            documented[name] = {std::stod(cells[2]), std::stod(cells[4])};
        }
    }
    EXPECT_EQ(documented.size(), audit::tolerance_table().size());
    for (const auto& t : audit::tolerance_table()) {
        auto it = documented.find(std::string(t.type));
        ASSERT_NE(it, documented.end()) << t.type << " is not in docs/audit.md";
        EXPECT_EQ(it->second.first, t.tensor_nmse) << t.type;
        EXPECT_EQ(it->second.second, t.block_nmse) << t.type;
    }
}
