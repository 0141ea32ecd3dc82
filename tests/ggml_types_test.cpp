#include <gtest/gtest.h>

#include <set>

#include "model/ggml_types.hpp"

using namespace modelcat::model;

TEST(GgmlTypes, LayoutsMatchTheRatesMeasuredInRealQuants) {
    // bits per weight measured from bartowski's Llama 3.1 8B Instruct GGUF files
    const std::pair<uint32_t, double> measured[] = {{0, 32.0},   {8, 8.5},    {10, 2.625}, {11, 3.4375},
                                                    {12, 4.5},   {13, 5.5},   {14, 6.5625}, {21, 3.4375},
                                                    {22, 2.5625}};
    for (auto [id, bpw] : measured) {
        const GgmlType* t = find_ggml_type(id);
        ASSERT_NE(t, nullptr) << id;
        EXPECT_DOUBLE_EQ(t->bits_per_weight(), bpw) << t->name;
    }
}

TEST(GgmlTypes, RemovedAndUnknownIdsAreAbsentButNamed) {
    for (uint32_t id : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u, 1000u}) {
        EXPECT_EQ(find_ggml_type(id), nullptr) << id;
        EXPECT_EQ(ggml_type_name(id), "type_" + std::to_string(id));
        EXPECT_FALSE(ggml_expected_bytes(id, 256).has_value());
    }
}

TEST(GgmlTypes, TableIsSortedUniqueAndComplete) {
    std::set<uint32_t> ids;
    std::set<std::string_view> names;
    for (const auto& t : ggml_types()) {
        EXPECT_TRUE(ids.insert(t.id).second) << t.id;
        EXPECT_TRUE(names.insert(t.name).second) << t.name;
        EXPECT_GT(t.block_size, 0u);
        EXPECT_GT(t.type_size, 0u);
    }
    EXPECT_EQ(ids.size(), 35u);  // 0..42 minus the 8 removed ids
    EXPECT_EQ(*ids.rbegin(), 42u);
}

TEST(GgmlTypes, ExpectedBytesNeedWholeBlocks) {
    EXPECT_EQ(ggml_expected_bytes(12, 4096ull * 128256), 295'501'824u);  // token_embd in Q4_K, as in the Llama 3.1 8B Q4_K_M
    EXPECT_EQ(ggml_expected_bytes(14, 4096ull * 128256), 430'940'160u);  // output in Q6_K
    EXPECT_FALSE(ggml_expected_bytes(8, 172 * 2).has_value());  // 344 elements: 10.75 Q8_0 blocks
    EXPECT_FALSE(ggml_expected_bytes(8, 33).has_value());
    EXPECT_EQ(ggml_expected_bytes(8, 172 * 8), 1376u / 32 * 34);  // ne[0] = 172 but 1376 elements = 43 blocks
}
