// Text and HloProto of the same module give the same graph: every corpus
// case that has both (samples/jax/*: the optimized module; samples/hlo/*:
// the module before and after optimizations) is read with
// ParseHloModuleText and ModuleFromProto and compared field by field, by
// name (the two inputs order computations differently, so ids differ).
//
// What the proto cannot give and is therefore not compared: `sharding=`
// (the proto's OpSharding, field 40, is read elsewhere), attributes memplan
// keeps as text only (HloAttributes::unknown), the header attributes the
// proto does not hold (allow_spmd_sharding_propagation_*), and the text's
// escaping of quoted strings (compared after UnescapeHloString). The test
// counts what it compared and requires each typed attribute and call role
// to appear somewhere in the corpus, so that a field silently absent from
// both sides cannot pass unnoticed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "llvm/Support/JSON.h"
#include "ir/strings.h"
#include "parsers/hlo_proto_module.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/proto/hlo_subset.pb.h"

namespace memplan {
namespace {

namespace fs = std::filesystem;
using ir::Module;

struct CorpusCase {
  std::string name;        // for the test name
  std::string text_path;   // HLO text
  std::string proto_path;  // HloProto of the same module
};

std::vector<CorpusCase> CorpusCases() {
  std::vector<CorpusCase> cases;
  const fs::path root = MEMPLAN_SOURCE_DIR;
  for (const char* dir : {"samples/jax", "samples/hlo", "samples/jax_gpu"}) {
    std::vector<fs::path> texts;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string file = entry.path().filename().string();
      if (file.ends_with("optimizations.txt")) texts.push_back(entry.path());
    }
    std::sort(texts.begin(), texts.end());
    for (const fs::path& text : texts) {
      std::string proto = text.string();
      proto.replace(proto.size() - 4, 4, ".hlo.pb");
      std::string name = StrCat(std::string_view(dir) == "samples/jax_gpu" ? "gpu_" : "",
                                text.parent_path().filename().string(), "_",
                                text.filename().string().find("before") != std::string::npos
                                    ? "before"
                                    : "after");
      cases.push_back({name, text.string(), proto});
    }
  }
  return cases;
}

// What the corpus exercised, summed over all cases.
struct Coverage {
  std::map<std::string, int64_t> seen;
  void Saw(const std::string& what, bool present = true) {
    if (present) ++seen[what];
  }
};
Coverage& GlobalCoverage() {
  static Coverage coverage;
  return coverage;
}

std::string Unescaped(std::string_view text) { return parsers::UnescapeHloString(text); }

class Comparison {
 public:
  Comparison(const Module& text, const Module& proto) : text_(text), proto_(proto) {
    for (const ir::Instruction& i : text.instructions()) text_names_.insert(i.name);
    // Newer XLA prints a get-tuple-element only at its users, as "%x#N":
    // the text parser names it "x#N", the proto keeps XLA's name.
    for (const ir::Instruction& i : proto.instructions()) {
      if (i.opcode == ir::Opcode::kGetTupleElement && !i.operands.empty()) {
        proto_alias_[i.id.value()] = StrCat(proto.instruction(i.operands[0]).name, "#",
                                            proto.attributes(i.id).tuple_index);
      }
    }
    for (const ir::Instruction& i : proto.instructions()) proto_by_name_[ProtoName(i.id)] = i.id;
    for (const ir::Computation& c : proto.computations()) proto_computations_[c.name] = c.id;
  }

  void Run() {
    EXPECT_EQ(text_.name, proto_.name);
    ASSERT_TRUE(text_.entry_computation() && proto_.entry_computation());
    EXPECT_EQ(text_.entry_computation()->name, proto_.entry_computation()->name);
    CompareHeader();
    CompareStackFrames();
    ASSERT_EQ(text_.computations().size(), proto_.computations().size());
    ASSERT_EQ(text_.instruction_count(), proto_.instruction_count());
    for (const ir::Computation& c : text_.computations()) CompareComputation(c);
    for (const ir::Instruction& i : text_.instructions()) CompareInstruction(i);
  }

