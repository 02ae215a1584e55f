// gzip'd inputs (profiler traces are written as *.json.gz): detection and
// decompression with zlib.
#ifndef MEMPLAN_PARSERS_GZIP_TEXT_H_
#define MEMPLAN_PARSERS_GZIP_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace memplan::parsers {

// True when `data` starts with the gzip magic bytes 1f 8b.
bool LooksGzipped(std::string_view data);

// Decompresses every gzip member of `data` (concatenated members are one
// stream, as gunzip treats them). InvalidArgument naming `name` and the
// compressed byte offset when the data is corrupt or truncated, or when the
// output would exceed `max_output` bytes.
absl::StatusOr<std::string> Gunzip(std::string_view data, std::string_view name,
                                   size_t max_output = size_t{16} << 30);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_GZIP_TEXT_H_
