// memplan predict --plans/--family: builds the candidates (plan files,
// family plans on the given meshes or on every mesh of N devices), predicts
// them with one Predictor (predictor/sweep.h) and writes one table ordered
// by predicted footprint (viz/predict_sweep_report.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/memory_stats.h"
#include "analyzer/plan_families.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/output_file.h"
#include "cli/plan_file.h"
#include "cli/predict_commands.h"
#include "cli/predict_options.h"
#include "ir/entry_arguments.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"
#include "predictor/sweep.h"
#include "simulator/rank.h"
#include "viz/describe.h"
#include "viz/predict_sweep_report.h"

namespace memplan::cli {
namespace {

using parsers::SourceText;

struct Candidates {
  std::vector<predictor::SweepCandidate> predict;
  std::vector<simulator::SkippedCandidate> skipped;
};

// A plan file as a candidate, labelled by its file name without .plan.yaml,
// .yaml, .yml or .json.
absl::StatusOr<predictor::SweepCandidate> PlanFileCandidate(const std::string& path,
                                                           const ir::Module& module) {
  predictor::SweepCandidate c;
  c.source = path;
  ASSIGN_OR_RETURN(c.plan, ReadLabelledPlanFile(path, module));
  return c;
}

// Each family on every --mesh with its axes; a family no mesh fits is an
// error, a mesh the family rules cannot shard the program on is skipped.
absl::Status FamiliesOnMeshes(const PredictSweepFlags& flags, const std::vector<std::string>& families,
                              const ir::FamilyInputs& inputs,
                              const std::vector<ir::EntryArgument>& arguments, Candidates* out) {
  std::vector<ir::Mesh> meshes;
  for (const std::string& text : flags.meshes) {
    ASSIGN_OR_RETURN(parsers::ParsedMesh mesh,
                     parsers::ParseMeshText(*SourceText::FromString("--mesh", text)));
    meshes.push_back(std::move(mesh.mesh));
  }
  for (const std::string& family : families) {
    ASSIGN_OR_RETURN(const std::vector<std::string> axes, analyzer::FamilyAxes(family));
    bool fitted = false;
    for (const ir::Mesh& mesh : meshes) {
      if (!analyzer::CheckFamilyMesh(axes, mesh).ok()) continue;
      fitted = true;
      absl::StatusOr<ir::SpecPlan> spec = analyzer::BuildFamilyPlan(arguments, mesh, inputs);
      if (!spec.ok()) {
        simulator::SkippedCandidate skip;
        skip.label = analyzer::FamilyLabel(mesh);
        skip.family = family;
        skip.reason = simulator::SkipReason::kFamilyRule;
        skip.detail = FromAbsl(spec.status().message());
        out->skipped.push_back(std::move(skip));
        continue;
      }
      predictor::SweepCandidate c;
      c.family = family;
      ASSIGN_OR_RETURN(c.plan, analyzer::LowerSpecPlan(*spec));
      out->predict.push_back(std::move(c));
    }
    if (!fitted) {
      return absl::InvalidArgumentError(
          StrCat("--family ", family, ": no --mesh has exactly its axes (",
                 [&] {
                   std::string s;
                   for (size_t i = 0; i < axes.size(); ++i) StrAppend(&s, i ? ", " : "", axes[i]);
                   return s;
                 }(),
                 ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Candidates> BuildCandidates(const PredictSweepFlags& flags, const ir::Module& module,
                                           const std::vector<ir::EntryArgument>& arguments) {
  Candidates out;
  if (flags.families) {
    ASSIGN_OR_RETURN(const std::vector<std::string> families, CommaList("family", *flags.families));
    ASSIGN_OR_RETURN(const ir::FamilyInputs inputs, ReadFamilyInputs(flags.inputs));
    for (const std::string& family : families) {
      absl::StatusOr<std::vector<std::string>> axes = analyzer::FamilyAxes(family);
      if (!axes.ok()) return absl::InvalidArgumentError(StrCat("--family: ", FromAbsl(axes.status().message())));
      if (auto missing = MissingFamilyInput(family, *axes, inputs)) {
        return absl::InvalidArgumentError(*missing);
      }
    }
    if (flags.devices) {
      ASSIGN_OR_RETURN(simulator::Enumeration e,
                       simulator::EnumerateFamilies(arguments, *flags.devices, families, inputs));
      for (simulator::Candidate& c : e.candidates) {
        out.predict.push_back({c.family, c.source, std::move(c.plan)});
      }
      out.skipped = std::move(e.skipped);
    } else {
      RETURN_IF_ERROR(FamiliesOnMeshes(flags, families, inputs, arguments, &out));
    }
  }
  for (const std::string& path : flags.plans) {
    ASSIGN_OR_RETURN(predictor::SweepCandidate c, PlanFileCandidate(path, module));
    out.predict.push_back(std::move(c));
  }
  return out;
}

// The flag combinations a sweep needs; empty when they are right.
std::string CheckSweepFlags(const PredictSweepFlags& flags) {
  if (!flags.families && (!flags.meshes.empty() || flags.devices)) {
    return "--mesh and --devices choose the meshes of --family; expected --family";
  }
  if (!flags.families && flags.plans.empty()) {
    return "expected --plan PLAN, --plans A.yaml B.yaml ..., or --family with --mesh or --devices";
  }
  if (flags.families && flags.meshes.empty() && !flags.devices) {
    return "--family needs --mesh (such as fsdp=8; repeat it for several) or --devices N";
  }
  if (flags.families && !flags.meshes.empty() && flags.devices) {
    return "--mesh and --devices exclude each other: give the meshes or their device count";
  }
  if (flags.devices && *flags.devices < 1) return "--devices: expected N >= 1";
  return "";
}

}  // namespace

int RunPredictSweep(const PredictSweepFlags& flags) {
  if (std::string bad = CheckSweepFlags(flags); !bad.empty()) return Fail(bad);
  absl::StatusOr<PlannedProgram> planned = LoadPlannedProgram(flags.path, flags.module, flags.jaxpr);
  if (!planned.ok()) return Fail(FromAbsl(planned.status().message()));
  const parsers::LoadedProgram* loaded = &planned->loaded;
  const ir::Module& module = loaded->program.module;
  absl::StatusOr<Candidates> candidates = BuildCandidates(flags, module, planned->arguments);
  if (!candidates.ok()) return Fail(FromAbsl(candidates.status().message()));
  auto predictor = predictor::Predictor::Create(loaded->program, PredictOptionsFor(flags.assigner));
  if (!predictor.ok()) return Fail(StrCat(flags.path, ": ", FromAbsl(predictor.status().message())));
  absl::StatusOr<std::vector<predictor::SweepRow>> rows =
      predictor::PredictSweep(**predictor, candidates->predict);
  if (!rows.ok()) return Fail(FromAbsl(rows.status().message()));
  const viz::PredictSweepInput input{loaded->program.module_name,
                                     analyzer::ComputeMemoryStats(loaded->program), *rows,
                                     candidates->skipped};
  const std::string report = flags.format == PredictFormat::kJson
                                 ? viz::RenderPredictSweepJson(input)
                                 : viz::RenderPredictSweepText(input);
  if (absl::Status s = WriteOutput(flags.output, report); !s.ok()) return Fail(FromAbsl(s.message()));
  PrintModuleChoice(*loaded);
  return kExitOk;
}

}  // namespace memplan::cli