 private:
  void CompareHeader() {
    const ir::ModuleHeader& t = text_.header;
    const ir::ModuleHeader& p = proto_.header;
    EXPECT_EQ(t.is_scheduled, p.is_scheduled);
    ASSERT_EQ(t.entry_parameter_shapes.size(), p.entry_parameter_shapes.size());
    for (size_t k = 0; k < t.entry_parameter_shapes.size(); ++k) {
      ExpectSameShape(t.entry_parameter_shapes[k], p.entry_parameter_shapes[k], "entry layout");
    }
    ASSERT_EQ(t.entry_result_shape.has_value(), p.entry_result_shape.has_value());
    if (t.entry_result_shape) ExpectSameShape(*t.entry_result_shape, *p.entry_result_shape, "entry result");
    EXPECT_EQ(t.replica_count, p.replica_count);
    EXPECT_EQ(t.num_partitions, p.num_partitions);
    EXPECT_EQ(t.input_output_aliases, p.input_output_aliases);
    EXPECT_EQ(t.buffer_donors, p.buffer_donors);
    GlobalCoverage().Saw("header.entry_computation_layout", !t.entry_parameter_shapes.empty());
    GlobalCoverage().Saw("header.input_output_alias", !t.input_output_aliases.empty());
    GlobalCoverage().Saw("header.num_partitions>1", t.num_partitions > 1);
    GlobalCoverage().Saw("header.is_scheduled", t.is_scheduled);
    auto frontend = [](const ir::ModuleHeader& h) -> std::string_view {
      for (const ir::UnknownAttribute& a : h.other) {
        if (a.key == "frontend_attributes") return a.value;
      }
      return {};
    };
    ExpectSameFrontendAttributes(frontend(t), frontend(p), "module");
  }

  void CompareStackFrames() {
    ASSERT_EQ(text_.stack_frames.size(), proto_.stack_frames.size());
    for (size_t k = 0; k < text_.stack_frames.size(); ++k) {
      const ir::SourceFrame& t = text_.stack_frames[k];
      const ir::SourceFrame& p = proto_.stack_frames[k];
      EXPECT_EQ(Unescaped(t.file), p.file) << "frame " << k + 1;
      EXPECT_EQ(Unescaped(t.function), p.function) << "frame " << k + 1;
      EXPECT_EQ(t.line, p.line) << "frame " << k + 1;
      EXPECT_EQ(t.column, p.column) << "frame " << k + 1;
      EXPECT_EQ(t.parent_id, p.parent_id) << "frame " << k + 1;
      GlobalCoverage().Saw("stack frame");
    }
  }

  // The proto's name of `id`, or the "x#N" the text gives it (a
  // get-tuple-element the text has as "x#N" only: the text parser names it so).
  std::string_view ProtoName(ir::InstructionId id) const {
    auto it = proto_alias_.find(id.value());
    if (it == proto_alias_.end() || !text_names_.contains(it->second)) return proto_.instruction(id).name;
    return it->second;
  }

  static std::vector<std::string_view> WithoutTupleElements(std::vector<std::string_view> names) {
    names.erase(std::remove_if(names.begin(), names.end(),
                               [](std::string_view n) { return n.find('#') != std::string_view::npos; }),
                names.end());
    return names;
  }

  std::vector<std::string_view> Names(const Module& m, absl::Span<const ir::InstructionId> ids) {
    std::vector<std::string_view> names;
    for (ir::InstructionId id : ids) {
      if (!id.valid()) {
        names.push_back("<none>");
      } else {
        names.push_back(&m == &proto_ ? ProtoName(id) : m.instruction(id).name);
      }
    }
    return names;
  }

  void CompareComputation(const ir::Computation& t) {
    auto it = proto_computations_.find(t.name);
    ASSERT_NE(it, proto_computations_.end()) << "computation " << t.name << " not in the proto";
    const ir::Computation& p = proto_.computation(it->second);
    // The text does not say where XLA scheduled a get-tuple-element it
    // prints only as "x#N" (memplan lists it before its first user): the
    // order is compared without them, their set by the operands' names.
    EXPECT_EQ(WithoutTupleElements(Names(text_, t.instructions)),
              WithoutTupleElements(Names(proto_, p.instructions)))
        << "computation " << t.name;
    EXPECT_EQ(text_.instruction(t.root).name, ProtoName(p.root)) << t.name;
    EXPECT_EQ(Names(text_, t.parameters), Names(proto_, p.parameters)) << t.name;
  }

