// One function per primitive family, each defined in its own file beside this one.
#pragma once

#include <vector>

#include "coop/catalog.hpp"

namespace coop::catalog_families {

std::vector<OperationSpec> load_store();

}  // namespace coop::catalog_families
