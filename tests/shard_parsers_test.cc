// The sharding parsers on inputs written by hand: the forms the truth files
// do not hold (old reprs from seed 001, DeviceMesh, DTensor reprs, metadata,
// comments), the interface the HLO module parser uses, and located errors.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/dtensor.h"
#include "ir/partition_spec.h"
#include "ir/sharding.h"
#include "parsers/dtensor_parser.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/op_sharding.h"
#include "parsers/source_text.h"

namespace memplan {
namespace {

using parsers::SourceText;

std::string ErrorOf(const absl::Status& status) { return std::string(status.message()); }

// --- HloSharding text ------------------------------------------------------------

TEST(HloShardingParser, ReadsOneShardingInsideALargerText) {
  // What the HLO module parser hands over: the text after "sharding=".
  const std::string_view hlo = "{devices=[2,1]0,1}, metadata={op_name=\"x\"}";
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(hlo, &consumed);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(consumed, 18u);
  EXPECT_EQ(s->ToString(), "{devices=[2,1]0,1}");
  // An error reports the offset where the text stopped matching.
  const std::string_view bad = "{devices=[2,2]0,1,2}, next=1";
  absl::StatusOr<ir::HloSharding> e = parsers::ParseHloSharding(bad, &consumed);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(consumed, 19u);
  EXPECT_EQ(ErrorOf(e.status()), "expected 4 devices for tile dimensions, found 3");
}

TEST(HloShardingParser, TuplesWithIndexCommentsAndMetadata) {
  auto source = SourceText::FromString(
      "t", "{{replicated}, {maximal device=1}, {manual}, {unknown}, {devices=[2]0,1}, "
           "/*index=5*/{devices=[1,2]<=[2] metadata={op_name=\"jit(f)/dot{a}\" source_file=\"m.py\" "
           "source_line=7}}}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->kind, ir::HloSharding::Kind::kTuple);
  ASSERT_EQ(s->tuple_elements.size(), 6u);
  EXPECT_EQ(s->tuple_elements[5].metadata,
            std::vector<std::string>{"op_name=\"jit(f)/dot{a}\" source_file=\"m.py\" source_line=7"});
  // Printed back as XLA prints it, comment included.
  EXPECT_EQ(s->ToString(true), source->text());
}

TEST(HloShardingParser, ListOfMetadataAndShardGroups) {
  auto source = SourceText::FromString("t", "sharding={replicated shard_like 3 metadata={{op_name=\"a\"}, {op_name=\"b\"}}}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->metadata, (std::vector<std::string>{"op_name=\"a\"", "op_name=\"b\""}));
  ASSERT_TRUE(s->shard_group.has_value());
  EXPECT_FALSE(s->shard_group->shard_as);
  EXPECT_EQ(s->ToString(true), "{replicated shard_like 3 metadata={{op_name=\"a\"}, {op_name=\"b\"}}}");
  // Metadata survives the OpSharding round trip.
  absl::StatusOr<std::string> bytes = parsers::OpShardingToBytes(*s);
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<ir::HloSharding> back = parsers::OpShardingFromBytes(*bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ToString(true), s->ToString(true));
}

TEST(HloShardingParser, ErrorsNameLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{devices=[2,2]0,1,2}", "--sharding:1:20: error: expected 4 devices for tile dimensions, found 3"},
      {"{devices=[2,2]<=[3]}", "--sharding:1:17: error: expected an iota device list that fits the tile dimensions"},
      {"{maximal}", "--sharding:1:2: error: expected 'maximal device=N'"},
      {"{replicated", "--sharding:1:12: error: expected '}' to end the sharding"},
      {"{bogus}", "--sharding:1:2: error: expected replicated, manual"},
      {"{devices=[2]0,1 last_tile_dims={oops}}", "--sharding:1:33: error: expected a subgroup type"},
      {"{mesh['x'=2], [{'y'}]}", "--sharding:1:17: error: expected an axis of the mesh, not 'y'"},
      {"{{replicated}, {{manual}}}", "--sharding:1:17: error: expected a single sharding in a tuple"},
      {"{devices=[1048577,2]<=[2097154]}", "--sharding:1:10: error: expected at most 1048576 devices"},
      {"{replicated} extra", "--sharding:1:14: error: expected the end of the sharding"},
  };
  for (const auto& [text, expected] : cases) {
    auto source = SourceText::FromString("--sharding", text);
    absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_TRUE(ErrorOf(s.status()).starts_with(expected)) << ErrorOf(s.status());
  }
}