  void ExpectSameShape(const ir::Shape& t, const ir::Shape& p, std::string_view what) {
    EXPECT_EQ(ir::ShapeToString(t), ir::ShapeToString(p)) << what;
    EXPECT_EQ(t.dtype, p.dtype) << what;
    EXPECT_EQ(t.dims, p.dims) << what;
    EXPECT_EQ(t.dynamic_dims, p.dynamic_dims) << what;
    ASSERT_EQ(t.layout.has_value(), p.layout.has_value()) << what << ": " << ir::ShapeToString(t);
    if (t.layout) {
      EXPECT_EQ(t.layout->minor_to_major, p.layout->minor_to_major) << what;
      EXPECT_EQ(t.layout->element_size_bits, p.layout->element_size_bits) << what;
      EXPECT_EQ(t.layout->memory_space, p.layout->memory_space) << what;
      EXPECT_EQ(t.layout->details, p.layout->details) << what;
      GlobalCoverage().Saw("layout");
    }
    ASSERT_EQ(t.tuple_elements.size(), p.tuple_elements.size()) << what;
    for (size_t k = 0; k < t.tuple_elements.size(); ++k) {
      ExpectSameShape(t.tuple_elements[k], p.tuple_elements[k], what);
    }
  }

  // The same text, or (XLA's GPU backend prints the JSON with its keys
  // sorted, the proto keeps them in field order) the same JSON value.
  static void ExpectSameBackendConfig(const std::string& t, std::string_view p) {
    if (t == p) return;
    llvm::Expected<llvm::json::Value> tj = llvm::json::parse(t);
    llvm::Expected<llvm::json::Value> pj = llvm::json::parse(llvm::StringRef(p.data(), p.size()));
    if (!tj || !pj) {
      if (!tj) llvm::consumeError(tj.takeError());
      if (!pj) llvm::consumeError(pj.takeError());
      EXPECT_EQ(t, p) << "backend_config";
      return;
    }
    EXPECT_TRUE(*tj == *pj) << "backend_config " << t << " vs " << p;
    GlobalCoverage().Saw("backend_config as JSON");
  }

  void ExpectSameFrontendAttributes(std::string_view t, std::string_view p, std::string_view what) {
    if (t.empty() || p.empty()) {
      EXPECT_EQ(t.empty(), p.empty()) << what << ": frontend_attributes " << t << " vs " << p;
      return;
    }
    auto tp = parsers::ParseFrontendAttributes(t);
    auto pp = parsers::ParseFrontendAttributes(p);
    ASSERT_TRUE(tp.ok()) << tp.status();
    ASSERT_TRUE(pp.ok()) << pp.status();
    EXPECT_EQ(*tp, *pp) << what;
    GlobalCoverage().Saw("frontend_attributes");
  }

