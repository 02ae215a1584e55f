// Parses XLA's HloSharding text (what HLO text prints after "sharding=" and
// what xla_client.HloSharding.from_string reads), every form listed in
// ir/sharding.h: replicated, manual, unknown, unreduced, maximal, tiled with
// an explicit or iota device list, last_tile_dim_replicate, last_tile_dims,
// shard_as/shard_like, metadata, tuples (with /*index=N*/ comments) and the
// named-mesh form ({mesh['x'=2], [{'x'}]}, {maximal_mesh[device_id=3]};
// axis names quoted or bare).
//
// The sharding is returned as written; ir::CanonicalHloSharding gives what
// XLA makes of it.
#ifndef MEMPLAN_PARSERS_HLO_SHARDING_PARSER_H_
#define MEMPLAN_PARSERS_HLO_SHARDING_PARSER_H_

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/sharding.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Parses one sharding that starts at the beginning of `text` (leading
// spaces and newlines allowed) and ends at its closing '}'; what follows it
// is not read. On success `*consumed` is the number of bytes up to and
// including that '}'. On failure the status is InvalidArgument with the
// message "expected ..." (no location) and `*consumed` is the byte offset in
// `text` where the text stopped matching, for the caller to locate
// (SourceText::ErrorAt(text.data() + *consumed, message)).
// For HLO text parsers: pass the text from the '{' after "sharding=".
absl::StatusOr<ir::HloSharding> ParseHloSharding(std::string_view text, size_t* consumed);

// The whole of `source` as one sharding (spaces and newlines around it
// allowed, and an optional leading "sharding="). Errors name
// "name:line:column".
absl::StatusOr<ir::HloSharding> ParseHloShardingText(const SourceText& source);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_SHARDING_PARSER_H_
