// XLA's OpSharding protobuf (parsers/proto/op_sharding.proto) to and from
// ir::HloSharding, and the Python bytes literals in which Alpa and jaxlib
// users hold serialized OpShardings:
//   b'\x08\x03\x1a\x02\x02\x01"\x02\x00\x01'  is  {devices=[2,1]0,1}
// (seed 003). An empty message is {replicated}, as in XLA.
#ifndef MEMPLAN_PARSERS_OP_SHARDING_H_
#define MEMPLAN_PARSERS_OP_SHARDING_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/sharding.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Decodes serialized OpSharding bytes into the sharding they state, field for
// field (ir::CanonicalHloSharding gives what XLA's FromProto makes of it).
// Metadata is kept as XLA prints it (op_type="..." op_name="..." ...).
// InvalidArgument when the bytes are not an OpSharding or state an
// impossible one (an unknown type, a maximal sharding without exactly one
// device, devices that do not fill the tile dims, both a device list and an
// iota, a tuple nested in a tuple element, more than 2^20 devices).
absl::StatusOr<ir::HloSharding> OpShardingFromBytes(std::string_view bytes);

// Serializes `sharding` as XLA's HloSharding::ToProto does (field for field,
// in field-number order, so that the bytes equal jaxlib's for the same
// sharding). Metadata strings are parsed back into op_type, op_name,
// source_file, source_line and stack_frame_id; other keys are dropped.
// InvalidArgument for a sharding that has no OpSharding (a tile assignment
// that does not expand).
absl::StatusOr<std::string> OpShardingToBytes(const ir::HloSharding& sharding);

// The bytes of a Python bytes literal, b'...' or b"..." (as repr() prints
// them: \xHH, \\, \', \", \t, \n, \r, \0 and the other Python escapes), or of
// a string of hex digit pairs. Errors name "name:line:column".
absl::StatusOr<std::string> ParsePythonBytesLiteral(const SourceText& source);

// The literal as Python's repr() writes these bytes: b'\x08\x03...'.
std::string PythonBytesRepr(std::string_view bytes);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_OP_SHARDING_H_
