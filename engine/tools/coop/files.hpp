// files: the coop command's input and output files. A bad path is one argument
// error naming it (exit 2), never an exception from a stream, an abort, or an
// output silently skipped or overwritten.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coop::cli {

// The largest input read: device code for one link is megabytes, a fatbin of every arch of a
// large library hundreds of them; 2 GiB in memory is as much as a link should ask of a machine.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{2} << 30;

// The whole of a readable, non-empty regular file of at most kMaxInputBytes (a directory or
// /dev/zero is not one).
std::vector<char> read_input(const std::string& path, const std::string& command, const std::string& argument);

// Checked before any work, so a typo costs no compile: not empty, not a directory,
// in a directory that exists. Devices (/dev/null) are outputs like any file.
void check_output(const std::string& path, const std::string& command, const std::string& argument);

// Whether two paths name one file, whether or not it exists yet.
bool same_file(const std::string& first, const std::string& second);

// Writes `bytes` and closes the file, checking each step: a full disk shows only
// when the buffer is flushed or the file closed.
void write_output(const std::string& path, std::string_view bytes, const std::string& command,
                  const std::string& argument);

}  // namespace coop::cli
