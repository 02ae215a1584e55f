// Parses the ways JAX users hold a mesh and a sharding, as JAX prints them
// (old and new reprs) and as they write them:
//
//   meshes:  x=4,y=1                          (memplan's own short form)
//            Mesh('x': 4, 'y': 1)             Mesh('x': 4, 'y': 1, axis_types=(Auto, Auto))
//            Mesh(axis_sizes=(4, 1), axis_names=('x', 'y'), axis_types=(Explicit, Auto))
//            Mesh(device_ids=array([[0], [1], [2], [3]]), axis_names=('x', 'y'))
//            AbstractMesh('x': 4, 'y': 2, axis_types=(Auto, Auto), device_kind=cpu, ...)
//            {'x': 4, 'y': 1}                 OrderedDict([('x', 4), ('y', 1)])
//            DeviceMesh((dp=2, tp=4), 'cpu', stride=(4, 1))   (PyTorch)
//            DeviceMesh('cuda', [[0, 1], [2, 3]], mesh_dim_names=('dp', 'tp'))
//   specs:   PartitionSpec('x', None)  P('x', None)  P(('x', 'y'), None)
//            P(None, UNCONSTRAINED)  P('x', unreduced={'y'})  ('x', None)
//   shardings: NamedSharding(mesh=Mesh(..), spec=P(..), memory_kind=device)
//            ShapeDtypeStruct(shape=(20, 16), dtype=float32, sharding=NamedSharding(..))
#ifndef MEMPLAN_PARSERS_JAX_SHARDING_PARSER_H_
#define MEMPLAN_PARSERS_JAX_SHARDING_PARSER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/partition_spec.h"
#include "ir/shape.h"
#include "parsers/python_repr.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

struct ParsedMesh {
  ir::Mesh mesh;
  std::vector<ir::AxisType> axis_types;  // empty when the text names none
};

// Any mesh form above. The mesh is validated (distinct names, sizes >= 1,
// at most 2^20 devices); errors name "name:line:column".
absl::StatusOr<ParsedMesh> ParseMeshText(const SourceText& source);

// The same, reading a mesh at `reader`'s position (for reprs that hold a
// mesh, such as a DTensor's device_mesh=); the mesh is not yet validated.
absl::Status ParseMeshTokens(PyReader& reader, ParsedMesh* out);

// A device order: "0,2,1,3", "[0, 2, 1, 3]", "(0, 2, 1, 3)", a nested
// list / numpy array (flattened row-major), or XLA's iota form
// "<=[4,2]T(1,0)" (0,2,4,6,1,3,5,7).
absl::StatusOr<std::vector<int64_t>> ParseDeviceList(const SourceText& source);

struct ParsedJaxSharding {
  std::optional<ParsedMesh> mesh;  // from NamedSharding(mesh=...)
  ir::PartitionSpec spec;
  std::string memory_kind;
  std::vector<int64_t> logical_device_ids;
  std::optional<ir::Shape> shape;  // from ShapeDtypeStruct(shape=, dtype=)
  // Where each axis name of the spec stands (offsets into the source), for
  // located errors: per spec entry, per axis; then the unreduced set.
  std::vector<std::vector<size_t>> axis_offsets;
  std::vector<size_t> unreduced_offsets;
  size_t end_offset = 0;  // of the spec's closing parenthesis
};

// A PartitionSpec, NamedSharding or ShapeDtypeStruct repr (above).
absl::StatusOr<ParsedJaxSharding> ParseJaxShardingText(const SourceText& source);

// Checks the parsed spec against `mesh` and the array's `rank`, as
// ir::ValidatePartitionSpec does, with errors located at the offending axis
// name in `source` (the text the spec was parsed from): an axis not in the
// mesh, an axis used twice, more entries than dimensions.
absl::Status CheckPartitionSpec(const SourceText& source, const ParsedJaxSharding& parsed,
                                const ir::Mesh& mesh, int64_t rank);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_JAX_SHARDING_PARSER_H_
