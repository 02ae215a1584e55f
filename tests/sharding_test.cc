// Meshes and shardings (ir/mesh.h, ir/sharding.h, ir/partition_spec.h,
// ir/shard_layout.h) and their parsers, held against what XLA and JAX say:
// samples/sharding/jax_partition_specs.json (scripts/gen_sharding_truth.py)
// and the facts of XLA's own tests and comments.
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/partition_spec.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"
#include "llvm/Support/JSON.h"
#include "ir/dtensor.h"
#include "parsers/dtensor_parser.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/op_sharding.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"
#include "viz/shard_view.h"

namespace memplan {
namespace {

using ir::IotaDevices;
using ir::TileAssignment;

std::string Canon(const IotaDevices& iota) {
  IotaDevices c = iota.Canonical();
  return c.ToString();
}

TEST(Iota, CanonicalFormsAsXlaDocumentsThem) {
  // The examples of XLA's CanonicalizeIotaDims comment.
  EXPECT_EQ(Canon({{60}, {3, 4, 5}, {}}), "[60]<=[60]");
  EXPECT_EQ(Canon({{60}, {3, 4, 5}, {2, 1, 0}}), "[60]<=[3,4,5]T(2,1,0)");
  EXPECT_EQ(Canon({{60}, {3, 4, 5}, {1, 2, 0}}), "[60]<=[3,20]T(1,0)");
  EXPECT_EQ(Canon({{60}, {3, 4, 5}, {1, 0, 2}}), "[60]<=[3,4,5]T(1,0,2)");
  EXPECT_EQ(Canon({{60}, {3, 4, 5}, {2, 0, 1}}), "[60]<=[12,5]T(1,0)");
  EXPECT_EQ(Canon({{60}, {1, 3, 1, 4, 1, 5}, {4, 3, 2, 5, 1, 0}}), "[60]<=[3,20]T(1,0)");
  EXPECT_EQ(Canon({{1}, {1, 1}, {1, 0}}), "[1]<=[1]");
  EXPECT_EQ(Canon({{4}, {2, 2}, {0, 1}}), "[4]<=[4]");
}

TEST(Iota, CanonicalFormKeepsTheDevices) {
  const std::vector<IotaDevices> cases = {
      {{60}, {3, 4, 5}, {1, 2, 0}}, {{6, 10}, {3, 4, 5}, {2, 0, 1}}, {{2, 2, 2}, {2, 2, 2}, {0, 2, 1}},
      {{12}, {1, 3, 1, 4}, {3, 1, 0, 2}}};
  for (const IotaDevices& iota : cases) {
    EXPECT_EQ(iota.Expand().value(), iota.Canonical().Expand().value()) << iota.ToString();
  }
}

TEST(TileAssignment, TransposeStaysIotaWhereXlaDoes) {
  // [2,4]<=[8] transposed by (1,0) is [4,2]<=[2,4]T(1,0).
  TileAssignment t = TileAssignment::Iota({2, 4}).Transposed({1, 0});
  EXPECT_EQ(t.ToString(), "devices=[4,2]<=[2,4]T(1,0)");
  EXPECT_EQ(t.Devices().value(), (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  // Moving only size-1 axes keeps the device order.
  EXPECT_EQ(TileAssignment::Iota({4, 1}).Transposed({1, 0}).ToString(), "devices=[1,4]<=[4]");
  // An explicit list transposes element by element.
  TileAssignment e = TileAssignment::Explicit({2, 2}, {3, 2, 1, 0}).Transposed({1, 0});
  EXPECT_EQ(e.ToString(), "devices=[2,2]3,1,2,0");
}

ir::HloSharding ParseOrDie(std::string_view text) {
  auto source = parsers::SourceText::FromString("t", text);
  absl::StatusOr<ir::HloSharding> s = parsers::ParseHloShardingText(*source);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.value_or(ir::HloSharding{});
}

std::string CanonicalText(std::string_view text) {
  absl::StatusOr<ir::HloSharding> c = ir::CanonicalHloSharding(ParseOrDie(text));
  EXPECT_TRUE(c.ok()) << text << ": " << c.status();
  return c.ok() ? c->ToString() : "";
}

TEST(HloSharding, V3ToV2AsXlasTestsState) {
  // HloSharding::V3ToV2Sharding's expectations in XLA's hlo_sharding_test.
  EXPECT_EQ(CanonicalText("{mesh[a=16], [{a}, {}]}"), "{devices=[16,1]<=[16]}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=4,c=4], [{c}, {a, b}]}"), "{devices=[4,8]<=[8,4]T(1,0)}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=4,c=4], [{b}, {a, c}]}"), "{devices=[4,8]<=[2,4,4]T(1,0,2)}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=4,c=4], [{}, {a}], replicated={c}}"),
            "{devices=[1,2,16]<=[32] last_tile_dim_replicate}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=2], [{a}, {}], unreduced={b}}"),
            "{devices=[2,1,2]<=[4] last_tile_dims={unreduced}}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=4], device_ids=([4,2]T(1,0)), [{b}, {a}]}"), "{devices=[4,2]<=[8]}");
  EXPECT_EQ(CanonicalText("{mesh[a=2,b=4], device_ids=([4,2]T(1,0)), [{a}, {b}]}"),
            "{devices=[2,4]<=[4,2]T(1,0)}");
  // Sub-axes of a=16: a:(1)2, a:(2)4, a:(8)2.
  EXPECT_EQ(CanonicalText("{mesh[a=16,b=4], [{b, a:(1)2}]}"),
            "{devices=[8,8]<=[16,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(CanonicalText("{mesh[a=16,b=4], [{b, a:(2)4}]}"),
            "{devices=[16,4]<=[2,4,2,4]T(3,1,0,2) last_tile_dim_replicate}");
  EXPECT_EQ(CanonicalText("{maximal_mesh[device_id=5]}"), "{maximal device=5}");
}

