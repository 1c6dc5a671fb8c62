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

// Throws coop::Error(Link) with nvJitLink's error log, and coop::Error(InvalidArgument) naming `call`
// for an input nvJitLink would drop or refuse without saying why: an executable cubin, a cubin for
// another arch. PTX needs no terminating NUL.
LinkResult link(const Toolkit& toolkit, const std::vector<LinkInput>& inputs, const std::string& arch,
                const std::string& call = "link");

}  // namespace coop
