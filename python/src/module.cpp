// cuda.coop._engine: the engine's value types and pipeline for the Python layer.
// coop::Error becomes EngineError, whose `kind` the Python layer maps to its
// public error classes; so does any other C++ exception (kind "Internal"), so no
// engine call raises a bare RuntimeError.
#include <nanobind/stl/string.h>

#include <exception>
#include <new>
#include <string>

#include "bindings.hpp"

namespace coop::python {
namespace {

// The enumerator's own name: the engine's to_string adds an "Error" suffix meant for the CLI.
const char* kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidGroup:
      return "InvalidGroup";
    case ErrorKind::UnsupportedOperation:
      return "UnsupportedOperation";
    case ErrorKind::InvalidArgument:
      return "InvalidArgument";
    case ErrorKind::ProviderCompile:
      return "ProviderCompile";
    case ErrorKind::Toolkit:
      return "Toolkit";
    case ErrorKind::Link:
      return "Link";
    case ErrorKind::Cache:
      return "Cache";
  }
  return "Unknown";
}

void bind_errors(nb::module_& module) {
  const std::string name = nb::cast<std::string>(module.attr("__name__")) + ".EngineError";
  nb::object type = nb::steal(PyErr_NewExceptionWithDoc(
      name.c_str(),
      "A failure reported by the engine. `kind` names the coop::ErrorKind (\"InvalidGroup\", "
      "\"UnsupportedOperation\", \"InvalidArgument\", \"ProviderCompile\", \"Toolkit\", \"Link\", \"Cache\", or "
      "\"Internal\" for a C++ fault the engine did not expect: a bug to report); the message names the call, the "
      "argument, the value and what is allowed.",
      PyExc_Exception, nullptr));
  if (!type.is_valid()) throw nb::python_error();
  module.attr("EngineError") = type;
  // The module keeps the type alive for as long as the translator can run.
  nb::register_exception_translator(
      [](const std::exception_ptr& pointer, void* payload) {
        const auto raise = [payload](const std::string& message, const char* kind) {
          nb::handle error_type(static_cast<PyObject*>(payload));
          nb::object instance = error_type(message);
          instance.attr("kind") = kind;
          PyErr_SetObject(error_type.ptr(), instance.ptr());
        };
        try {
          std::rethrow_exception(pointer);
        } catch (const Error& error) {
          raise(error.what(), kind_name(error.kind()));
        } catch (const nb::python_error&) {
          throw;  // a Python exception on its way back: nanobind restores it
        } catch (const nb::builtin_exception&) {
          throw;  // nanobind's own TypeError, IndexError, ... for the caller's arguments
        } catch (const std::bad_alloc&) {
          throw;  // MemoryError: the machine's state, not the engine's fault
        } catch (const std::exception& error) {
          raise(std::string("internal error in the cuda.coop engine (please report it): ") + error.what(), "Internal");
        }
      },
      type.ptr());
}

// Engine warnings become Python warnings (CoopWarning), so users filter, log or
// raise them the way they do every other warning.
void route_warnings_to_python() {
  set_warning_sink([](const std::string& text) {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire gil;
    try {
      nb::object category = nb::module_::import_("cuda.coop._core.errors").attr("CoopWarning");
      nb::module_::import_("warnings").attr("warn")(text, category, 2);
    } catch (nb::python_error& error) {
      error.restore();  // -W error turned it into an exception: report it, never lose it
      PyErr_WriteUnraisable(nullptr);
    }
  });
}

}  // namespace
}  // namespace coop::python

NB_MODULE(_engine, module) {
  using namespace coop::python;
  module.doc() = "The cuda.coop engine: plan CUB calls, generate and compile their providers, link.";
  // Plans and bundles stay referenced from the kernel compiler's caches until the
  // interpreter is torn down; that is ownership, not a leak.
  nb::set_leak_warnings(false);
  bind_errors(module);
  route_warnings_to_python();
  bind_call_facts(module);
  bind_plan(module);
  bind_bundle(module);
  bind_engine(module);
  bind_catalog(module);
  module.def("engine_version", &coop::engine_version, "The engine version baked into cache keys.");
}