// --- Ground truth from JAX and XLA ------------------------------------------

const llvm::json::Object& Truth() {
  static const llvm::json::Value* const truth = [] {
    const std::string text = test::ReadFileOrDie(test::SourcePath("samples/sharding/jax_partition_specs.json"));
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed) {
      ADD_FAILURE() << llvm::toString(parsed.takeError());
      return new llvm::json::Value(llvm::json::Object{});
    }
    return new llvm::json::Value(std::move(*parsed));
  }();
  return *truth->getAsObject();
}

std::vector<int64_t> Ints(const llvm::json::Value* v) {
  std::vector<int64_t> out;
  if (const llvm::json::Array* a = v ? v->getAsArray() : nullptr) {
    for (const llvm::json::Value& e : *a) out.push_back(*e.getAsInteger());
  }
  return out;
}

std::string Str(const llvm::json::Object& o, llvm::StringRef key) {
  auto s = o.getString(key);
  return s ? s->str() : "";
}

ir::Shape ShapeOf(const llvm::json::Object& c) {
  static const std::map<std::string, ir::DType> kTypes = {
      {"float32", ir::DType::kF32}, {"bfloat16", ir::DType::kBF16}, {"float16", ir::DType::kF16},
      {"int32", ir::DType::kS32},   {"int8", ir::DType::kS8}};
  ir::Shape shape;
  shape.dtype = kTypes.at(Str(c, "dtype"));
  shape.dims = Ints(c.get("shape"));
  return shape;
}

TEST(JaxTruth, FileHoldsEnoughCases) {
  const llvm::json::Array* cases = Truth().getArray("cases");
  ASSERT_NE(cases, nullptr);
  EXPECT_GE(cases->size(), 40u);
  int uneven = 0, ordered = 0, three_axis = 0;
  for (const llvm::json::Value& v : *cases) {
    const llvm::json::Object& c = *v.getAsObject();
    if (c.getString("jax_refuses") && *c.getString("jax_refuses") == "IndivisibleError") ++uneven;
    const std::vector<int64_t> order = Ints(c.get("device_order"));
    for (size_t i = 0; i < order.size(); ++i) ordered += order[i] != static_cast<int64_t>(i) ? 1 : 0;
    three_axis += c.getArray("mesh_axes")->size() == 3;
  }
  EXPECT_GE(uneven, 5);
  EXPECT_GT(ordered, 0);
  EXPECT_GE(three_axis, 10);
}

struct CaseResult {
  ir::Mesh mesh;
  ir::HloSharding sharding;
};

