// How the engine reports an NVRTC failure: the log, and the generated source kept
// where the message says, whether or not source dumps are on.
#include <gtest/gtest.h>

#include <filesystem>

#include "coop/engine.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;

// A header tree that the toolkit accepts but NVRTC cannot compile.
fs::path broken_cccl(const fs::path& root) {
  fs::create_directories(root / "cub/block");
  testing::write_text(root / "cub/version.cuh", "#pragma once\n#define CUB_VERSION 300001\n");
  testing::write_text(root / "cub/block/block_load.cuh", "#error \"this CCCL tree is broken on purpose\"\n");
  return root;
}

std::string compile_error(EngineConfig config) {
  Engine engine(std::move(config));
  CallFacts facts{"load", Group::this_block({128, 1, 1}), DType::Int32, 2, {}, "copy_tile (kernel.py:7)"};
  try {
    engine.compile({engine.plan(facts)}, "sm_90");
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::ProviderCompile);
    return error.what();
  }
  ADD_FAILURE() << "a broken header tree compiled";
  return {};
}

std::string kept_source(const std::string& message) {
  const std::string marker = "generated source: ";
  const std::size_t at = message.find(marker);
  if (at == std::string::npos) return {};
  return message.substr(at + marker.size(), message.find('\n', at) - at - marker.size());
}

TEST(EngineErrors, FailedCompileKeepsItsSourceWithoutDumps) {
  testing::TempDir dir;
  EngineConfig config = testing::isolated_engine_config(dir.path() / "cache");
  config.toolkit.cccl_root = broken_cccl(dir.path() / "cccl").string();
  config.source_dump_dir.clear();
  const std::string message = compile_error(config);
  EXPECT_NE(message.find("this CCCL tree is broken on purpose"), std::string::npos) << message;
  const std::string path = kept_source(message);
  ASSERT_TRUE(fs::exists(path)) << message;
  EXPECT_NE(testing::read_text(path).find("::cub::BlockLoad<"), std::string::npos);
  fs::remove(path);
}

TEST(EngineErrors, FailedCompileNamesTheDumpedSource) {
  testing::TempDir dir;
  EngineConfig config = testing::isolated_engine_config(dir.path() / "cache");
  config.toolkit.cccl_root = broken_cccl(dir.path() / "cccl").string();
  config.source_dump_dir = (dir.path() / "dumps").string();
  const std::string path = kept_source(compile_error(config));
  EXPECT_EQ(fs::path(path).parent_path(), dir.path() / "dumps");
  EXPECT_TRUE(fs::exists(path));
}

// cub::WarpReduceBatched came with CCCL 3.5: an older CCCL is refused before NVRTC runs, naming
// the release that has it and the one in use.
TEST(EngineErrors, AClassOfALaterCcclNamesTheReleaseThatHasIt) {
  const testing::TempDir dir;
  Engine engine(testing::isolated_engine_config(dir.path() / "cache"));
  const Toolkit& toolkit = engine.toolkit();
  if (fs::exists(fs::path(toolkit.cccl_include) / "cub/warp/warp_reduce_batched.cuh")) GTEST_SKIP() << "it has it";
  CallFacts facts{"reduce_batched", Group::this_warp({64, 1, 1}, 8), DType::Int32, 4, {}, "sums (kernel.py:9)"};
  try {
    engine.compile({engine.plan(facts)}, "sm_90");
    ADD_FAILURE() << "compiled without cub::WarpReduceBatched";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.kind(), ErrorKind::UnsupportedOperation) << message;
    for (const std::string& fragment :
         {std::string("::cub::WarpReduceBatched"), std::string("CCCL 3.5 or newer"),
          "this one is CCCL " + toolkit.cccl_version, std::string("CUDA_COOP_CCCL_ROOT")}) {
      EXPECT_NE(message.find(fragment), std::string::npos) << fragment << "\n" << message;
    }
  }
}

}  // namespace
}  // namespace coop
