#include "parsers/hlo_sharding_parser.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/strings.h"
#include "parsers/hlo_sharding_reader.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers {
namespace hlo_sharding_text {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

bool Reader::ParseTop(HloSharding* out) {
  SkipSpace();
  if (!Expect('{', "expected '{' to start a sharding")) return false;
  SkipSpace();
  if (Peek() == '{' || Peek() == '}') return ParseTuple(out);
  return ParseSingleBody(out);
}

void Reader::SkipSpace() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (StartsWith("/*")) {
      // Comments such as /*index=5*/ between tuple elements.
      const size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) return;
      pos_ = end + 2;
    } else {
      return;
    }
  }
}

bool Reader::Fail(std::string_view message) {
  if (error_.empty()) {
    error_ = std::string(message);
    error_pos_ = pos_;
  }
  return false;
}

bool Reader::Expect(char c, std::string_view message) {
  if (Peek() != c) return Fail(message);
  ++pos_;
  return true;
}

bool Reader::ConsumeWord(std::string_view word) {
  if (!StartsWith(word)) return false;
  const size_t end = pos_ + word.size();
  if (end < text_.size() && IsIdentChar(text_[end]) && word.back() != '=') return false;
  pos_ = end;
  return true;
}

// "[1,2,3]" (possibly empty when `allow_empty`).
bool Reader::ParseIntList(char open, char close, std::vector<int64_t>* out, std::string_view what,
                          bool allow_empty, size_t max_entries) {
  if (!Expect(open, StrCat("expected '", std::string(1, open), "' to start ", what))) return false;
  SkipSpace();
  if (Peek() == close && allow_empty) {
    ++pos_;
    return true;
  }
  while (true) {
    SkipSpace();
    int64_t v;
    if (!ParseNonNegative(&v, what)) return false;
    if (out->size() >= max_entries) return Fail(StrCat("expected at most ", max_entries, " entries"));
    out->push_back(v);
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect(close, StrCat("expected ',' or '", std::string(1, close), "' in ", what));
  }
}

bool Reader::ParseInt(int64_t* out, std::string_view what) {
  size_t n = pos_;
  const bool negative = n < text_.size() && text_[n] == '-';
  if (negative) ++n;
  const size_t digits = n;
  uint64_t value = 0;
  while (n < text_.size() && text_[n] >= '0' && text_[n] <= '9') {
    const uint64_t digit = static_cast<uint64_t>(text_[n] - '0');
    if (value > (kMaxShardingInt - digit) / 10) return Fail(StrCat("expected ", what, " below 2^40"));
    value = value * 10 + digit;
    ++n;
  }
  if (n == digits) return Fail(StrCat("expected ", what));
  pos_ = n;
  *out = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
  return true;
}

bool Reader::ParseNonNegative(int64_t* out, std::string_view what) {
  const size_t start = pos_;
  if (!ParseInt(out, what)) return false;
  if (*out < 0) {
    pos_ = start;
    return Fail(StrCat("expected ", what, " (not negative)"));
  }
  return true;
}

bool Reader::CheckDeviceCount(const std::vector<int64_t>& dims, size_t at) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 1) {
      pos_ = at;
      return Fail("expected dimensions of at least 1");
    }
    if (product > kMaxShardingDevices / d) {
      pos_ = at;
      return Fail(StrCat("expected at most ", kMaxShardingDevices, " devices in the tile assignment"));
    }
    product *= d;
  }
  return true;
}

// After "devices=": "[2,2]0,1,2,3" or "[2,2]<=[4]" or "[2,2]<=[2,2]T(1,0)".
bool Reader::ParseTileAssignment(ir::TileAssignment* out) {
  const size_t dims_at = pos_;
  if (!ParseIntList('[', ']', &out->dims, "tile assignment dimensions")) return false;
  if (!CheckDeviceCount(out->dims, dims_at)) return false;
  SkipSpace();
  if (StartsWith("<=")) {
    pos_ += 2;
    SkipSpace();
    ir::IotaDevices iota;
    iota.dims = out->dims;
    const size_t reshape_at = pos_;
    if (!ParseIntList('[', ']', &iota.reshape_dims, "iota reshape dimensions")) return false;
    if (!CheckDeviceCount(iota.reshape_dims, reshape_at)) return false;
    SkipSpace();
    if (Peek() == 'T') {
      ++pos_;
      if (!ParseIntList('(', ')', &iota.transpose_perm, "iota transpose permutation")) return false;
    }
    if (absl::StatusOr<std::vector<int64_t>> expanded = iota.Expand(); !expanded.ok()) {
      pos_ = reshape_at;
      return Fail(StrCat("expected an iota device list that fits the tile dimensions: ",
                         expanded.status().message()));
    }
    out->iota = std::move(iota);
    return true;
  }
  while (true) {
    SkipSpace();
    int64_t device;
    if (!ParseNonNegative(&device, "a device number")) return false;
    if (out->devices.size() >= kMaxShardingDevices) return Fail("expected fewer devices");
    out->devices.push_back(device);
    SkipSpace();
    // A comma continues the list only when a number follows (a tuple's
    // elements are separated by commas too, but we are inside braces).
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    break;
  }
  if (static_cast<int64_t>(out->devices.size()) != out->device_count()) {
    return Fail(StrCat("expected ", out->device_count(), " devices for tile dimensions, found ",
                       out->devices.size()));
  }
  return true;
}

