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

}  // namespace
}  // namespace coop
