// Plan files and plan families against the sharded corpus (samples/sharded):
// every candidate's plan resolves to the HloSharding JAX gave each input
// (`inputs[].hlo_sharding` in its truth.json, from compiled.input_shardings)
// with the shard bytes the partitioned module takes; and `plan --family`
// with the program's families.yaml rebuilds every candidate plan, byte for
// byte, resolving to the same shardings.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "gtest/gtest.h"
#include "ir/entry_arguments.h"
#include "ir/sharding.h"
#include "llvm/Support/JSON.h"
#include "parsers/family_inputs_parser.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "parsers/plan_writer.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

namespace fs = std::filesystem;
using parsers::SourceText;

struct Program {
  std::string name;  // directory name
  std::string dir;
  std::vector<ir::EntryArgument> arguments;
  std::vector<ir::Shape> outputs;
  std::vector<std::string> candidates;  // sorted
};

std::vector<Program> LoadCorpus() {
  std::vector<Program> out;
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& entry : fs::directory_iterator(test::SourcePath("samples/sharded"))) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    Program program;
    program.name = dir.filename().string();
    program.dir = dir.string();
    std::string pb;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (entry.path().string().ends_with(".hlo.pb")) pb = entry.path().string();
    }
    EXPECT_FALSE(pb.empty()) << dir;
    absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(pb, {});
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok()) continue;
    absl::StatusOr<std::vector<ir::EntryArgument>> arguments = ir::EntryArguments(loaded->program.module);
    EXPECT_TRUE(arguments.ok()) << arguments.status();
    if (!arguments.ok()) continue;
    program.arguments = *arguments;
    program.outputs = ir::EntryOutputs(loaded->program.module);
    for (const fs::directory_entry& entry : fs::directory_iterator(dir / "candidates")) {
      const std::string file = entry.path().filename().string();
      if (file.ends_with(".plan.yaml")) program.candidates.push_back(file.substr(0, file.size() - 10));
    }
    std::sort(program.candidates.begin(), program.candidates.end());
    out.push_back(std::move(program));
  }
  return out;
}

const std::vector<Program>& Corpus() {
  static const auto* corpus = new std::vector<Program>(LoadCorpus());
  return *corpus;
}

llvm::json::Value ReadJson(const std::string& path) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(test::ReadFileOrDie(path));
  if (!value) {
    ADD_FAILURE() << path << ": " << llvm::toString(value.takeError());
    return llvm::json::Value(nullptr);
  }
  return std::move(*value);
}

// Bytes of one device's shard of `shape` under `sharding` (even shards).
int64_t ShardBytes(const ir::Shape& shape, const ir::HloSharding& sharding) {
  int64_t bytes = ir::ByteSizeOf(shape);
  if (sharding.kind != ir::HloSharding::Kind::kTiled) return bytes;
  for (int64_t d = 0; d < sharding.TiledDataRank(); ++d) bytes /= sharding.tiles.dims[d];
  return bytes;
}

ir::HloSharding Canonical(const std::string& text) {
  absl::StatusOr<ir::HloSharding> parsed =
      parsers::ParseHloShardingText(*SourceText::FromString("truth", text));
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  if (!parsed.ok()) return {};
  absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(*parsed);
  EXPECT_TRUE(canonical.ok()) << canonical.status();
  return canonical.ok() ? *canonical : ir::HloSharding{};
}

// Checks `plan` against the candidate's truth: the mesh, each input's name,
// HloSharding and shard bytes, donation.
void ExpectMatchesTruth(const Program& program, const std::string& candidate, const ir::ResolvedPlan& plan) {
  const std::string path = program.dir + "/candidates/" + candidate + ".truth.json";
  const llvm::json::Value truth = ReadJson(path);
  const llvm::json::Object* object = truth.getAsObject();
  ASSERT_NE(object, nullptr) << path;
  const llvm::json::Object* mesh = object->getObject("mesh");
  ASSERT_NE(mesh, nullptr);
  const llvm::json::Array* names = mesh->getArray("axis_names");
  const llvm::json::Array* sizes = mesh->getArray("shape");
  ASSERT_TRUE(names && sizes);
  ASSERT_EQ(plan.mesh.axes.size(), names->size()) << path;
  for (size_t i = 0; i < names->size(); ++i) {
    EXPECT_EQ(plan.mesh.axes[i].name, (*names)[i].getAsString().getValueOr("")) << path;
    EXPECT_EQ(plan.mesh.axes[i].size, (*sizes)[i].getAsInteger().getValueOr(-1)) << path;
  }
  const llvm::json::Array* inputs = object->getArray("inputs");
  ASSERT_NE(inputs, nullptr);
  ASSERT_EQ(inputs->size(), plan.arguments.size()) << path;
  // Donation: the leaves of the Python arguments the program donated
  // (truth.json's donated_arguments, top-level names).
  std::vector<std::string> donated_tops;
  const llvm::json::Value program_truth = ReadJson(program.dir + "/truth.json");
  if (const llvm::json::Array* tops = program_truth.getAsObject()->getArray("donated_arguments")) {
    for (const llvm::json::Value& top : *tops) donated_tops.push_back(top.getAsString().getValueOr("").str());
  }
  for (const llvm::json::Value& input_value : *inputs) {
    const llvm::json::Object* input = input_value.getAsObject();
    const int64_t p = input->getInteger("parameter").getValueOr(-1);
    ASSERT_TRUE(p >= 0 && p < static_cast<int64_t>(plan.arguments.size())) << path;
    const ir::ArgumentPlan& argument = plan.arguments[p];
    const ir::HloSharding& sharding = plan.ArgumentSharding(static_cast<size_t>(p));
    EXPECT_EQ(plan.ArgumentName(static_cast<size_t>(p)), input->getString("name").getValueOr("").str()) << path << " parameter " << p;
    const ir::HloSharding want = Canonical(input->getString("hlo_sharding").getValueOr("").str());
    EXPECT_EQ(sharding, want) << path << " parameter " << p << ": resolved "
                              << sharding.ToString() << ", truth " << want.ToString();
    EXPECT_EQ(ShardBytes(program.arguments[p].shape, sharding),
              input->getInteger("shard_bytes").getValueOr(-1))
        << path << " parameter " << p;
    const std::string top(ir::PytreeTop(plan.ArgumentName(static_cast<size_t>(p))));
    EXPECT_EQ(argument.donated,
              std::find(donated_tops.begin(), donated_tops.end(), top) != donated_tops.end())
        << path << " parameter " << p;
  }
}