// "{...}" with nested braces and quoted strings, kept as the text inside.
bool Reader::ParseBraced(std::string* inside) {
  const size_t open = pos_;
  if (!Expect('{', "expected '{'")) return false;
  int depth = 1;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
      if (pos_ >= text_.size()) break;
      ++pos_;
      continue;
    }
    ++pos_;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) {
      *inside = std::string(text_.substr(open + 1, pos_ - open - 2));
      return true;
    }
  }
  pos_ = open;
  return Fail("expected a closing '}' for this '{'");
}

// "metadata={op_name=...}" or "metadata={{...}, {...}}".
bool Reader::ParseMetadata(std::vector<std::string>* out) {
  SkipSpace();
  const size_t start = pos_;
  std::string inside;
  if (!ParseBraced(&inside)) return false;
  size_t i = 0;
  while (i < inside.size() && inside[i] == ' ') ++i;
  if (i < inside.size() && inside[i] == '{') {
    // A list of metadata: split the inner braces.
    Reader inner(inside);
    inner.pos_ = i;
    while (true) {
      inner.SkipSpace();
      std::string one;
      if (!inner.ParseBraced(&one)) {
        pos_ = start + 1 + inner.error_pos_;
        return Fail(inner.error_);
      }
      out->push_back(std::move(one));
      inner.SkipSpace();
      if (inner.Peek() == ',') {
        ++inner.pos_;
        continue;
      }
      if (inner.pos_ != inside.size()) {
        pos_ = start + 1 + inner.pos_;
        return Fail("expected ',' or '}' in the metadata list");
      }
      return true;
    }
  }
  out->push_back(std::move(inside));
  return true;
}

bool Reader::ParseSubgroupTypes(std::vector<OpShardingType>* out) {
  if (!Expect('{', "expected '{' after last_tile_dims=")) return false;
  while (true) {
    SkipSpace();
    if (ConsumeWord("replicated")) {
      out->push_back(OpShardingType::kReplicated);
    } else if (ConsumeWord("manual")) {
      out->push_back(OpShardingType::kManual);
    } else if (ConsumeWord("unreduced")) {
      out->push_back(OpShardingType::kUnreduced);
    } else if (ConsumeWord("maximal")) {
      out->push_back(OpShardingType::kMaximal);
    } else {
      return Fail("expected a subgroup type: replicated, manual, unreduced or maximal");
    }
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect('}', "expected ',' or '}' in last_tile_dims");
  }
}

bool Reader::ParseSingleBody(HloSharding* out) {
  SkipSpace();
  if (StartsWith("mesh") || StartsWith("maximal_mesh")) return ParseNamedBody(out);
  const size_t body_start = pos_;
  BodyWords words;
  while (true) {
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
      break;
    }
    if (pos_ >= text_.size()) return Fail("expected '}' to end the sharding");
    if (!ParseBodyWord(out, &words)) return false;
  }
  const size_t end = pos_;
  pos_ = body_start;  // what the words say together fails at the body's start
  if (!SetBodyKind(words, out)) return false;
  pos_ = end;
  return true;
}

bool Reader::ParseBodyWord(HloSharding* out, BodyWords* words) {
  if (ConsumeWord("replicated")) {
    words->replicated = true;
  } else if (ConsumeWord("manual")) {
    words->manual = true;
  } else if (ConsumeWord("unknown")) {
    words->unknown = true;
  } else if (ConsumeWord("unreduced")) {
    words->unreduced = true;
  } else if (ConsumeWord("maximal")) {
    words->maximal = true;
  } else if (ConsumeWord("last_tile_dim_replicate")) {
    out->replicate_on_last_tile_dim = true;
  } else if (ConsumeWord("device=")) {
    int64_t d;
    if (!ParseNonNegative(&d, "a device number after device=")) return false;
    words->device = d;
  } else if (ConsumeWord("devices=")) {
    if (words->has_tiles) return Fail("expected one devices= in a sharding");
    if (!ParseTileAssignment(&out->tiles)) return false;
    words->has_tiles = true;
  } else if (ConsumeWord("last_tile_dims=")) {
    if (!ParseSubgroupTypes(&out->last_tile_dims)) return false;
  } else if (StartsWith("shard_as") || StartsWith("shard_like")) {
    const bool as = ConsumeWord("shard_as");
    if (!as && !ConsumeWord("shard_like")) return Fail("expected shard_as or shard_like");
    SkipSpace();
    int64_t id;
    if (!ParseNonNegative(&id, "a shard group id")) return false;
    out->shard_group = HloSharding::ShardGroup{as, id};
  } else if (ConsumeWord("metadata=")) {
    if (!ParseMetadata(&out->metadata)) return false;
  } else {
    return Fail(
        "expected replicated, manual, unknown, unreduced, maximal, device=, devices=, "
        "last_tile_dim_replicate, last_tile_dims=, shard_as, shard_like, metadata= or '}'");
  }
  return true;
}

