// Block and warp load/store: cub::BlockLoad, cub::BlockStore, cub::WarpLoad,
// cub::WarpStore. The model every family file follows: operands, options, CUB
// mapping and scratch, declared as data.
#include "catalog/family.hpp"

namespace coop::catalog_families {
namespace {

const std::vector<TemplateSlot> kBlockTemplate = {{"T", TemplateArg::DType},
                                                  {"BLOCK_DIM_X", TemplateArg::BlockDimX},
                                                  {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                                  {"ALGORITHM", TemplateArg::Algorithm},
                                                  {"BLOCK_DIM_Y", TemplateArg::BlockDimY},
                                                  {"BLOCK_DIM_Z", TemplateArg::BlockDimZ}};
const std::vector<TemplateSlot> kWarpTemplate = {{"T", TemplateArg::DType},
                                                 {"ITEMS_PER_THREAD", TemplateArg::ItemsPerThread},
                                                 {"ALGORITHM", TemplateArg::Algorithm},
                                                 {"LOGICAL_WARP_THREADS", TemplateArg::LogicalWarpThreads}};

// CUB's block and warp algorithms of one direction ("LOAD" or "STORE").
std::string unaligned_fallback(const std::string& direction) {
  return direction == "STORE" ? "::cub::StoreDirectBlocked" : "";
}

std::vector<AlgorithmSpec> block_algorithms(const std::string& direction) {
  const std::string prefix = "::cub::BLOCK_" + direction + "_";
  return {
      {"direct", prefix + "DIRECT", false, false},
      {"striped", prefix + "STRIPED", false, false},
      {"vectorize", prefix + "VECTORIZE", false, false, unaligned_fallback(direction)},
      {"transpose", prefix + "TRANSPOSE", true, false},
      {"warp_transpose", prefix + "WARP_TRANSPOSE", true, true},
      {"warp_transpose_timesliced", prefix + "WARP_TRANSPOSE_TIMESLICED", true, true},
  };
}

std::vector<AlgorithmSpec> warp_algorithms(const std::string& direction) {
  const std::string prefix = "::cub::WARP_" + direction + "_";
  return {
      {"direct", prefix + "DIRECT", false, false},
      {"striped", prefix + "STRIPED", false, false},
      {"vectorize", prefix + "VECTORIZE", false, false, unaligned_fallback(direction)},
      {"transpose", prefix + "TRANSPOSE", true, false},
  };
}

OptionSpec valid_items_option() {
  return {.name = "valid_items", .type = OptionType::Count, .range = CountRange::ZeroToTileCapacity};
}

OptionSpec offset_option(const std::string& target) {
  return {.name = "offset", .type = OptionType::Offset, .target = target};
}

// A store leaves its items as they were (CUB's transposing stores rearrange them) and also
// takes one value per thread as a scalar (the seed's `store(group, destination, x)`).
const ClassAdapter kBlockStoreFromCopy{
    "::coop_adapt::BlockStoreFromCopy", {}, adapters::source("block_store_from_copy")};
const ClassAdapter kWarpStoreFromCopy{"::coop_adapt::WarpStoreFromCopy", {}, adapters::source("warp_store_from_copy")};

// A guarded load leaves the items past the valid prefix as they were.
const ClassAdapter kBlockLoadKeepingInvalid{
    "::coop_adapt::BlockLoadKeepingInvalid", {}, adapters::source("block_load_keeping_invalid")};
const ClassAdapter kWarpLoadKeepingInvalid{
    "::coop_adapt::WarpLoadKeepingInvalid", {}, adapters::source("warp_load_keeping_invalid")};

std::vector<GroupForm> forms(const std::string& block_class, const std::string& warp_class,
                             const std::string& header_stem, const std::string& direction) {
  const bool store = direction == "STORE";
  const auto payloads = [store](const ClassAdapter& adapter) {
    if (!store) return std::vector<PayloadShape>{{PayloadKind::Array, {}, &adapter}};
    return std::vector<PayloadShape>{{PayloadKind::Array, {}, &adapter}, {PayloadKind::Scalar, {}, &adapter}};
  };
  return {
      {.group = GroupKind::Block,
       .cub_class = "::cub::" + block_class,
       .header = "cub/block/block_" + header_stem + ".cuh",
       .template_args = kBlockTemplate,
       .algorithms = block_algorithms(direction),
       .payloads = payloads(store ? kBlockStoreFromCopy : kBlockLoadKeepingInvalid)},
      {.group = GroupKind::Warp,
       .cub_class = "::cub::" + warp_class,
       .header = "cub/warp/warp_" + header_stem + ".cuh",
       .template_args = kWarpTemplate,
       .algorithms = warp_algorithms(direction),
       .needs_whole_warps = true,
       .payloads = payloads(store ? kWarpStoreFromCopy : kWarpLoadKeepingInvalid)},
  };
}

}  // namespace

std::vector<OperationSpec> load_store() {
  OptionSpec oob_default{.name = "oob_default", .type = OptionType::PayloadScalar};
  oob_default.requires_option = "valid_items";

  OperationSpec load{
      .name = "load",
      .family = "load_store",
      .method = "Load",
      .operands = {{"source", OperandRole::SourceArray}, {"items", OperandRole::PayloadOut}},
      .options = {algorithm_option(block_algorithms("LOAD"), "direct"), valid_items_option(), oob_default,
                  offset_option("source")},
      .method_arguments = {"source", "items", "valid_items", "oob_default"},
      .forms = forms("BlockLoad", "WarpLoad", "load", "LOAD"),
      .takes_records = true,  // an aligned structured dtype's items, moved whole
  };
  // The items are read only: the store's adapter hands CUB a copy (see kBlockStoreFromCopy).
  OperationSpec store{
      .name = "store",
      .family = "load_store",
      .method = "Store",
      .operands = {{"destination", OperandRole::DestinationArray}, {"items", OperandRole::PayloadIn}},
      .options = {algorithm_option(block_algorithms("STORE"), "direct"), valid_items_option(),
                  offset_option("destination")},
      .method_arguments = {"destination", "items", "valid_items"},
      .forms = forms("BlockStore", "WarpStore", "store", "STORE"),
      .takes_records = true,  // an aligned structured dtype's items, moved whole
  };
  return {load, store};
}

}  // namespace coop::catalog_families
