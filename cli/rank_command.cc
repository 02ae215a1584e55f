// memplan rank: loads the program and the hardware, builds the candidates
// (family plans and plan files), ranks them (simulator/rank.h), writes the
// report (viz/rank_report.h) and, on request, the winner's plan file and
// executor plan (executor/candidate_plan.h).
#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/load_or_report.h"
#include "cli/plan_file.h"
#include "cli/predict_options.h"
#include "cli/output_file.h"
#include "cli/rank_commands.h"
#include "executor/candidate_plan.h"
#include "executor/plan_json.h"
#include "ir/entry_arguments.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/load_program.h"
#include "parsers/plan_parser.h"
#include "parsers/plan_writer.h"
#include "parsers/source_text.h"
#include "simulator/hardware_loader.h"
#include "simulator/rank.h"
#include "simulator/units.h"
#include "viz/describe.h"
#include "viz/html_views.h"
#include "viz/rank_report.h"

namespace memplan::cli {
namespace {

constexpr char kDefaultFamilies[] = "dp,fsdp,tp,dp+tp,fsdp+tp";

absl::StatusOr<simulator::PricingOptions> Pricing(const RankFlags& flags,
                                                  const simulator::Hardware& hw) {
  simulator::PricingOptions options;
  const std::optional<simulator::OverlapModel> overlap =
      simulator::OverlapModelFromName(flags.overlap);
  if (!overlap) {
    return absl::InvalidArgumentError(
        StrCat("--overlap=", flags.overlap, ": expected none, full or per-collective"));
  }
  options.overlap = *overlap;
  if (flags.f32_dots == "tf32") {
    options.compute.f32_dot = simulator::Precision::kTf32;
  } else if (flags.f32_dots == "f32") {
    options.compute.f32_dot = simulator::Precision::kF32;
  } else {
    return absl::InvalidArgumentError(StrCat("--f32-dots=", flags.f32_dots, ": expected tf32 or f32"));
  }
  absl::StatusOr<int64_t> per_node = simulator::DevicesPerNode(hw, flags.devices, flags.nodes);
  if (!per_node.ok()) return absl::InvalidArgumentError(StrCat("--nodes: ", FromAbsl(per_node.status().message())));
  options.gpus_per_node = *per_node;
  options.predict = PredictOptionsFor(flags.assigner);
  return options;
}

// The family candidates. Families named on the command line must have their
// inputs; of the default ones, those without are left out with a note.
absl::StatusOr<simulator::Enumeration> Families(const RankFlags& flags,
                                                const std::vector<ir::EntryArgument>& arguments) {
  simulator::Enumeration none;
  if (!flags.families && !flags.plans.empty()) return none;
  const bool named = flags.families.has_value();
  ASSIGN_OR_RETURN(const std::vector<std::string> listed,
                   CommaList("families", named ? *flags.families : std::string(kDefaultFamilies)));
  ASSIGN_OR_RETURN(const ir::FamilyInputs inputs, ReadFamilyInputs(flags.inputs));
  std::vector<std::string> families;
  for (const std::string& family : listed) {
    absl::StatusOr<std::vector<std::string>> axes = analyzer::FamilyAxes(family);
    if (!axes.ok()) return absl::InvalidArgumentError(StrCat("--families: ", FromAbsl(axes.status().message())));
    if (auto missing = MissingFamilyInput(family, *axes, inputs)) {
      if (named) return absl::InvalidArgumentError(*missing);
      PrintError(StrCat("leaving out ", *missing));
      continue;
    }
    families.push_back(family);
  }
  return simulator::EnumerateFamilies(arguments, flags.devices, families, inputs);
}

// A plan file as a candidate (its label: the file name without .plan.yaml,
// .yaml, .yml or .json).
absl::StatusOr<simulator::Candidate> PlanCandidate(const std::string& path,
                                                   const ir::Module& module) {
  simulator::Candidate c;
  c.source = path;
  ASSIGN_OR_RETURN(c.plan, ReadLabelledPlanFile(path, module));
  return c;
}

// The winner's plan file: a family plan written out, a plan file copied.
absl::StatusOr<std::string> PlanText(const simulator::Candidate& c, const simulator::Enumeration& e,
                                     const std::vector<ir::EntryArgument>& arguments,
                                     std::string_view module_name) {
  if (c.source.empty()) {
    ASSIGN_OR_RETURN(const ir::SpecPlan spec, analyzer::BuildFamilyPlan(arguments, c.plan.mesh, e.inputs));
    return parsers::WritePlanYaml(spec, PlanTitle(module_name, c.plan.label));
  }
  ASSIGN_OR_RETURN(auto source, parsers::SourceText::FromFile(c.source));
  return std::string(source->text());
}

// --budget in bytes, or the hardware's memory when not given.
absl::StatusOr<int64_t> Budget(const RankFlags& flags, const simulator::Hardware& hw) {
  if (flags.budget.empty()) return hw.hbm_bytes;
  absl::StatusOr<double> parsed = simulator::ParseQuantity(flags.budget, simulator::Quantity::kBytes);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--budget=", flags.budget, ": ", FromAbsl(parsed.status().message())));
  }
  return static_cast<int64_t>(*parsed);
}

// The families' candidates, then one per --plans file.
absl::StatusOr<simulator::Enumeration> AllCandidates(const RankFlags& flags, const PlannedProgram& planned) {
  ASSIGN_OR_RETURN(simulator::Enumeration enumeration, Families(flags, planned.arguments));
  for (const std::string& path : flags.plans) {
    ASSIGN_OR_RETURN(simulator::Candidate c, PlanCandidate(path, planned.loaded.program.module));
    enumeration.candidates.push_back(std::move(c));
  }
  if (enumeration.candidates.empty() && enumeration.skipped.empty()) {
    return absl::InvalidArgumentError(
        "no candidates: expected --families with their inputs (--data, --tp-plan or "
        "--family-inputs) or --plans");
  }
  return enumeration;
}

// --emit-plan and --emit-executor-plan for the best fitting candidate.
absl::Status EmitWinner(const RankFlags& flags, const simulator::CostModel& model,
                        const simulator::Enumeration& enumeration, const simulator::Ranking& ranking,
                        const std::vector<ir::EntryArgument>& arguments, std::string_view module_name) {
  if (ranking.fitting.empty()) return absl::OkStatus();
  const simulator::RankedCandidate& best = ranking.fitting.front();
  const simulator::Candidate& candidate = enumeration.candidates[static_cast<size_t>(best.index)];
  if (!flags.emit_plan.empty()) {
    ASSIGN_OR_RETURN(std::string text, PlanText(candidate, enumeration, arguments, module_name));
    RETURN_IF_ERROR(WriteOutput(flags.emit_plan, text));
  }
  if (!flags.emit_executor_plan.empty()) {
    // The ranking keeps totals only: price the winner again for its detail.
    ASSIGN_OR_RETURN(simulator::CandidateCost cost, model.Price(candidate.plan));
    ASSIGN_OR_RETURN(
        executor::ExecutorPlan plan,
        executor::PlanFromCandidate(model, cost,
                                    {best.label, StrCat("memplan rank ", flags.path, " --devices ",
                                                        flags.devices, " (", best.label, ")")}));
    RETURN_IF_ERROR(WriteOutput(flags.emit_executor_plan, executor::RenderPlanJson(plan)));
  }
  return absl::OkStatus();
}

}  // namespace

