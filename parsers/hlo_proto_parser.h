// Parses an XLA HloProto (`*.hlo.pb`, written with --xla_dump_hlo_as_proto
// after optimizations) into a Program: the module's instructions give names,
// shapes and metadata (stack frames resolved); buffer_assignment gives the
// logical buffers, allocations and heap-simulator traces.
//
// The proto carries no HloLiveRange, so the Program has no live ranges; the
// heap-simulator traces stand in for liveness inside each temp allocation.
#ifndef MEMPLAN_PARSERS_HLO_PROTO_PARSER_H_
#define MEMPLAN_PARSERS_HLO_PROTO_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/program.h"
#include "parsers/hlo_primitive_type.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// `files` holds one file: the serialized HloProto.
absl::StatusOr<ir::Program> ParseHloProto(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program);

// True if the file looks like a binary HloProto (by name, or by content that
// is not text and starts with field 1 as a length-delimited message).
bool LooksLikeHloProto(std::string_view head, std::string_view file_name);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_PROTO_PARSER_H_
