// `memplan rank`: sharding candidates priced and ranked within a memory
// budget. Logic in rank_command.cc (simulator/rank.h does the work), flags
// in rank_flags.cc; the rules in docs/cost-model.md ("Ranking").
#ifndef MEMPLAN_CLI_RANK_COMMANDS_H_
#define MEMPLAN_CLI_RANK_COMMANDS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/family_inputs.h"
#include "ir/jaxpr_program.h"

namespace memplan::cli {

class Subcommand;
std::unique_ptr<Subcommand> MakeRankSubcommand();

enum class RankFormat { kText, kJson, kHtml };

// memplan rank PROGRAM --devices N [--hw NAME|FILE] [--nodes K]
// [--budget BYTES] [--families LIST] [--family-inputs FILE] [--data a,b]
// [--tp-plan FILE] [--plans A.yaml B.yaml ...] [--overlap MODEL]
// [--format=text|json|html] [-o FILE] [--emit-plan FILE]
// [--emit-executor-plan FILE]
struct RankFlags {
  std::string path;
  std::string module;
  ir::JaxprProgramOptions jaxpr;  // --jaxpr-rules, for a jaxpr PROGRAM
  Assigner assigner = Assigner::kRerun;
  int64_t devices = 0;
  std::string hw = "h100";
  std::optional<int64_t> nodes;
  std::string budget;  // "80GiB"; empty: the hardware's HBM
  // "dp,fsdp+tp"; nullopt: the default families, those whose inputs are
  // given (or none when plan files are given).
  std::optional<std::string> families;
  FamilyInputFlags inputs;
  std::vector<std::string> plans;  // plan files
  std::string overlap = "per-collective";
  std::string f32_dots = "tf32";
  RankFormat format = RankFormat::kText;
  std::string output = "-";
  std::string emit_plan;           // the winner's plan file; empty: none
  // The winner's executor plan (memplan.executor-plan.v1); empty: none.
  std::string emit_executor_plan;
};

int RunRank(const RankFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_RANK_COMMANDS_H_