TEST(HloShardingParser, NamedMeshDeviceIdsArePositions) {
  // Found by fuzzing: XLA's Mesh takes a permutation of 0..N-1 only.
  auto source = SourceText::FromString("t", "{mesh['x'=2,'y'=2], device_ids=(5,2,1,3), [{'x'}, {'y'}]}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<ir::HloSharding> c = ir::CanonicalHloSharding(*s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ErrorOf(c.status()), "expected the mesh's device_ids to be a permutation of 0..3");
}

TEST(HloShardingParser, FuzzFoundEdgesOfTheNormalForm) {
  // A named sharding that tiles nothing on a one-device mesh is replicated.
  auto one = SourceText::FromString("t", "{mesh['x'=1,'y'=1], []}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*one);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(ir::CanonicalHloSharding(*s)->ToString(), "{replicated}");
  // last_tile_dims may only hold subgroup types (here TUPLE, TUPLE).
  absl::StatusOr<ir::HloSharding> bytes = parsers::OpShardingFromBytes(
      std::string("\x08\x03\x1a\x04\x01\x01\x02\x02\x42\x02\x02\x02\x4a\x02\x02\x02\x52\x02\x01\x00", 20));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<ir::HloSharding> c = ir::CanonicalHloSharding(*bytes);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ErrorOf(c.status()), "OpSharding type 2 is not a subgroup type (replicated, manual, unreduced, maximal)");
}

TEST(HloShardingParser, FuzzFoundRoundTrips) {
  // One metadata whose text starts with '{' prints as a list of one, so that
  // it reads back as itself.
  auto braced = SourceText::FromString("t", "{replicated metadata={{{a}b=1}}}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*braced);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->metadata, std::vector<std::string>{"{a}b=1"});
  EXPECT_EQ(s->ToString(true), "{replicated metadata={{{a}b=1}}}");
  // A shard group id beyond what the text form reads is refused in bytes too.
  absl::StatusOr<ir::HloSharding> big = parsers::OpShardingFromBytes(
      std::string("\x58\x01\x60\xff\xff\xff\xff\xff\xff\xff\xff\x07", 12));
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(ErrorOf(big.status()), "expected a shard group id in [0, 2^40], not 576460752303423487");
}

TEST(HloShardingParser, CanonicalFormRejectsImpossibleDevices) {
  auto source = SourceText::FromString("t", "{devices=[2,2]0,1,2,5}");
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
  ASSERT_TRUE(s.ok());
  absl::StatusOr<ir::HloSharding> c = ir::CanonicalHloSharding(*s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ErrorOf(c.status()), "device 5 is outside [0, 4) in the tile assignment");
}

// --- OpSharding bytes ----------------------------------------------------------------

TEST(OpSharding, BytesLiteralErrorsAndForms) {
  auto hex = SourceText::FromString("b", "08031a02020122020001");
  absl::StatusOr<std::string> bytes = parsers::ParsePythonBytesLiteral(*hex);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(parsers::OpShardingFromBytes(*bytes)->ToString(), "{devices=[2,1]0,1}");
  auto double_quoted = SourceText::FromString("b", "b\"\\x08\\x01\\\"\\x01\\x03\"");
  bytes = parsers::ParsePythonBytesLiteral(*double_quoted);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(parsers::OpShardingFromBytes(*bytes)->ToString(), "{maximal device=3}");
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"b'\\x0'", "--opsharding:1:3: error: expected two hex digits after \\x"},
           {"b'\\x08", "--opsharding:1:7: error: expected the closing quote"},
           {"b'\\q'", "--opsharding:1:3: error: expected a Python bytes escape"},
           {"0x0", "--opsharding:1:3: error: expected hex digits in pairs"},
           {"b'' tail", "--opsharding:1:5: error: expected the end of the bytes literal"}}) {
    auto source = SourceText::FromString("--opsharding", text);
    absl::StatusOr<std::string> b = parsers::ParsePythonBytesLiteral(*source);
    ASSERT_FALSE(b.ok()) << text;
    EXPECT_TRUE(ErrorOf(b.status()).starts_with(expected)) << ErrorOf(b.status());
  }
  // Bytes that decode but state an impossible sharding.
  EXPECT_EQ(ErrorOf(parsers::OpShardingFromBytes(std::string("\x08\x07", 2)).status()), "unknown OpSharding type 7");
  EXPECT_EQ(ErrorOf(parsers::OpShardingFromBytes(std::string("\x08\x03\x1a\x02\x02\x02\"\x01\x00", 9)).status()),
            "expected 4 tile_assignment_devices, not 1");
  EXPECT_FALSE(parsers::OpShardingFromBytes(std::string("\xff\xff", 2)).ok());
}