  void CompareInstruction(const ir::Instruction& t) {
    auto it = proto_by_name_.find(t.name);
    ASSERT_NE(it, proto_by_name_.end()) << "instruction " << t.name << " not in the proto";
    const ir::Instruction& p = proto_.instruction(it->second);
    SCOPED_TRACE(StrCat("instruction ", t.name));
    EXPECT_EQ(text_.computation(t.computation).name, proto_.computation(p.computation).name);
    EXPECT_EQ(t.opcode, p.opcode);
    EXPECT_EQ(t.opcode_text, p.opcode_text);
    EXPECT_NE(t.opcode, ir::Opcode::kUnknown);
    EXPECT_EQ(t.is_root, p.is_root);
    EXPECT_EQ(t.unique_id, -1);
    ExpectSameShape(t.shape, p.shape, "shape");
    EXPECT_EQ(Names(text_, t.operands), Names(proto_, p.operands));
    EXPECT_EQ(Names(text_, t.control_predecessors), Names(proto_, p.control_predecessors));
    GlobalCoverage().Saw("control-predecessors", !t.control_predecessors.empty());
    ASSERT_EQ(t.calls.size(), p.calls.size());
    for (size_t k = 0; k < t.calls.size(); ++k) {
      EXPECT_EQ(text_.computation(t.calls[k].computation).name,
                proto_.computation(p.calls[k].computation).name);
      EXPECT_EQ(t.calls[k].role, p.calls[k].role) << "call " << k;
      GlobalCoverage().Saw(StrCat("call role ", static_cast<int>(t.calls[k].role)));
    }
    if (t.name.find('#') != std::string_view::npos) {
      // Made from a "%x#N" operand: the text gives it no metadata.
      EXPECT_TRUE(t.metadata->op_name.empty());
      GlobalCoverage().Saw("get-tuple-element printed as x#N");
      CompareAttributes(text_.attributes(t), proto_.attributes(p));
      return;
    }
    EXPECT_EQ(Unescaped(t.metadata->op_type), p.metadata->op_type);
    EXPECT_EQ(Unescaped(t.metadata->op_name), p.metadata->op_name);
    EXPECT_EQ(Unescaped(t.metadata->source_file), p.metadata->source_file);
    EXPECT_EQ(t.metadata->source_line, p.metadata->source_line);
    EXPECT_EQ(t.metadata->stack_frame_id, p.metadata->stack_frame_id);
    GlobalCoverage().Saw("metadata.op_name", !t.metadata->op_name.empty());
    GlobalCoverage().Saw("metadata.stack_frame_id", t.metadata->stack_frame_id != 0);
    CompareAttributes(text_.attributes(t), proto_.attributes(p));
  }

