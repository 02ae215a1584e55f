// Parses PyTorch DTensor placements as torch prints and users write them:
//
//   [Shard(0), Replicate()]   (Shard(dim=0), Replicate())   Shard(dim=1)
//   Partial()  Partial(sum)  Partial('avg')  Partial(reduce_op='max')
//   _StridedShard(dim=0, sf=2)  _StridedShard(0, split_factor=2)
//   str() forms: [S(0), R]  P(sum)  _S(0, 2)
//   and a DTensor / DTensorSpec repr holding placements=(...) and
//   device_mesh=DeviceMesh(...) (or mesh=...).
#ifndef MEMPLAN_PARSERS_DTENSOR_PARSER_H_
#define MEMPLAN_PARSERS_DTENSOR_PARSER_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/dtensor.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct ParsedPlacements {
  std::vector<ir::Placement> placements;
  std::vector<size_t> offsets;     // where each placement starts in the source
  std::optional<ParsedMesh> mesh;  // from device_mesh= in a DTensor repr
};

// Errors name "name:line:column".
absl::StatusOr<ParsedPlacements> ParseDTensorPlacements(const SourceText& source);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_DTENSOR_PARSER_H_
