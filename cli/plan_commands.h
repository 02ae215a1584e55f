// `memplan plan`: writes a plan file of a standard family for a program.
// Logic in plan_command.cc (analyzer/plan_families.h does the work), flags
// in plan_flags.cc; the format in docs/plan-format.md.
#ifndef MEMPLAN_CLI_PLAN_COMMANDS_H_
#define MEMPLAN_CLI_PLAN_COMMANDS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "cli/family_inputs.h"

namespace memplan::cli {

class Subcommand;
std::unique_ptr<Subcommand> MakePlanSubcommand();

// memplan plan PROGRAM --family F --mesh M [--family-inputs FILE] [--data a,b]
// [--tp-plan FILE] [--ep globs] [--min-fsdp-elements N] [-o FILE]
struct PlanFlags {
  std::string path;                    // the program
  std::string module;                  // for a dump directory
  std::string family;                  // "dp", "fsdp+tp", ...
  std::string mesh;                    // "dp=2,tp=4" or a Mesh repr
  FamilyInputFlags inputs;             // families.yaml and the flags over it
  std::string output = "-";
};

int RunPlan(const PlanFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_PLAN_COMMANDS_H_
