#include "parsers/gzip_text.h"

#include <zlib.h>

#include <algorithm>

#include "ir/strings.h"

namespace memplan::parsers {

bool LooksGzipped(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

absl::StatusOr<std::string> Gunzip(std::string_view data, std::string_view name,
                                   size_t max_output) {
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer, not a raw zlib stream.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    return absl::InternalError(StrCat(name, ": cannot initialize zlib"));
  }
  std::string out;
  const unsigned char* next = reinterpret_cast<const unsigned char*>(data.data());
  size_t left = data.size();
  char buffer[1 << 16];
  int rc = Z_OK;
  auto error = [&](std::string_view what) {
    const size_t consumed = data.size() - left - stream.avail_in;
    std::string message = StrCat(name, ": byte ", consumed, ": error: ", what);
    inflateEnd(&stream);
    return absl::InvalidArgumentError(message);
  };
  while (true) {
    if (stream.avail_in == 0 && left > 0) {
      const size_t chunk = std::min<size_t>(left, 1u << 30);
      stream.next_in = const_cast<unsigned char*>(next);
      stream.avail_in = static_cast<uInt>(chunk);
      next += chunk;
      left -= chunk;
    }
    stream.next_out = reinterpret_cast<unsigned char*>(buffer);
    stream.avail_out = sizeof(buffer);
    rc = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = sizeof(buffer) - stream.avail_out;
    if (out.size() + produced > max_output) {
      return error(StrCat("expected at most ", max_output, " bytes once decompressed"));
    }
    out.append(buffer, produced);
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow; anything else ends the input.
      if (stream.avail_in == 0 && left == 0) break;
      const unsigned char* rest = stream.next_in;
      if (stream.avail_in >= 2 && rest[0] == 0x1f && rest[1] == 0x8b) {
        inflateReset(&stream);
        continue;
      }
      return error("expected another gzip member or the end of the file after the stream");
    }
    if (rc == Z_BUF_ERROR && stream.avail_in == 0 && left == 0) {
      return error("expected more compressed data: the gzip stream is truncated");
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return error(StrCat("expected a valid gzip stream (zlib: ",
                          stream.msg != nullptr ? stream.msg : "corrupt data", ")"));
    }
  }
  inflateEnd(&stream);
  return out;
}

}  // namespace memplan::parsers