// --- JAX reprs -----------------------------------------------------------------------

TEST(JaxParser, OldReprsOfSeed001) {
  // Mesh._repr in seed 001 (older JAX): the device ids as a numpy array.
  auto mesh_source = SourceText::FromString(
      "m", "Mesh(device_ids=array([[0],\n       [1],\n       [2],\n       [3]]), axis_names=('x', 'y'))");
  absl::StatusOr<parsers::ParsedMesh> mesh = parsers::ParseMeshText(*mesh_source);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "x=4,y=1");
  EXPECT_TRUE(mesh->mesh.IsIotaOrder());
  // Its arg_shapes line: a ShapeDtypeStruct holding an old-style NamedSharding.
  auto sds = SourceText::FromString(
      "s", "ShapeDtypeStruct(shape=(20, 16), dtype=float32, sharding=NamedSharding(mesh=Mesh('x': 4, 'y': 1), "
           "spec=PartitionSpec('x', None)))");
  absl::StatusOr<parsers::ParsedJaxSharding> s = parsers::ParseJaxShardingText(*sds);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->shape.has_value());
  EXPECT_EQ(ir::ShapeToString(*s->shape, false), "f32[20,16]");
  ir::JaxNamedSharding named{s->mesh->mesh, {}, s->spec, "", {}};
  EXPECT_EQ(ir::PartitionSpecToHloSharding(named, 2)->ToString(), "{devices=[4,1]<=[4]}");
}

TEST(JaxParser, DeviceOrdersFromReprs) {
  auto jax_mesh = SourceText::FromString("m", "Mesh(device_ids=array([[0, 2], [1, 3]]), axis_names=('x', 'y'))");
  absl::StatusOr<parsers::ParsedMesh> mesh = parsers::ParseMeshText(*jax_mesh);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "x=2,y=2 devices=[0,2,1,3]");
  auto torch_new = SourceText::FromString("m", "DeviceMesh((dp=2, tp=4), 'cuda', stride=(4, 1))");
  mesh = parsers::ParseMeshText(*torch_new);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "dp=2,tp=4");
  auto torch_strided = SourceText::FromString("m", "DeviceMesh((dp=2, tp=2), 'cuda', stride=(1, 2))");
  mesh = parsers::ParseMeshText(*torch_strided);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "dp=2,tp=2 devices=[0,2,1,3]");
  auto torch_old = SourceText::FromString("m", "DeviceMesh('cuda', [[4, 5], [6, 7]], mesh_dim_names=('dp', 'tp'))");
  mesh = parsers::ParseMeshText(*torch_old);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "dp=2,tp=2 devices=[4,5,6,7]");
  auto dict = SourceText::FromString("m", "OrderedDict([('x', 4), ('y', 2)])");
  mesh = parsers::ParseMeshText(*dict);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->mesh.ToString(), "x=4,y=2");
}