TEST(PlanCorpus, EveryCandidatePlanResolvesToTheShardingsJaxGave) {
  int checked = 0;
  for (const Program& program : Corpus()) {
    for (const std::string& candidate : program.candidates) {
      SCOPED_TRACE(program.name + "/" + candidate);
      absl::StatusOr<std::shared_ptr<const SourceText>> source =
          SourceText::FromFile(program.dir + "/candidates/" + candidate + ".plan.yaml");
      ASSERT_TRUE(source.ok()) << source.status();
      absl::StatusOr<parsers::PlanFile> plan = parsers::ParsePlan(*source);
      ASSERT_TRUE(plan.ok()) << plan.status();
      absl::StatusOr<ir::ResolvedPlan> resolved =
          parsers::ResolvePlan(*plan, program.arguments, program.outputs);
      ASSERT_TRUE(resolved.ok()) << resolved.status();
      EXPECT_EQ(resolved->unmatched_arguments, 0);  // the corpus lists every argument
      EXPECT_EQ(resolved->label, candidate);
      ExpectMatchesTruth(program, candidate, *resolved);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 38);  // 6 programs x 6 candidates + MoE's ep8 and dp2_ep4
}

TEST(PlanCorpus, FamiliesRebuildEveryCandidatePlan) {
  int checked = 0;
  for (const Program& program : Corpus()) {
    absl::StatusOr<std::shared_ptr<const SourceText>> families =
        SourceText::FromFile(program.dir + "/families.yaml");
    ASSERT_TRUE(families.ok()) << families.status();
    absl::StatusOr<ir::FamilyInputs> inputs = parsers::ParseFamilyInputs(*families);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    for (const std::string& candidate : program.candidates) {
      SCOPED_TRACE(program.name + "/" + candidate);
      // The mesh from the candidate's truth, the family from its axis names.
      const llvm::json::Value truth = ReadJson(program.dir + "/candidates/" + candidate + ".truth.json");
      const llvm::json::Object* mesh_json = truth.getAsObject()->getObject("mesh");
      ir::Mesh mesh;
      std::string family;
      for (size_t i = 0; i < mesh_json->getArray("axis_names")->size(); ++i) {
        const std::string axis = (*mesh_json->getArray("axis_names"))[i].getAsString()->str();
        mesh.axes.push_back({axis, *(*mesh_json->getArray("shape"))[i].getAsInteger()});
        family += (family.empty() ? "" : "+") + axis;
      }
      absl::StatusOr<std::vector<std::string>> axes = analyzer::FamilyAxes(family);
      ASSERT_TRUE(axes.ok()) << axes.status();
      ASSERT_TRUE(analyzer::CheckFamilyMesh(*axes, mesh).ok());
      absl::StatusOr<ir::SpecPlan> plan = analyzer::BuildFamilyPlan(program.arguments, mesh, *inputs);
      ASSERT_TRUE(plan.ok()) << plan.status();
      EXPECT_EQ(plan->label, candidate);
      const std::string text = parsers::WritePlanYaml(*plan, program.name + " under " + candidate);
      const std::string corpus_path = program.dir + "/candidates/" + candidate + ".plan.yaml";
      EXPECT_EQ(text, test::ReadFileOrDie(corpus_path));
      absl::StatusOr<parsers::PlanFile> parsed =
          parsers::ParsePlan(SourceText::FromString(candidate + ".plan.yaml", text));
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      absl::StatusOr<ir::ResolvedPlan> resolved =
          parsers::ResolvePlan(*parsed, program.arguments, program.outputs);
      ASSERT_TRUE(resolved.ok()) << resolved.status();
      ExpectMatchesTruth(program, candidate, *resolved);
      // Lowered directly, the family plan gives the same shardings.
      absl::StatusOr<ir::ResolvedPlan> direct = analyzer::LowerSpecPlan(*plan);
      ASSERT_TRUE(direct.ok()) << direct.status();
      ASSERT_EQ(direct->arguments.size(), resolved->arguments.size());
      for (size_t i = 0; i < direct->arguments.size(); ++i) {
        EXPECT_EQ(direct->ArgumentSharding(i), resolved->ArgumentSharding(i)) << i;
        EXPECT_EQ(direct->arguments[i].donated, resolved->arguments[i].donated) << i;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 38);
}

}  // namespace
}  // namespace memplan