// Every row: our parsers read JAX's reprs, our lowering gives JAX's
// HloSharding, and our layout gives XLA's shard shape and JAX's index map.
TEST(JaxTruth, EveryRowMatches) {
  int rows = 0, index_maps = 0, pictures = 0, too_wide = 0;
  for (const llvm::json::Value& v : *Truth().getArray("cases")) {
    const llvm::json::Object& c = *v.getAsObject();
    const std::string name = Str(c, "name");
    SCOPED_TRACE(name);
    const ir::Shape shape = ShapeOf(c);
    const int64_t rank = static_cast<int64_t>(shape.dims.size());

    // The mesh, read from each repr JAX prints; the device order comes apart
    // (JAX's repr does not show it).
    std::vector<parsers::ParsedMesh> meshes;
    for (const char* key : {"mesh_repr", "mesh_str"}) {
      auto source = parsers::SourceText::FromString(key, Str(c, key));
      absl::StatusOr<parsers::ParsedMesh> mesh = parsers::ParseMeshText(*source);
      ASSERT_TRUE(mesh.ok()) << mesh.status();
      meshes.push_back(*mesh);
    }
    EXPECT_EQ(meshes[0].mesh, meshes[1].mesh);
    ir::Mesh mesh = meshes[0].mesh;
    ASSERT_EQ(mesh.axes.size(), c.getArray("mesh_axes")->size());
    for (size_t i = 0; i < mesh.axes.size(); ++i) {
      const llvm::json::Array& axis = *(*c.getArray("mesh_axes"))[i].getAsArray();
      EXPECT_EQ(mesh.axes[i].name, axis[0].getAsString()->str());
      EXPECT_EQ(mesh.axes[i].size, *axis[1].getAsInteger());
    }
    mesh.order = ir::Mesh::DeviceOrder::kList;
    mesh.device_list = Ints(c.get("device_order"));
    ASSERT_TRUE(mesh.Validate().ok());

    // The NamedSharding repr carries the mesh and the spec.
    auto ns_source = parsers::SourceText::FromString("ns", Str(c, "named_sharding_repr"));
    absl::StatusOr<parsers::ParsedJaxSharding> ns = parsers::ParseJaxShardingText(*ns_source);
    ASSERT_TRUE(ns.ok()) << ns.status();
    ASSERT_TRUE(ns->mesh.has_value());
    EXPECT_EQ(ns->mesh->mesh.axes, mesh.axes);
    EXPECT_EQ(ns->memory_kind, "device");
    auto spec_source = parsers::SourceText::FromString("spec", Str(c, "spec_repr"));
    absl::StatusOr<parsers::ParsedJaxSharding> spec = parsers::ParseJaxShardingText(*spec_source);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->spec, ns->spec);
    EXPECT_EQ(spec->spec.ToString(), Str(c, "spec_repr"));
    ASSERT_TRUE(parsers::CheckPartitionSpec(*spec_source, *spec, mesh, rank).ok());

    ir::JaxNamedSharding named;
    named.mesh = mesh;
    named.axis_types = ns->mesh->axis_types;
    named.spec = spec->spec;
    absl::StatusOr<ir::HloSharding> hlo = ir::PartitionSpecToHloSharding(named, rank);
    ASSERT_TRUE(hlo.ok()) << hlo.status();
    EXPECT_EQ(hlo->ToString(), Str(c, "hlo_sharding"));

    if (c.get("xla_shard_shape") == nullptr) continue;  // unreduced: no layout in JAX
    absl::StatusOr<ir::ShardLayout> layout = ir::XlaShardLayout(*hlo, shape, mesh.DeviceIds(), 0);
    ASSERT_TRUE(layout.ok()) << layout.status();
    ASSERT_EQ(layout->devices.size(), mesh.DeviceIds().size());
    const std::vector<int64_t> xla_shape = Ints(c.get("xla_shard_shape"));
    for (const ir::DeviceShard& shard : layout->devices) EXPECT_EQ(shard.local_dims, xla_shape);
    ++rows;
    const llvm::json::Object* map = c.getObject("devices_indices_map");
    if (map == nullptr) continue;
    if (c.get("picture") != nullptr) {
      // jax.debug.visualize_sharding ends with a blank line.
      std::string picture = Str(c, "picture");
      while (picture.size() >= 2 && picture.substr(picture.size() - 2) == "\n\n") picture.pop_back();
      // rich squeezes a table wider than its 80-column console (wrapping,
      // sometimes dropping the labels); memplan draws it at full width, so
      // only pictures that fit are compared (docs/shardings.md).
      const std::string ours = viz::RenderShardPicture(*layout, "CPU");
      const std::string first_line = ours.substr(0, ours.find('\n'));
      int64_t columns = 0;
      for (char ch : first_line) columns += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
      if (columns <= 80) {
        EXPECT_EQ(ours, picture);
        ++pictures;
      } else {
        ++too_wide;
      }
    }
    EXPECT_EQ(Ints(c.get("shard_shape")), xla_shape);
    ASSERT_EQ(map->size(), layout->devices.size());
    for (const ir::DeviceShard& shard : layout->devices) {
      const llvm::json::Array* ranges = map->getArray(std::to_string(shard.device_id));
      ASSERT_NE(ranges, nullptr) << "device " << shard.device_id;
      ASSERT_EQ(ranges->size(), shard.indices.size());
      for (size_t d = 0; d < shard.indices.size(); ++d) {
        const std::vector<int64_t> range = Ints(&(*ranges)[d]);
        ASSERT_EQ(shard.indices[d].size(), 1u);
        EXPECT_EQ(shard.indices[d][0].begin, range[0]) << "device " << shard.device_id << " dim " << d;
        EXPECT_EQ(shard.indices[d][0].end, range[1]) << "device " << shard.device_id << " dim " << d;
      }
    }
    ++index_maps;
  }
  EXPECT_GE(rows, 40);
  EXPECT_GE(index_maps, 35);
  EXPECT_GE(pictures, 30);
  EXPECT_LE(too_wide, 3);
  std::printf("JAX truth: %d layouts matched, %d with index maps, %d pictures (%d wider than 80 columns)\n", rows,
              index_maps, pictures, too_wide);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char ch : bytes) {
    const unsigned char b = static_cast<unsigned char>(ch);
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

// XLA reads each text (HloSharding.from_string): our canonical form prints
// the same, serializes to the same OpSharding bytes, and decodes them back.
TEST(XlaTruth, HloShardingTextsCanonicalizeAndSerializeAsXla) {
  int count = 0;
  for (const llvm::json::Value& v : *Truth().getArray("hlo_sharding_texts")) {
    const llvm::json::Object& t = *v.getAsObject();
    const std::string text = Str(t, "text");
    SCOPED_TRACE(text);
    const ir::HloSharding parsed = ParseOrDie(text);
    const bool named = parsed.kind == ir::HloSharding::Kind::kNamed;
    absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(parsed);
    ASSERT_TRUE(canonical.ok()) << canonical.status();
    // XLA keeps a named sharding named; its V2 form is what it means.
    const ir::HloSharding& as_xla = named ? parsed : *canonical;
    EXPECT_EQ(as_xla.ToString(), Str(t, "xla"));
    if (named) {
      EXPECT_EQ(canonical->ToString(), Str(t, "v2"));
    }
    absl::StatusOr<std::string> bytes = parsers::OpShardingToBytes(as_xla);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(Hex(*bytes), Str(t, "op_sharding_hex"));
    absl::StatusOr<ir::HloSharding> decoded = parsers::OpShardingFromBytes(Unhex(Str(t, "op_sharding_hex")));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    absl::StatusOr<ir::HloSharding> decoded_canonical = ir::CanonicalHloSharding(*decoded);
    ASSERT_TRUE(decoded_canonical.ok());
    EXPECT_EQ((named ? *decoded : *decoded_canonical).ToString(), Str(t, "xla"));
    ++count;
  }
  EXPECT_GE(count, 40);
}

TEST(XlaTruth, AlpaBytesLiteralsOfSeed003) {
  for (const llvm::json::Value& v : *Truth().getArray("seed003_op_shardings")) {
    const llvm::json::Object& s = *v.getAsObject();
    SCOPED_TRACE(Str(s, "bytes_repr"));
    auto source = parsers::SourceText::FromString("--opsharding", Str(s, "bytes_repr"));
    absl::StatusOr<std::string> bytes = parsers::ParsePythonBytesLiteral(*source);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(Hex(*bytes), Str(s, "hex"));
    EXPECT_EQ(parsers::PythonBytesRepr(*bytes), Str(s, "bytes_repr"));
    absl::StatusOr<ir::HloSharding> sharding = parsers::OpShardingFromBytes(*bytes);
    ASSERT_TRUE(sharding.ok()) << sharding.status();
    EXPECT_EQ(ir::CanonicalHloSharding(*sharding)->ToString(), Str(s, "xla"));
  }
}

// --- Ground truth from PyTorch DTensor ----------------------------------------

const llvm::json::Object& DTensorTruth() {
  static const llvm::json::Value* const truth = [] {
    const std::string text = test::ReadFileOrDie(test::SourcePath("samples/sharding/dtensor_placements.json"));
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed) {
      ADD_FAILURE() << llvm::toString(parsed.takeError());
      return new llvm::json::Value(llvm::json::Object{{"cases", llvm::json::Array{}}});
    }
    return new llvm::json::Value(std::move(*parsed));
  }();
  return *truth->getAsObject();
}

