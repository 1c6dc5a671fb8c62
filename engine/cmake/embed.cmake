# Writes OUTPUT, a C++ file defining coop::adapters::source(stem): for each file in INPUTS (a
# |-separated list), that file's text under its stem. Device C++ adapters live in .cuh files that
# clang-format and nvcc check, and reach generated sources through this table; a family's
# catalog file names its adapter by stem, so adding one is adding its file.
string(REPLACE "|" ";" INPUTS "${INPUTS}")
list(SORT INPUTS)
set(text "// Generated from engine/src/adapters/*.cuh by engine/cmake/embed.cmake; do not edit.\n")
string(APPEND text "#include <stdexcept>\n#include <string>\n#include <string_view>\n\n#include \"adapters/adapters.hpp\"\n\n")
string(APPEND text "namespace coop::adapters {\nnamespace {\n\nstruct Embedded {\n  std::string_view stem;\n  const char* text;\n};\n\n")
string(APPEND text "constexpr Embedded kEmbedded[] = {\n")
foreach(input IN LISTS INPUTS)
  get_filename_component(stem "${input}" NAME_WE)
  file(READ "${input}" content)
  string(APPEND text "    {\"${stem}\", R\"coop_embed(${content})coop_embed\"},\n")
endforeach()
string(APPEND text "};\n\n}  // namespace\n\nconst char* source(std::string_view stem) {\n")
string(APPEND text "  for (const Embedded& embedded : kEmbedded) {\n    if (embedded.stem == stem) return embedded.text;\n  }\n")
string(APPEND text "  throw std::logic_error(\"no adapter engine/src/adapters/\" + std::string(stem) + \".cuh was embedded\");\n}\n\n")
string(APPEND text "}  // namespace coop::adapters\n")
file(WRITE "${OUTPUT}" "${text}")