bool Reader::SetBodyKind(const BodyWords& words, HloSharding* out) {
  const int kinds = words.replicated + words.manual + words.unknown + words.unreduced +
                    (words.maximal || words.device.has_value()) + words.has_tiles;
  if (kinds > 1) return Fail("expected only one of replicated, manual, unknown, unreduced, maximal, devices=");
  if (words.replicated) {
    out->kind = HloSharding::Kind::kReplicated;
  } else if (words.manual) {
    out->kind = HloSharding::Kind::kManual;
  } else if (words.unknown) {
    out->kind = HloSharding::Kind::kUnknown;
  } else if (words.unreduced) {
    out->kind = HloSharding::Kind::kUnreduced;
  } else if (words.maximal || words.device) {
    if (!words.maximal || !words.device) return Fail("expected 'maximal device=N'");
    out->kind = HloSharding::Kind::kMaximal;
    out->maximal_device = *words.device;
  } else if (words.has_tiles) {
    out->kind = HloSharding::Kind::kTiled;
    const size_t subgroups = out->last_tile_dims.size() + (out->replicate_on_last_tile_dim ? 1 : 0);
    if (subgroups > out->tiles.dims.size()) return Fail("expected fewer subgroup dims than tile dims");
    if (out->replicate_on_last_tile_dim && !out->last_tile_dims.empty()) {
      return Fail("expected last_tile_dim_replicate or last_tile_dims=, not both");
    }
  } else {
    return Fail("expected a sharding: replicated, manual, unknown, unreduced, maximal or devices=");
  }
  if (out->kind != HloSharding::Kind::kTiled &&
      (out->replicate_on_last_tile_dim || !out->last_tile_dims.empty())) {
    return Fail("expected subgroup dims only on a tiled sharding");
  }
  return true;
}

bool Reader::ParseTuple(HloSharding* out) {
  out->kind = HloSharding::Kind::kTuple;
  SkipSpace();
  if (Peek() == '}') {
    ++pos_;
    return true;
  }
  while (true) {
    SkipSpace();
    if (!Expect('{', "expected '{' to start a tuple element")) return false;
    if (out->tuple_elements.size() >= kMaxShardingListLength) return Fail("expected fewer tuple elements");
    HloSharding element;
    SkipSpace();
    if (Peek() == '{') return Fail("expected a single sharding in a tuple, not a nested tuple");
    if (!ParseSingleBody(&element)) return false;
    out->tuple_elements.push_back(std::move(element));
    SkipSpace();
    if (Peek() == ',') {
      ++pos_;
      continue;
    }
    return Expect('}', "expected ',' or '}' after a tuple element");
  }
}

}  // namespace hlo_sharding_text

using hlo_sharding_text::Reader;
using ir::HloSharding;

absl::StatusOr<ir::HloSharding> ParseHloSharding(std::string_view text, size_t* consumed) {
  Reader reader(text);
  HloSharding sharding;
  if (!reader.ParseTop(&sharding)) {
    *consumed = reader.error_pos();
    return absl::InvalidArgumentError(reader.error());
  }
  *consumed = reader.pos();
  return sharding;
}

absl::StatusOr<ir::HloSharding> ParseHloShardingText(const SourceText& source) {
  std::string_view text = source.text();
  size_t start = 0;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' ||
                                 text[start] == '\r')) {
    ++start;
  }
  if (text.substr(start, 9) == "sharding=") start += 9;
  size_t consumed = 0;
  absl::StatusOr<HloSharding> sharding = ParseHloSharding(text.substr(start), &consumed);
  if (!sharding.ok()) return source.ErrorAt(text.data() + start + consumed, FromAbsl(sharding.status().message()));
  size_t end = start + consumed;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t' || text[end] == '\n' || text[end] == '\r')) {
    ++end;
  }
  if (end != text.size()) return source.ErrorAt(text.data() + end, "expected the end of the sharding");
  return sharding;
}

}  // namespace memplan::parsers
