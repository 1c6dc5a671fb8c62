#include <gtest/gtest.h>

#include "coop/error.hpp"
#include "coop/group.hpp"

namespace coop {
namespace {

void expect_rejected(const Group& group, const std::string& fragment) {
  try {
    validate(group, "load");
    FAIL() << "accepted " << group.describe();
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidGroup);
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).rfind("load: ", 0), 0u) << error.what();
  }
}

TEST(Group, BlockCountsAndInstances) {
  const Group block = Group::this_block({32, 4, 1});
  EXPECT_EQ(block.threads(), 128);
  EXPECT_EQ(block.instances(), 1);
  EXPECT_NO_THROW(validate(block, "load"));
  EXPECT_EQ(block.describe(), "block(32,4,1)");
}

TEST(Group, WarpPartitions) {
  const Group warp = Group::this_warp({128, 1, 1}, 8);
  EXPECT_EQ(warp.threads(), 8);
  EXPECT_EQ(warp.instances(), 16);
  EXPECT_NO_THROW(validate(warp, "load"));
  for (int width : {1, 2, 4, 8, 16, 32}) EXPECT_NO_THROW(validate(Group::this_warp({64, 1, 1}, width), "load"));
}

TEST(Group, RejectsEmptyAndOversizedBlocks) {
  expect_rejected(Group::this_block({0, 1, 1}), "every dimension >= 1");
  expect_rejected(Group::this_block({1025, 1, 1}), "at most 1024 threads");
  expect_rejected(Group::this_block({64, 32, 1}), "2048 threads");
  expect_rejected(Group::this_block({1, 1, 65}), "z <= 64");
}

TEST(Group, RejectsBadPartitionWidths) {
  for (int width : {0, 3, 6, 12, 64}) expect_rejected(Group::this_warp({64, 1, 1}, width), "power of two from 1 to 32");
}

TEST(Group, WarpGroupsNeedWholeWarps) {
  expect_rejected(Group::this_warp({96 + 1, 1, 1}), "whole warps");
  expect_rejected(Group::this_warp({8, 2, 1}, 8), "whole warps");
  EXPECT_NO_THROW(validate(Group::this_warp({8, 4, 1}, 8), "load"));
}

TEST(Group, GroupsOfWarps) {
  const Group pairs = Group::warps_of({256, 1, 1}, 2);
  EXPECT_EQ(pairs.threads(), 64);
  EXPECT_EQ(pairs.instances(), 4);
  EXPECT_EQ(pairs.describe(), "2 warps in block(256,1,1)");
  EXPECT_NO_THROW(validate(pairs, "sum"));
  EXPECT_EQ(Group::warps_of({256, 1, 1}, 3).instances(), 2);           // the last two warps are in no group
  EXPECT_NO_THROW(validate(Group::warps_of({1024, 1, 1}, 1), "sum"));  // 32 groups of one warp: no barrier
  EXPECT_NO_THROW(validate(Group::warps_of({480, 1, 1}, 1), "sum"));
  expect_rejected(Group::warps_of({1024, 1, 1}, 2), "at most 15 groups");
  expect_rejected(Group::warps_of({128, 1, 1}, 5), "1 to 4");
  expect_rejected(Group::warps_of({48, 1, 1}, 1), "whole warps");
}

TEST(Group, Clusters) {
  const Group pair = Group::cluster_of({128, 1, 1}, 2);
  EXPECT_EQ(pair.threads(), 256);
  EXPECT_EQ(pair.instances(), 1);  // one scratch per block: each block holds its share
  EXPECT_EQ(pair.cluster_blocks(), 2);
  EXPECT_EQ(pair.describe(), "cluster of 2 x block(128,1,1)");
  EXPECT_NO_THROW(validate(pair, "sum"));
  EXPECT_NO_THROW(validate(Group::cluster_of({8, 4, 3}, 8), "sum"));  // any block shape, like a block's
  expect_rejected(Group::cluster_of({128, 1, 1}, 9), "1 to 8");
  expect_rejected(Group::cluster_of({128, 1, 1}, 0), "1 to 8");
}

TEST(Group, ParsesCommandLineSpellings) {
  EXPECT_EQ(parse_group("block:32,4", {}, "coop"), Group::this_block({32, 4, 1}));
  EXPECT_EQ(parse_group("block:128", {}, "coop"), Group::this_block({128, 1, 1}));
  EXPECT_EQ(parse_group("warp", {64, 1, 1}, "coop"), Group::this_warp({64, 1, 1}, 32));
  EXPECT_EQ(parse_group("warp:8", {64, 1, 1}, "coop"), Group::this_warp({64, 1, 1}, 8));
  EXPECT_EQ(parse_group("warps:2", {256, 1, 1}, "coop"), Group::warps_of({256, 1, 1}, 2));
  EXPECT_EQ(parse_group("cluster:4", {128, 1, 1}, "coop"), Group::cluster_of({128, 1, 1}, 4));
  for (const char* bad : {"blok:1", "block:", "block:a", "block:1,2,3,4", "warp:x", "thread", "warps", "warps:x",
                          "cluster", "cluster:x"}) {
    EXPECT_THROW(parse_group(bad, {32, 1, 1}, "coop"), Error) << bad;
  }
}

}  // namespace
}  // namespace coop
