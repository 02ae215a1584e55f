// memplan predict: per-device memory under a sharding plan.
//
// The plan: until the plan-file parser (docs/plan-format.md) is merged,
// --plan reads a candidate record of the sharded corpus
// (samples/sharded/*/candidates/*.truth.json): its `mesh` and each input's
// `hlo_sharding`, by parameter number.
#include <cstdio>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/load_program.h"
#include "predictor/predict.h"
#include "viz/describe.h"
#include "viz/predict_report.h"

namespace memplan::cli {
namespace {

int Fail(std::string_view message) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(message.size()), message.data());
  return kExitBadInput;
}

absl::Status PlanError(const std::string& path, std::string_view what) {
  return absl::InvalidArgumentError(ToAbsl(StrCat(path, ": ", what)));
}

// A candidate record: {"mesh": {"axis_names", "shape", "devices"},
// "inputs": [{"parameter", "name", "hlo_sharding"}]}.
absl::StatusOr<ir::ResolvedPlan> ReadCandidatePlan(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return PlanError(path, StrCat("cannot read: ", buffer.getError().message()));
  llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json) return PlanError(path, llvm::toString(json.takeError()));
  const llvm::json::Object* root = json->getAsObject();
  const llvm::json::Object* mesh = root ? root->getObject("mesh") : nullptr;
  const llvm::json::Array* inputs = root ? root->getArray("inputs") : nullptr;
  const llvm::json::Array* names = mesh ? mesh->getArray("axis_names") : nullptr;
  const llvm::json::Array* shape = mesh ? mesh->getArray("shape") : nullptr;
  if (!inputs || !names || !shape || names->size() != shape->size()) {
    return PlanError(path, "expected an object with mesh {axis_names, shape} and inputs[]");
  }
  ir::ResolvedPlan plan;
  plan.label = llvm::sys::path::stem(llvm::sys::path::stem(path)).str();
  for (size_t a = 0; a < names->size(); ++a) {
    auto name = (*names)[a].getAsString();
    auto size = (*shape)[a].getAsInteger();
    if (!name || !size) return PlanError(path, "expected mesh axis names and sizes");
    plan.mesh.axes.push_back({name->str(), *size});
  }
  if (const llvm::json::Array* devices = mesh->getArray("devices")) {
    std::vector<int64_t> ids;
    bool iota = true;
    for (const auto& d : *devices) {
      ids.push_back(d.getAsInteger().getValueOr(-1));
      iota &= ids.back() == static_cast<int64_t>(ids.size() - 1);
    }
    if (!iota) {
      plan.mesh.order = ir::Mesh::DeviceOrder::kList;
      plan.mesh.device_list = std::move(ids);
    }
  }
  if (absl::Status s = plan.mesh.Validate(); !s.ok()) return PlanError(path, FromAbsl(s.message()));
  for (const auto& input : *inputs) {
    const llvm::json::Object* in = input.getAsObject();
    auto sharding = in ? in->getString("hlo_sharding") : llvm::None;
    auto parameter = in ? in->getInteger("parameter") : llvm::None;
    if (!sharding || !parameter || *parameter != static_cast<int64_t>(plan.arguments.size())) {
      return PlanError(path, "expected inputs in parameter order with hlo_sharding");
    }
    size_t consumed = 0;
    absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(
        std::string_view(sharding->data(), sharding->size()), &consumed);
    if (!s.ok()) return PlanError(path, StrCat("input ", *parameter, ": ", FromAbsl(s.status().message())));
    ir::ArgumentPlan arg;
    arg.parameter = *parameter;
    arg.name = in->getString("name").getValueOr("").str();
    arg.sharding = *std::move(s);
    arg.source = ir::PlanSource::kKey;
    plan.arguments.push_back(std::move(arg));
  }
  return plan;
}

}  // namespace

int RunPredict(const PredictFlags& flags) {
  absl::StatusOr<ir::ResolvedPlan> plan = ReadCandidatePlan(flags.plan);
  if (!plan.ok()) return Fail(FromAbsl(plan.status().message()));
  parsers::LoadOptions load;
  load.module = flags.module;
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(flags.path, load);
  if (!loaded.ok()) return Fail(FromAbsl(loaded.status().message()));
  auto predictor = predictor::Predictor::Create(loaded->program);
  if (!predictor.ok()) return Fail(StrCat(flags.path, ": ", FromAbsl(predictor.status().message())));
  absl::StatusOr<predictor::Prediction> prediction = (*predictor)->Predict(*plan);
  if (!prediction.ok()) {
    return Fail(StrCat(flags.plan, ": ", FromAbsl(prediction.status().message())));
  }
  const viz::PredictReportInput input{loaded->program.module, loaded->program.module_name,
                                      *prediction};
  const std::string report = flags.format == PredictFormat::kJson ? viz::RenderPredictJson(input)
                                                                   : viz::RenderPredictText(input);
  if (absl::Status s = WriteOutput(flags.output, report); !s.ok()) {
    return Fail(FromAbsl(s.message()));
  }
  if (loaded->choice) {
    std::fprintf(stderr, "memplan: %s (--module picks another)\n",
                 viz::DescribeModuleChoice(*loaded).c_str());
  }
  return kExitOk;
}

}  // namespace memplan::cli
