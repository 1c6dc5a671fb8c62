// Shared by the binding files of cuda.coop._engine: one function per concept,
// called in dependency order from module.cpp, and the enum spellings Python sees.
#pragma once

#include <nanobind/nanobind.h>

#include "coop/engine.hpp"

namespace coop::python {

namespace nb = nanobind;

void bind_call_facts(nb::module_& module);
void bind_plan(nb::module_& module);
void bind_bundle(nb::module_& module);
void bind_engine(nb::module_& module);
void bind_catalog(nb::module_& module);

// Lower-case identifiers rather than the engine's display text ("block (__syncthreads)"),
// so the Python layer can compare them.
const char* barrier_name(Barrier barrier);

}  // namespace coop::python
