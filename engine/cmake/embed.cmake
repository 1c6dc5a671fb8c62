# Writes OUTPUT, a C++ file defining one `extern const char* const coop::adapters::<stem>`
# per file in INPUTS (a |-separated list) holding that file's text: device C++ adapters live in
# .cuh files that clang-format and nvcc check, and reach generated sources through these.
string(REPLACE "|" ";" INPUTS "${INPUTS}")
set(text "// Generated from engine/src/adapters/*.cuh by engine/cmake/embed.cmake; do not edit.\n")
string(APPEND text "namespace coop::adapters {\n")
foreach(input IN LISTS INPUTS)
  get_filename_component(stem "${input}" NAME_WE)
  file(READ "${input}" content)
  string(APPEND text "extern const char* const ${stem};\nconst char* const ${stem} = R\"coop_embed(${content})coop_embed\";\n")
endforeach()
string(APPEND text "}  // namespace coop::adapters\n")
file(WRITE "${OUTPUT}" "${text}")