TEST(JaxParser, SpecErrorsPointAtTheAxis) {
  ir::Mesh mesh;
  mesh.axes = {{"x", 4}, {"y", 2}};
  const std::vector<std::tuple<std::string, int64_t, std::string>> cases = {
      {"PartitionSpec('z', None)", 2, "--spec:1:15: error: axis 'z' is not in the mesh (x=4,y=2)"},
      {"P('x', ('y', 'x'))", 2, "--spec:1:14: error: axis 'x' is used twice"},
      {"P('x', None, None)", 2, "--spec:1:18: error: the spec has 3 entries but the array has rank 2"},
      {"P('x', unreduced={'x'})", 2, "--spec:1:19: error: axis 'x' is used twice"},
  };
  for (const auto& [text, rank, expected] : cases) {
    auto source = SourceText::FromString("--spec", text);
    absl::StatusOr<parsers::ParsedJaxSharding> parsed = parsers::ParseJaxShardingText(*source);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    const absl::Status status = parsers::CheckPartitionSpec(*source, *parsed, mesh, rank);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_TRUE(ErrorOf(status).starts_with(expected)) << ErrorOf(status);
    // The library says the same without a location.
    ir::JaxNamedSharding named{mesh, {}, parsed->spec, "", {}};
    EXPECT_FALSE(ir::PartitionSpecToHloSharding(named, rank).ok()) << text;
  }
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"P('x', None", "--spec:1:12: error: expected ',' or ')' in the partition spec"},
           {"P(x)", "--spec:1:3: error: expected None, UNCONSTRAINED, an axis name in quotes"},
           {"NamedSharding(spec=P('x'))", "--spec:1:14: error: expected mesh= in NamedSharding(...)"}}) {
    auto source = SourceText::FromString("--spec", text);
    absl::StatusOr<parsers::ParsedJaxSharding> parsed = parsers::ParseJaxShardingText(*source);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(ErrorOf(parsed.status()).starts_with(expected)) << ErrorOf(parsed.status());
  }
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"x=4,x=2", "--mesh:1:5: error: expected distinct axis names; 'x' appears twice"},
           {"x=0", "--mesh:1:1: error: expected the size of axis 'x' to be at least 1"},
           {"x=4,y", "--mesh:1:6: error: expected '=' after the axis name"},
           {"x=1048576,y=2", "--mesh:1:11: error: expected a mesh of at most 1048576 devices"}}) {
    auto source = SourceText::FromString("--mesh", text);
    absl::StatusOr<parsers::ParsedMesh> parsed = parsers::ParseMeshText(*source);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(ErrorOf(parsed.status()).starts_with(expected)) << ErrorOf(parsed.status());
  }
}

// --- DTensor --------------------------------------------------------------------------

TEST(DTensorParser, ReprsUsersCopy) {
  auto dtensor = SourceText::FromString(
      "d", "DTensor(local_tensor=tensor([[1., 2.]]), device_mesh=DeviceMesh((dp=2, tp=2), 'cuda', stride=(2, 1)), "
           "placements=(Shard(dim=0), Partial(sum)))");
  absl::StatusOr<parsers::ParsedPlacements> p = parsers::ParseDTensorPlacements(*dtensor);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->mesh.has_value());
  EXPECT_EQ(p->mesh->mesh.ToString(), "dp=2,tp=2");
  ASSERT_EQ(p->placements.size(), 2u);
  EXPECT_EQ(p->placements[1].kind, ir::Placement::Kind::kPartial);
  // Partial is an unreduced subgroup in XLA's terms.
  EXPECT_EQ((*ir::DTensorToHloSharding(p->mesh->mesh, p->placements, 2))->ToString(),
            "{devices=[2,1,2]<=[4] last_tile_dims={unreduced}}");
  auto keyword = SourceText::FromString("d", "[Partial(reduce_op='max'), _StridedShard(0, split_factor=2), Shard(dim=0)]");
  p = parsers::ParseDTensorPlacements(*keyword);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->placements[0].reduce_op, "max");
  EXPECT_EQ(p->placements[1].split_factor, 2);
  // FSDP2 after TP: the strided dim is the minor one.
  ir::Mesh mesh;
  mesh.axes = {{"pp", 2}, {"dp", 2}, {"tp", 2}};
  EXPECT_EQ((*ir::DTensorToHloSharding(mesh, p->placements, 1))->ToString(),
            "{devices=[4,2]<=[2,2,2]T(2,1,0) last_tile_dims={unreduced}}");
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"[Shard(0), Replicat()]", "--placements:1:12: error: expected a placement"},
           {"[Shard()]", "--placements:1:9: error: expected the tensor dimension to shard"},
           {"[_StridedShard(0, sf=0)]", "--placements:1:23: error: expected a split factor of at least 1"},
           {"[]", "--placements:1:3: error: expected at least one placement"}}) {
    auto source = SourceText::FromString("--placements", text);
    absl::StatusOr<parsers::ParsedPlacements> parsed = parsers::ParseDTensorPlacements(*source);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_TRUE(ErrorOf(parsed.status()).starts_with(expected)) << ErrorOf(parsed.status());
  }
}

}  // namespace
}  // namespace memplan
