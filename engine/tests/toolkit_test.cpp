// Toolkit location against the real CUDA install of the test machine, plus small fake trees
// (a CCCL root, a wheel root) that hold only what the search looks for.
#include "coop/toolkit.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>

#include "coop/engine.hpp"
#include "coop/error.hpp"
#include "test_support.hpp"

namespace coop {
namespace {

namespace fs = std::filesystem;
using coop::testing::TempDir;
using coop::testing::write_text;

// Sets an environment variable for one test and puts the old value back.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

const Toolkit& installed() {
  static const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  return toolkit;
}

// Just what the search checks for: the marker header and CUB's version macro.
fs::path write_fake_cccl(const fs::path& root, const std::string& cub_version) {
  fs::create_directories(root / "cub" / "block");
  write_text(root / "cub" / "version.cuh", "#pragma once\n#define CUB_VERSION " + cub_version + "\n");
  write_text(root / "cub" / "block" / "block_load.cuh", "#pragma once\n");
  return root;
}

std::string normal(const fs::path& path) { return path.lexically_normal().string(); }

bool is_sha256(const std::string& text) { return std::regex_match(text, std::regex("[0-9a-f]{64}")); }

TEST(Toolkit, LocatesTheInstalledToolkit) {
  const Toolkit& toolkit = installed();
  EXPECT_TRUE(std::regex_match(fs::path(toolkit.nvrtc_library).filename().string(), std::regex(R"(libnvrtc\.so\.\d+)")))
      << toolkit.nvrtc_library;
  EXPECT_TRUE(fs::is_regular_file(toolkit.nvjitlink_library)) << toolkit.nvjitlink_library;
  EXPECT_TRUE(fs::is_regular_file(fs::path(toolkit.cuda_include) / "cuda_fp16.h"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(toolkit.cccl_include) / "cub" / "block" / "block_load.cuh"));
  EXPECT_TRUE(std::regex_match(toolkit.nvrtc_version(), std::regex(R"(\d+\.\d+)"))) << toolkit.nvrtc_version();
  EXPECT_TRUE(std::regex_match(toolkit.nvjitlink_version(), std::regex(R"(\d+\.\d+)"))) << toolkit.nvjitlink_version();
  EXPECT_TRUE(std::regex_match(toolkit.cccl_version, std::regex(R"(\d+\.\d+\.\d+)"))) << toolkit.cccl_version;
  EXPECT_TRUE(is_sha256(toolkit.header_digest));
  EXPECT_TRUE(is_sha256(toolkit.identity));
}

TEST(Toolkit, IdentityIsStableAcrossLookups) {
  const Toolkit again = Toolkit::locate(ToolkitSearch::from_environment());
  EXPECT_EQ(again.header_digest, installed().header_digest);
  EXPECT_EQ(again.identity, installed().identity);
}

TEST(Toolkit, SearchReadsTheEnvironment) {
  const TempDir cuda_path;
  const TempDir site;
  const std::filesystem::path a = site.path() / "a" / "nvidia";
  const std::filesystem::path b = site.path() / "b" / "nvidia";
  std::filesystem::create_directories(a / "cuda_nvrtc");  // a CUDA 12 wheel's component
  std::filesystem::create_directories(b / "cu13");        // CUDA 13 wheels' shared tree
  const ScopedEnvironment cccl("CUDA_COOP_CCCL_ROOT", "/opt/cccl");
  const ScopedEnvironment home("CUDA_HOME", "");
  const ScopedEnvironment path("CUDA_PATH", cuda_path.path().string());
  const ScopedEnvironment wheels("CUDA_COOP_WHEEL_ROOTS", a.string() + "::" + b.string());
  const testing::CapturedWarnings warnings;
  const ToolkitSearch search = ToolkitSearch::from_environment();
  EXPECT_EQ(search.cccl_root, "/opt/cccl");
  EXPECT_EQ(search.cuda_home, cuda_path.path().string());
  EXPECT_EQ(search.wheel_roots, (std::vector<std::string>{a.string(), b.string()}));
  EXPECT_TRUE(warnings.texts().empty()) << warnings.joined();
}

// Entries of CUDA_COOP_WHEEL_ROOTS that are no wheel directory are passed over, with one
// warning naming each and why, not ignored in silence.
TEST(Toolkit, WheelRootsThatAreNoWheelDirectoryWarnOnceAndArePassedOver) {
  const TempDir site;
  std::filesystem::create_directories(site.path() / "nvidia" / "cuda_cccl");
  write_text(site.path() / "a-file", "");
  const std::string good = (site.path() / "nvidia").string();
  const std::string file = (site.path() / "a-file").string();
  const std::string value = "garbage:" + good + ":" + file + ":" + site.path().string();
  const ScopedEnvironment wheels("CUDA_COOP_WHEEL_ROOTS", value);
  const testing::CapturedWarnings warnings;
  EXPECT_EQ(ToolkitSearch::from_environment().wheel_roots, std::vector<std::string>{good});
  EXPECT_EQ(ToolkitSearch::from_environment().wheel_roots, std::vector<std::string>{good});
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  for (const std::string& fragment :
       {"CUDA_COOP_WHEEL_ROOTS='" + value + "' names what is not usable", std::string("'garbage' (No such file"),
        "'" + file + "' (not a directory)", "'" + site.path().string() + "' (it holds none of cuNN",
        std::string("site-packages/nvidia directories; passed over")}) {
    EXPECT_NE(warnings.joined().find(fragment), std::string::npos) << fragment << "\n" << warnings.joined();
  }
}

// A CUDA_HOME that names no directory is passed over for CUDA_PATH, with one warning that
// names the variable, its value and what it should be.
TEST(Toolkit, CudaHomeThatIsNoDirectoryWarnsOnceAndIsPassedOver) {
  const TempDir scratch;
  write_text(scratch.path() / "a-file", "");
  for (const std::string& bad : {(scratch.path() / "nowhere").string(), (scratch.path() / "a-file").string()}) {
    const ScopedEnvironment home("CUDA_HOME", bad);
    const ScopedEnvironment path("CUDA_PATH", scratch.path().string());
    const testing::CapturedWarnings warnings;
    EXPECT_EQ(ToolkitSearch::from_environment().cuda_home, scratch.path().string());
    EXPECT_EQ(ToolkitSearch::from_environment().cuda_home, scratch.path().string());
    ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
    EXPECT_NE(warnings.joined().find("CUDA_HOME='" + bad + "' is not usable"), std::string::npos) << warnings.joined();
    EXPECT_NE(warnings.joined().find("expected the directory of a CUDA toolkit"), std::string::npos);
  }
}

TEST(Toolkit, CudaPathThatIsNoDirectoryStillFindsTheInstalledToolkit) {
  const Toolkit& reference = installed();
  const TempDir scratch;
  const ScopedEnvironment home("CUDA_HOME", "");
  const ScopedEnvironment path("CUDA_PATH", (scratch.path() / "nowhere").string());
  const testing::CapturedWarnings warnings;
  const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  EXPECT_EQ(toolkit.nvrtc_library, reference.nvrtc_library);
  EXPECT_NE(warnings.joined().find("CUDA_PATH='" + (scratch.path() / "nowhere").string() + "'"), std::string::npos)
      << warnings.joined();
}

TEST(Toolkit, CubVersionTooLargeForAnyIntegerIsAToolkitError) {
  const TempDir scratch;
  ToolkitSearch search;
  search.cccl_root = write_fake_cccl(scratch.path() / "cccl", "99999999999999999999999").string();
  try {
    Toolkit::locate(search);
    FAIL() << "a CUB_VERSION beyond any integer was accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Toolkit);
    const std::string message = error.what();
    EXPECT_NE(message.find((scratch.path() / "cccl" / "cub" / "version.cuh").string()), std::string::npos) << message;
    EXPECT_NE(message.find("99999999999999999999999"), std::string::npos) << message;
    EXPECT_NE(message.find("expected MMMmmmpp"), std::string::npos) << message;
  }
}

TEST(Toolkit, CubVersionOfNineDigitsIsAToolkitError) {
  const TempDir scratch;
  ToolkitSearch search;
  search.cccl_root = write_fake_cccl(scratch.path() / "cccl", "100000000").string();
  EXPECT_THROW(Toolkit::locate(search), Error);
}

// Names that no integer holds are nobody's library version: skipped, never an abort.
TEST(Toolkit, VersionNumbersBeyondAnyIntegerInNamesAreSkipped) {
  const TempDir scratch;
  const fs::path root = scratch.path() / "nvidia";
  fs::create_directories(root / "cu99999999999999999999" / "lib");
  const fs::path lib = scratch.path() / "cuda" / "lib64";
  fs::create_directories(lib);
  fs::create_symlink(installed().nvrtc_library, lib / "libnvrtc.so.99999999999999999999");
  fs::create_symlink(installed().nvrtc_library, lib / "libnvrtc.so.13");
  ToolkitSearch search;
  search.cuda_home = (scratch.path() / "cuda").string();
  search.wheel_roots = {root.string()};
  const Toolkit toolkit = Toolkit::locate(search);
  EXPECT_EQ(toolkit.nvrtc_library, normal(lib / "libnvrtc.so.13"));
}

TEST(Toolkit, CcclRootFromTheEnvironmentWins) {
  const Toolkit& reference = installed();  // before the override
  const TempDir scratch;
  const fs::path cccl = write_fake_cccl(scratch.path() / "cccl", "300102");
  const ScopedEnvironment override_root("CUDA_COOP_CCCL_ROOT", cccl.string());
  const Toolkit toolkit = Toolkit::locate(ToolkitSearch::from_environment());
  EXPECT_EQ(toolkit.cccl_include, normal(cccl));
  EXPECT_EQ(toolkit.cccl_version, "3.1.2");
  EXPECT_EQ(toolkit.nvrtc_library, reference.nvrtc_library);
  EXPECT_NE(toolkit.header_digest, reference.header_digest);
  EXPECT_NE(toolkit.identity, reference.identity);
}

TEST(Toolkit, CcclRootWithoutCubIsRejected) {
  const TempDir scratch;
  const std::string absent = (scratch.path() / "absent").string();
  const ScopedEnvironment override_root("CUDA_COOP_CCCL_ROOT", absent);
  try {
    Toolkit::locate(ToolkitSearch::from_environment());
    FAIL() << "an explicit CCCL root without cub/ must not fall back to another one";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::Toolkit);
    const std::string message = error.what();
    EXPECT_NE(message.find(absent), std::string::npos) << message;
    EXPECT_NE(message.find("cub/block/block_load.cuh"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_COOP_CCCL_ROOT"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA_HOME"), std::string::npos) << message;
  }
}

TEST(Toolkit, HeaderDigestFollowsHeaderEdits) {
  const TempDir scratch;
  ToolkitSearch search;
  search.cccl_root = write_fake_cccl(scratch.path() / "cccl", "300001").string();
  const Toolkit before = Toolkit::locate(search);
  write_text(scratch.path() / "cccl" / "cub" / "block" / "block_load.cuh", "#pragma once\n// edited\n");
  const Toolkit edited = Toolkit::locate(search);
  fs::create_directories(scratch.path() / "cccl" / "thrust");
  write_text(scratch.path() / "cccl" / "thrust" / "new.h", "");
  const Toolkit added = Toolkit::locate(search);
  EXPECT_NE(before.header_digest, edited.header_digest);
  EXPECT_NE(edited.header_digest, added.header_digest);
  EXPECT_NE(before.identity, edited.identity);
}

// Notes kept in memory, counting what a locate reads and writes.
struct MemoryNotes {
  std::map<std::string, std::string> notes;
  int loads = 0;
  int stores = 0;
  HeaderNotes view() {
    return {[this](const std::string& name) -> std::optional<std::string> {
              ++loads;
              const auto found = notes.find(name);
              return found == notes.end() ? std::nullopt : std::optional<std::string>(found->second);
            },
            [this](const std::string& name, const std::string& text) {
              ++stores;
              notes[name] = text;
            }};
  }
};

TEST(Toolkit, HeaderDigestIsTakenFromANoteWhileTheTreesStampHolds) {
  const TempDir scratch;
  write_fake_cccl(scratch.path() / "cccl", "300001");
  ToolkitSearch search;
  search.cuda_include = installed().cuda_include;
  search.cccl_root = (scratch.path() / "cccl").string();  // given, as the Python layer gives what it found
  MemoryNotes memory;
  const HeaderNotes notes = memory.view();
  const Toolkit first = Toolkit::locate(search, &notes);
  ASSERT_EQ(memory.stores, 1);
  auto& noted = memory.notes.begin()->second;
  noted.replace(noted.rfind('\n', noted.size() - 2) + 1, 64, std::string(64, 'f'));  // a digest only the note has
  const Toolkit second = Toolkit::locate(search, &notes);
  EXPECT_EQ(second.header_digest, std::string(64, 'f')) << "the note was not used";
  EXPECT_EQ(second.cccl_version, first.cccl_version);
  EXPECT_EQ(memory.stores, 1);
  // A header added to a tree's directory changes the stamp: digested again, and noted.
  write_text(scratch.path() / "cccl" / "cub" / "added.cuh", "");
  const Toolkit added = Toolkit::locate(search, &notes);
  EXPECT_EQ(added.header_digest, Toolkit::locate(search).header_digest);
  EXPECT_NE(added.header_digest, std::string(64, 'f'));
  EXPECT_EQ(memory.stores, 2);
}

TEST(Toolkit, TreesNamedByAVariableAreDigestedEveryTime) {
  const TempDir scratch;
  const fs::path cccl = write_fake_cccl(scratch.path() / "cccl", "300001");
  const ScopedEnvironment named("CUDA_COOP_CCCL_ROOT", cccl.string());
  MemoryNotes memory;
  const HeaderNotes notes = memory.view();
  Toolkit::locate(ToolkitSearch::from_environment(), &notes);
  EXPECT_EQ(memory.loads + memory.stores, 0);
}

// CUDA 13 wheels put every component under site-packages/nvidia/cu13.
TEST(Toolkit, FindsTheCuda13WheelLayout) {
  const TempDir scratch;
  const fs::path cu13 = scratch.path() / "nvidia" / "cu13";
  fs::create_directories(cu13 / "lib");
  fs::create_directories(cu13 / "include");
  fs::create_symlink(installed().nvrtc_library, cu13 / "lib" / "libnvrtc.so.13");
  fs::create_symlink(installed().nvjitlink_library, cu13 / "lib" / "libnvJitLink.so.13");
  write_text(cu13 / "include" / "cuda_fp16.h", "");
  write_fake_cccl(cu13 / "include" / "cccl", "300001");

  ToolkitSearch search;
  search.wheel_roots = {(scratch.path() / "nvidia").string()};
  const Toolkit toolkit = Toolkit::locate(search);
  EXPECT_EQ(toolkit.nvrtc_library, normal(cu13 / "lib" / "libnvrtc.so.13"));
  EXPECT_EQ(toolkit.nvjitlink_library, normal(cu13 / "lib" / "libnvJitLink.so.13"));
  EXPECT_EQ(toolkit.cuda_include, normal(cu13 / "include"));
  EXPECT_EQ(toolkit.cccl_include, normal(cu13 / "include" / "cccl"));
  EXPECT_EQ(toolkit.nvrtc_version(), installed().nvrtc_version());
}

TEST(Toolkit, PrefersTheHighestLibraryMajorNumerically) {
  const TempDir scratch;
  const fs::path lib = scratch.path() / "cuda" / "lib64";
  fs::create_directories(lib);
  write_text(lib / "libnvrtc.so.9", "not a library: picking it would fail to load");
  fs::create_symlink(installed().nvrtc_library, lib / "libnvrtc.so.13");

  ToolkitSearch search;
  search.cuda_home = (scratch.path() / "cuda").string();
  const Toolkit toolkit = Toolkit::locate(search);
  EXPECT_EQ(toolkit.nvrtc_library, normal(lib / "libnvrtc.so.13"));
  EXPECT_EQ(toolkit.nvjitlink_library, installed().nvjitlink_library);
}

// A piece named by path (a CUDA_COOP_* variable, or what the Python layer's cuda-pathfinder found)
// is used as given, ahead of every searched place.
TEST(Toolkit, PiecesGivenByPathAreUsedAsGiven) {
  const TempDir scratch;
  const fs::path lib = scratch.path() / "elsewhere";
  fs::create_directories(lib);
  fs::create_symlink(installed().nvrtc_library, lib / "libnvrtc.so.13");
  const ScopedEnvironment nvrtc("CUDA_COOP_NVRTC_LIBRARY", (lib / "libnvrtc.so.13").string());
  const ScopedEnvironment include("CUDA_COOP_CUDA_INCLUDE", installed().cuda_include);
  const ToolkitSearch search = ToolkitSearch::from_environment();
  EXPECT_EQ(search.nvrtc_library, (lib / "libnvrtc.so.13").string());
  const Toolkit toolkit = Toolkit::locate(search);
  EXPECT_EQ(toolkit.nvrtc_library, normal(lib / "libnvrtc.so.13"));
  EXPECT_EQ(toolkit.cuda_include, installed().cuda_include);
  EXPECT_EQ(toolkit.nvjitlink_library, installed().nvjitlink_library);  // not given: searched
}

TEST(Toolkit, PiecesGivenByPathThatAreNotThereNameThePipPackage) {
  const TempDir scratch;
  ToolkitSearch search;
  search.nvjitlink_library = (scratch.path() / "libnvJitLink.so.13").string();
  search.cuda_include = scratch.path().string();
  try {
    Toolkit::locate(search);
    FAIL() << "a missing nvJitLink given by path was accepted";
  } catch (const Error& error) {
    const std::string text = error.what();
    EXPECT_EQ(error.kind(), ErrorKind::Toolkit);
    EXPECT_NE(text.find("libnvJitLink.so.N (pip package nvidia-nvjitlink): given as " + search.nvjitlink_library +
                        ", which is no file"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("CUDA headers (cuda_fp16.h, pip package nvidia-cuda-runtime): given as " + search.cuda_include +
                        ", which does not hold cuda_fp16.h"),
              std::string::npos)
        << text;
  }
}

// A misspelt CUDA_COOP_* variable would otherwise do nothing, unnoticed.
TEST(Toolkit, UnknownCoopVariablesWarnOnceNamingTheClosest) {
  const ScopedEnvironment typo("CUDA_COOP_CCCL_RO0T", "/opt/cccl");
  const ScopedEnvironment known("CUDA_COOP_PCH", "always");
  const testing::CapturedWarnings warnings;
  EngineConfig::from_environment("test");
  EngineConfig::from_environment("test");
  ASSERT_EQ(warnings.texts().size(), 1u) << warnings.joined();
  EXPECT_NE(warnings.joined().find("CUDA_COOP_CCCL_RO0T is not a variable cuda.coop reads (did you mean "
                                   "CUDA_COOP_CCCL_ROOT?)"),
            std::string::npos)
      << warnings.joined();
}

}  // namespace
}  // namespace coop
