#include <gtest/gtest.h>

#include <set>

#include "coop/catalog.hpp"

namespace coop {
namespace {

std::set<std::string> algorithms_of(const std::string& operation, GroupKind kind) {
  std::set<std::string> names;
  for (const auto& algorithm : find_operation(operation)->form(kind)->algorithms) names.insert(algorithm.name);
  return names;
}

TEST(Catalog, LoadAndStoreHaveEveryCubAlgorithm) {
  const std::set<std::string> block = {"direct",    "striped",        "vectorize",
                                       "transpose", "warp_transpose", "warp_transpose_timesliced"};
  const std::set<std::string> warp = {"direct", "striped", "vectorize", "transpose"};
  for (const char* operation : {"load", "store"}) {
    EXPECT_EQ(algorithms_of(operation, GroupKind::Block), block) << operation;
    EXPECT_EQ(algorithms_of(operation, GroupKind::Warp), warp) << operation;
  }
}

TEST(Catalog, CubSpellingsFollowTheDirection) {
  const GroupForm* block_store = find_operation("store")->form(GroupKind::Block);
  EXPECT_EQ(block_store->cub_class, "::cub::BlockStore");
  EXPECT_EQ(find_algorithm(*block_store, "warp_transpose")->cub_enum, "::cub::BLOCK_STORE_WARP_TRANSPOSE");
  const GroupForm* warp_load = find_operation("load")->form(GroupKind::Warp);
  EXPECT_EQ(warp_load->header, "cub/warp/warp_load.cuh");
  EXPECT_EQ(find_algorithm(*warp_load, "transpose")->cub_enum, "::cub::WARP_LOAD_TRANSPOSE");
}

TEST(Catalog, ScratchOnlyForExchangingAlgorithms) {
  for (const auto& operation : catalog()) {
    for (const auto& form : operation.forms) {
      for (const auto& algorithm : form.algorithms) {
        const bool exchanges = algorithm.name.find("transpose") != std::string::npos;
        EXPECT_EQ(algorithm.needs_scratch, exchanges) << operation.name << " " << algorithm.name;
      }
    }
  }
}

TEST(Catalog, OptionsDeclareTheirBindings) {
  const OperationSpec* load = find_operation("load");
  EXPECT_FALSE(load->option("algorithm")->allow_runtime);
  EXPECT_EQ(load->option("valid_items")->range, CountRange::ZeroToTileCapacity);
  EXPECT_EQ(load->option("oob_default")->requires_option, "valid_items");
  EXPECT_EQ(load->option("offset")->target, "source");
  EXPECT_EQ(find_operation("store")->option("offset")->target, "destination");
  EXPECT_EQ(find_operation("store")->option("oob_default"), nullptr);
  EXPECT_EQ(find_operation("reduce_everything"), nullptr);
}

TEST(Catalog, MethodArgumentsNameOperandsOrOptions) {
  for (const auto& operation : catalog()) {
    for (const auto& name : operation.method_arguments) {
      bool known = operation.option(name) != nullptr;
      for (const auto& operand : operation.operands) known = known || operand.name == name;
      EXPECT_TRUE(known) << operation.name << ": " << name;
    }
  }
}

}  // namespace
}  // namespace coop
