#include <gtest/gtest.h>

#include <map>
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

TEST(Catalog, ReduceAndScanHaveEveryCubAlgorithmForBlocksAndNoneForWarps) {
  const std::set<std::string> reduce = {"warp_reductions", "raking", "raking_commutative_only"};
  const std::set<std::string> scan = {"raking", "raking_memoize", "warp_scans"};
  for (const char* operation : {"reduce", "sum"}) {
    EXPECT_EQ(algorithms_of(operation, GroupKind::Block), reduce) << operation;
    EXPECT_TRUE(algorithms_of(operation, GroupKind::Warp).empty()) << operation;
  }
  for (const char* operation : {"inclusive_sum", "exclusive_sum", "inclusive_scan", "exclusive_scan"}) {
    EXPECT_EQ(algorithms_of(operation, GroupKind::Block), scan) << operation;
    EXPECT_TRUE(algorithms_of(operation, GroupKind::Warp).empty()) << operation;
  }
  EXPECT_EQ(find_algorithm(*find_operation("reduce")->form(GroupKind::Block), "raking_commutative_only")->cub_enum,
            "::cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY");
  EXPECT_EQ(find_algorithm(*find_operation("inclusive_scan")->form(GroupKind::Block), "warp_scans")->cub_enum,
            "::cub::BLOCK_SCAN_WARP_SCANS");
}

TEST(Catalog, WarpOnlyOperationsHaveNoBlockForm) {
  for (const char* operation : {"segmented_reduce", "broadcast"}) {
    EXPECT_EQ(find_operation(operation)->form(GroupKind::Block), nullptr) << operation;
    const GroupForm* warp = find_operation(operation)->form(GroupKind::Warp);
    ASSERT_NE(warp, nullptr) << operation;
    EXPECT_EQ(warp->payload(PayloadKind::Array), nullptr) << operation;
    EXPECT_NE(warp->payload(PayloadKind::Scalar), nullptr) << operation;
  }
}

TEST(Catalog, OperatorsAreCubAndLibcuxxFunctors) {
  EXPECT_EQ(find_operator("sum")->functor, "::cuda::std::plus<>");
  EXPECT_EQ(find_operator("min")->functor, "::cuda::minimum<>");
  EXPECT_EQ(find_operator("max")->functor, "::cuda::maximum<>");
  for (const char* bitwise : {"bit_and", "bit_or", "bit_xor"}) EXPECT_TRUE(find_operator(bitwise)->integers_only);
  EXPECT_FALSE(find_operator("max")->integers_only);
  EXPECT_EQ(find_operator("add"), find_operator("sum"));  // an alias finds its operator
  EXPECT_EQ(find_operator("*")->functor, "::cuda::std::multiplies<>");
  EXPECT_EQ(find_operator("median"), nullptr);
  // What a kernel passes as a Python object, spelled as its module names it.
  EXPECT_EQ(find_operator("np.maximum"), find_operator("max"));
  EXPECT_EQ(find_operator("operator.add"), find_operator("sum"));
  EXPECT_EQ(find_predicate("np.less"), find_predicate("less"));
  // Every operator is compile-time and, omitted, the sum (the seed's binary_op=None, scan_op=None).
  for (const auto& [operation, name] :
       std::vector<std::pair<const char*, const char*>>{{"reduce", "binary_op"},
                                                        {"segmented_reduce", "binary_op"},
                                                        {"scan", "scan_op"},
                                                        {"inclusive_scan", "scan_op"},
                                                        {"exclusive_scan", "scan_op"}}) {
    const OptionSpec* op = find_operation(operation)->option(name);
    ASSERT_NE(op, nullptr) << operation;
    EXPECT_TRUE(!op->required && !op->allow_runtime && op->default_choice == "sum") << operation;
  }
  for (const char* sum : {"sum", "inclusive_sum", "exclusive_sum"}) {
    for (const auto& option : find_operation(sum)->options) EXPECT_NE(option.type, OptionType::Operator) << sum;
  }
}

// The overloads CUB lacks are declared where they are lacking, nowhere else.
TEST(Catalog, DeclaresTheOverloadsCubLacks) {
  const auto lacks = [](const char* operation, GroupKind kind, PayloadKind payload) {
    return find_operation(operation)->form(kind)->payload(payload)->lacks;
  };
  using Lacks = std::vector<std::string>;
  for (const char* operation : {"reduce", "sum"}) {
    EXPECT_TRUE(lacks(operation, GroupKind::Block, PayloadKind::Array).empty());  // composed by an adapter
    EXPECT_EQ(lacks(operation, GroupKind::Warp, PayloadKind::Array), Lacks{"valid_items"});
    EXPECT_TRUE(lacks(operation, GroupKind::Block, PayloadKind::Scalar).empty());
  }
  EXPECT_TRUE(lacks("exclusive_scan", GroupKind::Block, PayloadKind::Scalar).empty());
  EXPECT_TRUE(lacks("inclusive_scan", GroupKind::Warp, PayloadKind::Scalar).empty());
}

