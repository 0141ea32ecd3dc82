// LocalReader: reads and offloaded work run on its threads, every completion on
// run()'s thread (the crawl writes the catalogue there), and what work throws
// comes out of run().
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "io/local_reader.hpp"
#include "support.hpp"

using namespace modelcat;

namespace {

TEST(LocalReader, WorkRunsOnItsThreadsAndCompletionsOnRunsThread) {
    test::TempDir dir;
    const std::string path = (dir.path() / "f.bin").string();
    std::ofstream(path, std::ios::binary) << "0123456789";
    io::LocalReader reader(4);
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> off_thread{0};
    int completions = 0;
    for (int i = 0; i < 20; ++i) {
        reader.offload([&] { off_thread += std::this_thread::get_id() != caller; },
                       [&, i] {
                           EXPECT_EQ(std::this_thread::get_id(), caller);
                           ++completions;
                           // a completion may submit more: a read, then more work after it
                           reader.submit({path, uint64_t(i % 5), 3}, [&, i](io::RangeReply r) {
                               EXPECT_EQ(std::this_thread::get_id(), caller);
                               ASSERT_TRUE(r.ok()) << *r.error;
                               EXPECT_EQ(std::string(r.body.begin(), r.body.end()), std::string("0123456789").substr(i % 5, 3));
                               reader.offload([] {}, [&] { ++completions; });
                           });
                       });
    }
    reader.run();
    EXPECT_EQ(off_thread.load(), 20);
    EXPECT_EQ(completions, 40);
}

TEST(LocalReader, WhatWorkThrowsComesOutOfRun) {
    io::LocalReader reader(2);
    bool continued = false;
    reader.offload([] { throw std::runtime_error("disk on fire"); }, [&] { continued = true; });
    try {
        reader.run();
        ADD_FAILURE() << "run() returned";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "disk on fire");
    }
    EXPECT_FALSE(continued);
}

}  // namespace