  void CompareAttributes(const ir::HloAttributes& t, const ir::HloAttributes& p) {
    Coverage& c = GlobalCoverage();
    EXPECT_EQ(t.dimensions, p.dimensions);
    c.Saw("dimensions", !t.dimensions.empty());
    EXPECT_EQ(t.iota_dimension, p.iota_dimension);
    c.Saw("iota_dimension", t.iota_dimension >= 0);
    EXPECT_EQ(t.parameter_number, p.parameter_number);
    c.Saw("parameter_number", t.parameter_number >= 0);
    EXPECT_EQ(t.tuple_index, p.tuple_index);
    c.Saw("tuple_index", t.tuple_index >= 0);
    EXPECT_EQ(t.dot, p.dot);
    c.Saw("dot", t.dot.has_value());
    c.Saw("dot batch dims", t.dot && !t.dot->lhs_batch.empty());
    EXPECT_EQ(t.window, p.window);
    c.Saw("window", t.window.has_value());
    c.Saw("window lhs_dilate", t.window && std::any_of(t.window->dimensions.begin(), t.window->dimensions.end(),
                                                        [](const ir::WindowDimension& d) { return d.base_dilation > 1; }));
    c.Saw("window rhs_dilate", t.window && std::any_of(t.window->dimensions.begin(), t.window->dimensions.end(),
                                                        [](const ir::WindowDimension& d) { return d.window_dilation > 1; }));
    EXPECT_EQ(t.convolution, p.convolution);
    c.Saw("dim_labels", t.convolution.has_value());
    EXPECT_EQ(t.feature_group_count, p.feature_group_count);
    c.Saw("feature_group_count", t.feature_group_count > 1);
    EXPECT_EQ(t.batch_group_count, p.batch_group_count);
    c.Saw("batch_group_count", t.batch_group_count > 1);
    EXPECT_EQ(t.slice, p.slice);
    c.Saw("slice", !t.slice.empty());
    c.Saw("slice stride", std::any_of(t.slice.begin(), t.slice.end(), [](const ir::SliceDimension& d) { return d.stride != 1; }));
    EXPECT_EQ(t.dynamic_slice_sizes, p.dynamic_slice_sizes);
    c.Saw("dynamic_slice_sizes", !t.dynamic_slice_sizes.empty());
    EXPECT_EQ(t.padding, p.padding);
    c.Saw("padding", !t.padding.empty());
    c.Saw("padding interior", std::any_of(t.padding.begin(), t.padding.end(), [](const ir::PadDimension& d) { return d.interior != 0; }));
    EXPECT_EQ(t.gather, p.gather);
    c.Saw("gather", t.gather.has_value());
    c.Saw("gather batching dims", t.gather && !t.gather->operand_batching_dims.empty());
    EXPECT_EQ(t.gather_slice_sizes, p.gather_slice_sizes);
    c.Saw("slice_sizes", !t.gather_slice_sizes.empty());
    EXPECT_EQ(t.scatter, p.scatter);
    c.Saw("scatter", t.scatter.has_value());
    if (t.replica_groups.iota.has_value() == p.replica_groups.iota.has_value()) {
      EXPECT_EQ(t.replica_groups, p.replica_groups);
    } else {  // the same groups in two forms
      auto tg = t.replica_groups.Groups();
      auto pg = p.replica_groups.Groups();
      ASSERT_TRUE(tg.ok() && pg.ok());
      EXPECT_EQ(*tg, *pg);
    }
    c.Saw("replica_groups", !t.replica_groups.empty());
    EXPECT_EQ(t.channel_id, p.channel_id);
    c.Saw("channel_id", t.channel_id != 0);
    EXPECT_EQ(t.use_global_device_ids, p.use_global_device_ids);
    c.Saw("use_global_device_ids", t.use_global_device_ids);
    EXPECT_EQ(t.source_target_pairs, p.source_target_pairs);
    c.Saw("source_target_pairs", !t.source_target_pairs.empty());
    EXPECT_EQ(Unescaped(t.custom_call_target), p.custom_call_target);
    c.Saw("custom_call_target", !t.custom_call_target.empty());
    EXPECT_EQ(t.fusion_kind, p.fusion_kind);
    c.Saw("fusion kind", !t.fusion_kind.empty());
    EXPECT_EQ(t.comparison_direction, p.comparison_direction);
    c.Saw("comparison direction", !t.comparison_direction.empty());
    // A quoted backend_config is escaped in the text; a braced one is as is.
    const bool quoted = !t.backend_config.empty() && t.backend_config.data()[-1] == '"';
    ExpectSameBackendConfig(quoted ? Unescaped(t.backend_config) : std::string(t.backend_config),
                            p.backend_config);
    c.Saw("backend_config", !t.backend_config.empty());
    ExpectSameFrontendAttributes(t.frontend_attributes, p.frontend_attributes, "instruction");
    // The same sharding, however each form writes its device order.
    EXPECT_EQ(t.sharding.has_value(), p.sharding.has_value());
    if (t.sharding.has_value() && p.sharding.has_value()) {
      auto tc = ir::CanonicalHloSharding(*t.sharding);
      auto pc = ir::CanonicalHloSharding(*p.sharding);
      ASSERT_TRUE(tc.ok() && pc.ok());
      EXPECT_EQ(tc->ToString(), pc->ToString());
    }
    c.Saw("sharding", t.sharding.has_value());
    c.Saw("untyped attributes (text only)", !t.unknown.empty());
  }