// Adapters only where CUB lacks an overload (warp ThreadData reductions and scans, the valid_items
// of warp scans and of block ThreadData reductions, a store of one scalar per thread, ranks of keys as they are, a
// top-k where the CCCL has none), a check (the exchanges' scatter ranks) or a copy (a store leaves its items unchanged,
// a guarded load its invalid ones); every other call is CUB's class itself.
TEST(Catalog, AdaptersOnlyWhereCubLacksAnOverloadOrACheck) {
  for (const auto& operation : catalog()) {
    for (const auto& form : operation.forms) {
      for (const auto& shape : form.payloads) {
        const bool adapted = shape.adapter != nullptr;
        const bool warp_array = form.group == GroupKind::Warp && shape.kind == PayloadKind::Array &&
                                (operation.family == "reduce" || operation.family == "scan");
        // The seed's valid_items on warp scans of one value per lane.
        const bool warp_partial_scan = form.group == GroupKind::Warp && shape.kind == PayloadKind::Scalar &&
                                       operation.family == "scan" && operation.option("valid_items") != nullptr;
        // CUB has no class for a group of warps or a cluster: they are composed from
        // cub::WarpReduce and cub::BlockReduce.
        const bool warps_group = form.group == GroupKind::Warps || form.group == GroupKind::Cluster;
        const bool block_partial_reduce =
            form.group == GroupKind::Block && shape.kind == PayloadKind::Array && operation.family == "reduce";
        // BlockDiscontinuity's FlagHeadsAndTails overloads differ only in which neighbour a lone T is;
        // BlockHistogram indexes its counters unchecked and leaves them in shared memory;
        // BlockRunLengthDecode scans lengths in the offset dtype, where an overflow wraps.
        EXPECT_EQ(adapted, warp_array || warp_partial_scan || warps_group || block_partial_reduce ||
                               operation.family == "load_store" || operation.family == "exchange" ||
                               operation.family == "radix_rank" || operation.family == "topk" ||
                               operation.family == "discontinuity" || operation.family == "histogram" ||
                               operation.family == "run_length_decode")
            << operation.name << " " << to_string(form.group);
      }
    }
  }
}

TEST(Catalog, ReductionsAndScansAlwaysUseScratch) {
  for (const auto& operation : catalog()) {
    if (operation.family != "reduce" && operation.family != "scan") continue;
    for (const auto& form : operation.forms) EXPECT_TRUE(form.needs_scratch) << operation.name;
  }
}

