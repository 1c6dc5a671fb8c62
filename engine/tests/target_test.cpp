// The target's limits: shared memory per block by arch, and the engine refusing a
// bundle whose scratch one block could not hold (it would compile, link, and fail
// only at launch).
#include "coop/target.hpp"

#include <gtest/gtest.h>

#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

constexpr int kKiB = 1024;

TEST(Target, SharedMemoryPerBlockFollowsTheArch) {
  EXPECT_EQ(max_shared_memory_per_block("sm_70"), 96 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_75"), 64 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_80"), 163 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_86"), 99 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_87"), 163 * kKiB);  // Orin: the carveout of sm_80
  EXPECT_EQ(max_shared_memory_per_block("sm_89"), 99 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_90"), 227 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_100"), 227 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_103"), 227 * kKiB);
  EXPECT_EQ(max_shared_memory_per_block("sm_120"), 99 * kKiB);
  // An arch the table does not know gets what every GPU gives a block.
  EXPECT_EQ(max_shared_memory_per_block("sm_130"), 48 * kKiB);
  EXPECT_THROW(max_shared_memory_per_block("compute_90"), Error);
}

// A transpose load of `items` int32 per thread in a block of 256: 1 KiB of scratch per item.
Plan transpose_load(Engine& engine, int items) {
  CallFacts facts{"load", Group::this_block({256, 1, 1}), DType::Int32, items, {}, "big_tile (kernel.py:4)"};
  facts.options["algorithm"] = OptionBinding::fixed("transpose");
  return engine.plan(facts);
}

TEST(Target, EngineRefusesScratchOverTheBlocksSharedMemory) {
  testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  // 80 KiB: more than sm_75's 64 KiB, well within sm_90's 227 KiB.
  const std::vector<Plan> plans = {transpose_load(engine, 80)};
  const Bundle fits = engine.compile(plans, "sm_90");
  EXPECT_EQ(fits.providers[0].scratch_bytes_per_block(), 80u * kKiB);
  try {
    engine.compile(plans, "sm_75");
    FAIL() << "80 KiB of scratch accepted for sm_75";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
    const std::string message = error.what();
    for (const char* expected : {"load (big_tile (kernel.py:4)): argument 'scratch' = 81920 bytes per block",
                                 "at most 65536 bytes (64 KiB)", "on sm_75", "fewer items per thread"}) {
      EXPECT_NE(message.find(expected), std::string::npos) << expected << "\n" << message;
    }
  }
}

}  // namespace
}  // namespace coop
