# Writes OUTPUT, the one list of catalog families: for each file src/catalog/families/<stem>.cpp
# in INPUTS (a |-separated list), a declaration of the function it defines,
# `std::vector<coop::OperationSpec> coop::catalog_families::<stem>()`, and its entry in
# coop::catalog_families::all(). Adding a family is adding its file; nothing else names it.
string(REPLACE "|" ";" INPUTS "${INPUTS}")
list(SORT INPUTS)
set(text "// Generated from engine/src/catalog/families/*.cpp by engine/cmake/families.cmake; do not edit.\n")
string(APPEND text "#include \"catalog/family.hpp\"\n\nnamespace coop::catalog_families {\n\n")
set(entries "")
foreach(input IN LISTS INPUTS)
  get_filename_component(stem "${input}" NAME_WE)
  string(APPEND text "std::vector<OperationSpec> ${stem}();\n")
  string(APPEND entries "      {\"${stem}\", &${stem}},\n")
endforeach()
string(APPEND text "\nconst std::vector<Family>& all() {\n  static const std::vector<Family> families = {\n${entries}  };\n")
string(APPEND text "  return families;\n}\n\n}  // namespace coop::catalog_families\n")
file(WRITE "${OUTPUT}" "${text}")
