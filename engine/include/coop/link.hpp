// link: nvJitLink from LTO-IR (and other device code) to a cubin, no GPU needed.
#pragma once

#include <string>
#include <vector>

#include "coop/toolkit.hpp"

namespace coop {

enum class LinkInputKind { LtoIr, Cubin, Ptx, Fatbin, Object };

struct LinkInput {
  LinkInputKind kind;
  std::vector<char> bytes;
  std::string name;  // for messages
};

struct LinkResult {
  std::vector<char> cubin;
  std::string log;
  double seconds = 0;
};

// Throws coop::Error(Link) with nvJitLink's error log.
LinkResult link(const Toolkit& toolkit, const std::vector<LinkInput>& inputs, const std::string& arch);

}  // namespace coop