int RunRank(const RankFlags& flags) {
  if (flags.devices < 1) return Fail("expected --devices N with N >= 1");
  absl::StatusOr<simulator::Hardware> hw = simulator::LoadHardware(flags.hw);
  if (!hw.ok()) return Fail(FromAbsl(hw.status().message()));
  absl::StatusOr<int64_t> budget = Budget(flags, *hw);
  if (!budget.ok()) return Fail(std::string(budget.status().message()));
  absl::StatusOr<simulator::PricingOptions> pricing = Pricing(flags, *hw);
  if (!pricing.ok()) return Fail(FromAbsl(pricing.status().message()));
  absl::StatusOr<PlannedProgram> planned = LoadPlannedProgram(flags.path, flags.module, flags.jaxpr);
  if (!planned.ok()) return Fail(FromAbsl(planned.status().message()));
  const parsers::LoadedProgram* loaded = &planned->loaded;
  absl::StatusOr<simulator::Enumeration> enumeration = AllCandidates(flags, *planned);
  if (!enumeration.ok()) return Fail(FromAbsl(enumeration.status().message()));
  absl::StatusOr<std::unique_ptr<simulator::CostModel>> model =
      simulator::CostModel::Create(loaded->program, *hw, *pricing);
  if (!model.ok()) return Fail(StrCat(flags.path, ": ", FromAbsl(model.status().message())));
  absl::StatusOr<simulator::Ranking> ranking =
      simulator::RankCandidates(**model, flags.devices, *budget, enumeration->candidates,
                                std::move(enumeration->skipped));
  if (!ranking.ok()) return Fail(FromAbsl(ranking.status().message()));

  const viz::RankReportInput input{loaded->program.module_name, hw->name, pricing->overlap, *ranking};
  const std::string report = flags.format == RankFormat::kJson   ? viz::RenderRankJson(input)
                             : flags.format == RankFormat::kHtml ? viz::RenderRankHtml(input)
                                                                 : viz::RenderRankText(input);
  if (absl::Status s = EmitWinner(flags, **model, *enumeration, *ranking, planned->arguments,
                                   loaded->program.module.name);
      !s.ok()) {
    return Fail(FromAbsl(s.message()));
  }
  if (absl::Status s = WriteOutput(flags.output, report); !s.ok()) return Fail(FromAbsl(s.message()));
  PrintModuleChoice(*loaded);
  if (ranking->fitting.empty()) {
    PrintError(viz::DescribeNothingFits(*ranking));
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace memplan::cli
