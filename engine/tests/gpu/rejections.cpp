#include "rejections.hpp"

#include <iostream>
#include <map>

#include "coop/engine.hpp"

namespace coop::gpu_test {

RejectionResult check_rejections() {
  struct Case {
    std::string name;
    CallFacts facts;
    ErrorKind expected;
  };
  auto facts = [](Group group, const std::string& algorithm, std::map<std::string, OptionBinding> options = {}) {
    CallFacts result;
    result.operation = "load";
    result.group = group;
    result.dtype = DType::Int32;
    result.items_per_thread = 2;
    result.options = std::move(options);
    result.options["algorithm"] = OptionBinding::fixed(algorithm);
    return result;
  };
  const std::vector<Case> cases = {
      {"block warp_transpose in block(48,1,1)", facts(Group::this_block({48, 1, 1}), "warp_transpose"),
       ErrorKind::InvalidGroup},
      {"block warp_transpose_timesliced in block(48,1,1)",
       facts(Group::this_block({48, 1, 1}), "warp_transpose_timesliced"), ErrorKind::InvalidGroup},
      {"warp(16) in block(48,1,1)", facts(Group::this_warp({48, 1, 1}, 16), "direct"), ErrorKind::InvalidGroup},
      {"STATIC valid_items = tile + 1",
       facts(Group::this_block({128, 1, 1}), "direct", {{"valid_items", OptionBinding::fixed("257")}}),
       ErrorKind::InvalidArgument},
  };
  int ok = 0;
  for (const Case& item : cases) {
    try {
      coop::plan(item.facts);
      std::cout << "  FAIL engine accepted " << item.name << "\n";
    } catch (const Error& error) {
      if (error.kind() == item.expected) {
        ++ok;
      } else {
        std::cout << "  FAIL " << item.name << ": rejected as " << to_string(error.kind()) << ", expected "
                  << to_string(item.expected) << ": " << error.what() << "\n";
      }
    }
  }
  std::cout << (ok == static_cast<int>(cases.size()) ? "[ok]   " : "[FAIL] ") << "engine rejections: " << ok << "/"
            << cases.size() << " as expected" << std::endl;
  return {ok, static_cast<int>(cases.size()) - ok};
}

}  // namespace coop::gpu_test