  const Module& text_;
  const Module& proto_;
  absl::flat_hash_map<std::string_view, ir::InstructionId> proto_by_name_;
  absl::flat_hash_map<int64_t, std::string> proto_alias_;  // id -> "x#N"
  absl::flat_hash_set<std::string_view> text_names_;
  absl::flat_hash_map<std::string_view, ir::ComputationId> proto_computations_;
};

class HloModuleEquality : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(HloModuleEquality, TextAndProtoGiveTheSameGraph) {
  const CorpusCase& c = GetParam();
  auto text = parsers::SourceText::FromFile(c.text_path);
  ASSERT_TRUE(text.ok()) << text.status();
  ASSERT_TRUE(fs::exists(c.proto_path)) << c.proto_path << " missing beside " << c.text_path;
  std::ifstream in(c.proto_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  xla_subset::HloProto proto;
  ASSERT_TRUE(proto.ParseFromString(bytes)) << c.proto_path;

  Module from_text;
  ir::Diagnostics text_diagnostics;
  ASSERT_TRUE(parsers::ParseHloModuleText(**text, &from_text, &text_diagnostics).ok());
  Module from_proto;
  ir::Diagnostics proto_diagnostics;
  const absl::Status status = parsers::ModuleFromProto(proto.hlo_module(), &from_proto, &proto_diagnostics);
  ASSERT_TRUE(status.ok()) << status;
  // Real XLA output: nothing unknown on either side.
  EXPECT_EQ(text_diagnostics.total(), 0);
  for (const ir::Warning& w : text_diagnostics.warnings()) ADD_FAILURE() << w.kind << " at " << w.first_location;
  EXPECT_EQ(proto_diagnostics.total(), 0);
  Comparison(from_text, from_proto).Run();
}

std::string CaseName(const ::testing::TestParamInfo<CorpusCase>& info) {
  std::string name = info.param.name;
  std::replace_if(name.begin(), name.end(), [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, HloModuleEquality, ::testing::ValuesIn(CorpusCases()), CaseName);

TEST(HloModuleEqualityCorpus, HasEveryCase) {
  // 7 JAX training samples (conv_grad included), 7 samples/hlo cases before
  // and after, 5 GPU-compiled JAX programs (samples/jax_gpu).
  EXPECT_EQ(CorpusCases().size(), 26u);
}

// Runs after the corpus cases (gtest runs suites in definition order within
// a binary unless shuffled; ctest runs each test alone, so it re-reads the
// corpus itself).
TEST(HloModuleEqualityCorpus, CoversEveryTypedAttributeAndCallRole) {
  GlobalCoverage().seen.clear();
  for (const CorpusCase& c : CorpusCases()) {
    auto text = parsers::SourceText::FromFile(c.text_path);
    ASSERT_TRUE(text.ok());
    std::ifstream in(c.proto_path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    xla_subset::HloProto proto;
    ASSERT_TRUE(proto.ParseFromString(bytes));
    Module from_text, from_proto;
    ir::Diagnostics d1, d2;
    ASSERT_TRUE(parsers::ParseHloModuleText(**text, &from_text, &d1).ok());
    ASSERT_TRUE(parsers::ModuleFromProto(proto.hlo_module(), &from_proto, &d2).ok());
    Comparison(from_text, from_proto).Run();
  }
  const std::map<std::string, int64_t>& seen = GlobalCoverage().seen;
  for (const auto& [what, count] : seen) std::cout << "  compared " << what << ": " << count << "\n";
  for (const char* what : {
           "dimensions", "iota_dimension", "parameter_number", "tuple_index", "dot", "dot batch dims",
           "window", "window lhs_dilate", "window rhs_dilate", "dim_labels", "feature_group_count",
           "batch_group_count", "slice", "slice stride", "dynamic_slice_sizes", "padding",
           "padding interior", "gather", "gather batching dims", "slice_sizes", "scatter",
           "replica_groups", "channel_id", "use_global_device_ids", "source_target_pairs",
           "custom_call_target", "fusion kind", "comparison direction", "backend_config",
           "frontend_attributes", "metadata.op_name", "metadata.stack_frame_id", "stack frame",
           "layout", "header.entry_computation_layout", "header.input_output_alias",
           "header.num_partitions>1", "header.is_scheduled", "get-tuple-element printed as x#N",
           "backend_config as JSON"}) {
    EXPECT_GT(seen.count(what) ? seen.at(what) : 0, 0) << what << " never compared";
  }
  using R = ir::CallRole;
  for (R role : {R::kFused, R::kWhileBody, R::kWhileCondition, R::kBranch, R::kToApply, R::kComparator, R::kSelect, R::kScatter,
                 R::kCalled}) {
    const std::string key = StrCat("call role ", static_cast<int>(role));
    EXPECT_GT(seen.count(key) ? seen.at(key) : 0, 0) << key << " never compared";
  }
}

}  // namespace
}  // namespace memplan