TEST(Catalog, ScratchOnlyForExchangingAlgorithms) {
  for (const auto& operation : catalog()) {
    for (const auto& form : operation.forms) {
      if (form.needs_scratch) continue;  // every call takes scratch, whatever the algorithm (a histogram)
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

// A sized array is memory the method bounds itself (it receives the array's size, not a pointer
// an Offset could move), and an index the method takes whole displaces no operand.
TEST(Catalog, SizedArraysAreMemoryAndIndexesHaveNoTarget) {
  for (const auto& operation : catalog()) {
    for (const auto& operand : operation.operands) {
      EXPECT_TRUE(!operand.array.sized || is_memory(operand.role)) << operation.name << ": " << operand.name;
    }
    for (const auto& option : operation.options) {
      EXPECT_TRUE(!option.array.sized || option.type == OptionType::DestinationArray)
          << operation.name << ": " << option.name;
      if (option.type != OptionType::Offset) {
        EXPECT_TRUE(option.index_dtype.empty()) << operation.name << ": " << option.name;
        continue;
      }
      if (!option.index_dtype.empty()) EXPECT_TRUE(option.target.empty()) << operation.name << ": " << option.name;
      for (const auto& operand : operation.operands) {
        if (operand.name == option.target) EXPECT_FALSE(operand.array.sized) << operation.name << ": " << option.name;
      }
    }
  }
}

// The CLI gives each option name one flag, its kind decided once (cli_test): one kind in every
// family, or arrays the call takes at run time, which a flag without a value binds alike (a run-length
// decode's relative offsets: a ThreadData of a window, a device array decoding into memory).
TEST(Catalog, AnOptionNameHasOneKindInEveryFamily) {
  const auto runtime_array = [](OptionType type) {
    return type == OptionType::PayloadArray || type == OptionType::DestinationArray;
  };
  std::map<std::string, std::pair<OptionType, std::string>> first;  // name -> kind, where first seen
  for (const auto& operation : catalog()) {
    for (const auto& option : operation.options) {
      const auto [seen, inserted] = first.try_emplace(option.name, option.type, operation.name);
      if (runtime_array(seen->second.first) && runtime_array(option.type)) continue;
      EXPECT_EQ(static_cast<int>(seen->second.first), static_cast<int>(option.type))
          << option.name << " in " << operation.name << " and " << seen->second.second;
    }
  }
}

}  // namespace
}  // namespace coop

namespace coop {
namespace {

// Method rules and option-bound template slots name options the operation has, of a
// kind they can read: a catalog typo would otherwise surface as a null dereference.
TEST(Catalog, MethodRulesAndTemplateSlotsNameTheOperationsOptions) {
  for (const auto& operation : catalog()) {
    for (const auto& rule : operation.methods) {
      // Only the last rule may match every call (a catch-all); messages name the first rule's option.
      EXPECT_TRUE(!rule.when.empty() || &rule == &operation.methods.back()) << operation.name << " " << rule.method;
      for (const auto& [name, value] : rule.when) {
        const OptionSpec* option = operation.option(name);
        ASSERT_NE(option, nullptr) << operation.name << " rule " << rule.method << ": " << name;
        EXPECT_TRUE(!option->allow_runtime || value == kOmittedOption)
            << operation.name << ": a rule reads " << name << " at compile time";
      }
      std::vector<std::string> named = rule.needs;
      named.insert(named.end(), rule.allows.begin(), rule.allows.end());
      named.insert(named.end(), rule.needs_one_of.begin(), rule.needs_one_of.end());
      for (const auto& [name, value] : rule.fixed) named.push_back(name);
      for (const auto& [name, range] : rule.ranges) named.push_back(name);
      for (const auto& name : named) EXPECT_NE(operation.option(name), nullptr) << operation.name << ": " << name;
    }
    for (const auto& form : operation.forms) {
      for (const auto& slot : form.template_args) {
        if (slot.from != TemplateArg::Option) continue;
        const OptionSpec* option = operation.option(slot.fact);
        ASSERT_NE(option, nullptr) << operation.name << " slot " << slot.name;
        // A Count slot (a digit width) takes its default when omitted, or must be given (bins).
        EXPECT_TRUE(option->type == OptionType::Bool || option->type == OptionType::Choice ||
                    (option->type == OptionType::Count && (!option->default_choice.empty() || option->required)))
            << slot.name;
        EXPECT_FALSE(option->allow_runtime) << slot.name;
      }
    }
  }
}

// Named dtypes and extents come from the arrays passed for a call's parameters, or from a static
// option that fills one (a histogram's counter_dtype), so only those declare them; a fresh result,
// which the front end allocates, uses a dtype or extent they declare, or an extent the plan derives
// (a batched reduction's results per lane); a template slot reads only a name one of them declares.
TEST(Catalog, NamedFactsAreDeclaredByTheArraysAFrontEndReads) {
  for (const auto& operation : catalog()) {
    std::set<std::string> dtypes, extents;
    const auto declare = [&](const ArrayType& array) {
      if (!array.element.empty()) dtypes.insert(array.element);
      if (!array.extent.empty()) extents.insert(array.extent);
    };
    for (const auto& operand : operation.operands) {
      const bool named = !operand.array.element.empty() || !operand.array.extent.empty();
      EXPECT_TRUE(!named || is_payload(operand.role)) << operation.name << ": " << operand.name;
      if (operand.role != OperandRole::PayloadResult) declare(operand.array);
    }
    for (const auto& option : operation.options) {
      const bool named = !option.array.element.empty() || !option.array.extent.empty();
      EXPECT_TRUE(!named || option.type == OptionType::PayloadArray || option.type == OptionType::DestinationArray)
          << operation.name << ": " << option.name;
      declare(option.array);
      if (option.fills_fact.empty()) continue;
      EXPECT_TRUE(option.type == OptionType::Count || option.type == OptionType::Choice) << option.name;
      (option.type == OptionType::Count ? extents : dtypes).insert(option.fills_fact);
    }
    for (const auto& operand : operation.operands) {
      if (operand.role != OperandRole::PayloadResult) continue;
      const bool derived = operand.array.rule == ExtentRule::BatchesPerLane;
      if (derived) extents.insert(operand.array.extent);
      EXPECT_TRUE(operand.array.extent.empty() || extents.contains(operand.array.extent))
          << operation.name << ": " << operand.name;
      EXPECT_TRUE(operand.array.element.empty() || dtypes.contains(operand.array.element))
          << operation.name << ": " << operand.name;
    }
    for (const auto& form : operation.forms) {
      for (const auto& slot : form.template_args) {
        if (slot.from == TemplateArg::NamedDType) EXPECT_TRUE(dtypes.contains(slot.fact)) << slot.name;
        if (slot.from == TemplateArg::NamedExtent) EXPECT_TRUE(extents.contains(slot.fact)) << slot.name;
      }
    }
  }
}

}  // namespace
}  // namespace coop