// Every rank of every case: our parser reads torch's repr() and str() of the
// placements, and our layout gives torch's local shape, first offset and
// index sets.
TEST(DTensorTruth, EveryRankMatches) {
  int ranks = 0, uneven = 0, strided = 0;
  for (const llvm::json::Value& v : *DTensorTruth().getArray("cases")) {
    const llvm::json::Object& c = *v.getAsObject();
    SCOPED_TRACE(Str(c, "name"));
    std::vector<std::vector<ir::Placement>> read;
    for (const char* key : {"placements_repr", "placements_str"}) {
      auto source = parsers::SourceText::FromString(key, Str(c, key));
      absl::StatusOr<parsers::ParsedPlacements> parsed = parsers::ParseDTensorPlacements(*source);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      read.push_back(parsed->placements);
    }
    EXPECT_EQ(read[0], read[1]);
    std::string repr = "[";
    for (size_t i = 0; i < read[0].size(); ++i) repr += (i ? ", " : "") + read[0][i].ToString();
    EXPECT_EQ(repr + "]", Str(c, "placements_repr"));
    ir::Mesh mesh;
    const std::vector<int64_t> sizes = Ints(c.get("mesh_shape"));
    for (size_t i = 0; i < sizes.size(); ++i) mesh.axes.push_back({"dim" + std::to_string(i), sizes[i]});
    ir::Shape shape;
    shape.dtype = ir::DType::kF32;
    shape.dims = Ints(c.get("shape"));
    absl::StatusOr<ir::ShardLayout> layout = ir::DTensorShardLayout(mesh, read[0], shape);
    ASSERT_TRUE(layout.ok()) << layout.status();
    const llvm::json::Array& rows = *c.getArray("ranks");
    ASSERT_EQ(rows.size(), layout->devices.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      const llvm::json::Object& row = *rows[r].getAsObject();
      const ir::DeviceShard& shard = layout->devices[r];
      EXPECT_EQ(shard.coordinate, Ints(row.get("coordinate")));
      EXPECT_EQ(shard.local_dims, Ints(row.get("local_shape")));
      const std::vector<int64_t> offset = Ints(row.get("global_offset"));
      const llvm::json::Array& indices = *row.getArray("indices");
      ASSERT_EQ(indices.size(), shard.indices.size());
      for (size_t d = 0; d < indices.size(); ++d) {
        std::vector<ir::IndexRange> expected;
        for (const llvm::json::Value& range : *indices[d].getAsArray()) {
          const std::vector<int64_t> r2 = Ints(&range);
          expected.push_back({r2[0], r2[1]});
        }
        EXPECT_EQ(shard.indices[d], expected) << "rank " << r << " dim " << d;
        if (!expected.empty()) {
          EXPECT_EQ(expected.front().begin, offset[d]);
        }
        strided += expected.size() > 1;
        uneven += shard.local_dims[d] * layout->ways[d] != shape.dims[d];
      }
      ++ranks;
    }
  }
  EXPECT_GE(ranks, 80);
  EXPECT_GT(uneven, 10);
  EXPECT_GT(strided, 2);
  std::printf("DTensor truth: %d ranks matched\n", ranks);
}

}  // namespace
}  // namespace memplan
