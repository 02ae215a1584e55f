// memplan's command line: flags in, library calls, outputs out.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "cli/executor_commands.h"
#include "cli/plan_commands.h"
#include "cli/rank_commands.h"
#include "cli/subcommand.h"
#include "ir/malloc_settings.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

namespace {

constexpr const char* kVersion = "memplan 0.1.0";

constexpr const char* kOverview =
    "memplan: memory planning for sharded ML programs\n\n"
    "  memplan analyze PATH   read an XLA buffer assignment (file or --xla_dump_to\n"
    "                         directory) and report bytes per category, the live\n"
    "                         peak and what is live there\n"
    "  memplan report PATH    the same as one self-contained HTML page (-o FILE):\n"
    "                         timeline, allocation maps, tables, attribution\n"
    "  memplan check PATH     exit 1 when over --budget or grown vs --baseline (CI)\n"
    "  memplan diff OLD NEW   what changed: categories and values, by bytes\n"
    "  memplan hw list|show   hardware presets (GPU, HBM, NVLink, network) as YAML\n"
    "  memplan calibrate FILE fit collective costs to nccl-tests output (-o links.yaml)\n"
    "  memplan cost PROGRAM   FLOPs, bytes accessed and compute time per device\n"
    "  memplan modules DIR    every module of a dump: instructions, total, peak, temp\n"
    "  memplan calltree FILE  a call tree or profiler trace: calls per function,\n"
    "                         repeated subtrees, call graph, memory peak and stack\n"
    "  memplan validate PLAN  replay a plan (or a dump) on GPUs or the host and\n"
    "                         compare measured peak memory and times with it\n"
    "  memplan bench-collectives\n"
    "                         nccl-tests-style sweep of collective sizes\n"
    "  memplan shard          one array under a mesh and a sharding in any notation:\n"
    "                         its HloSharding and every device's shard and bytes\n"
    "  memplan predict PROGRAM --plan PLAN\n"
    "                         per-device memory under a sharding plan, from one\n"
    "                         single-device compile\n"
    "  memplan plan PROGRAM   write a plan file of a sharding family (--family\n"
    "                         dp|fsdp|tp|ep|dp+tp|fsdp+tp|dp+ep --mesh dp=2,tp=4)\n"
    "  memplan rank PROGRAM --devices N\n"
    "                         every family sharding on N devices priced (memory,\n"
    "                         step time) and ranked within the memory budget\n\n"
    "Exit codes: 0 ok, 1 a check failed, 2 bad input or usage.\n";

// A subcommand's --help shows its own options under this one line, not the
// list of every subcommand.
constexpr const char* kSubcommandOverview =
    "memplan: memory planning for sharded ML programs ('memplan --help' lists the "
    "subcommands)\n";

// True when the first argument names a registered subcommand.
bool NamesSubcommand(int argc, char** argv) {
  if (argc < 2) return false;
  for (llvm::cl::SubCommand* sub : llvm::cl::getRegisteredSubcommands()) {
    if (!sub->getName().empty() && sub->getName() == argv[1]) return true;
  }
  return false;
}

// When the first argument names no subcommand (and is no option), says so
// with the nearest subcommand's name and returns true.
bool RejectUnknownSubcommand(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return false;
  const llvm::StringRef given(argv[1]);
  llvm::StringRef nearest;
  unsigned best = ~0u;
  for (llvm::cl::SubCommand* sub : llvm::cl::getRegisteredSubcommands()) {
    const llvm::StringRef name = sub->getName();
    if (name.empty()) continue;  // the top level
    if (name == given) return false;
    const unsigned distance = given.edit_distance(name, /*AllowReplacements=*/true);
    if (distance < best) {
      best = distance;
      nearest = name;
    }
  }
  std::fprintf(stderr, "memplan: '%s' is not a subcommand", argv[1]);
  if (!nearest.empty() && best <= std::max<size_t>(2, given.size() / 3)) {
    std::fprintf(stderr, "; did you mean '%.*s'?", static_cast<int>(nearest.size()),
                 nearest.data());
  }
  std::fprintf(stderr, " (see 'memplan --help')\n");
  return true;
}

int Main(int argc, char** argv) {
  using namespace memplan::cli;
  std::vector<std::unique_ptr<Subcommand>> subcommands;
  subcommands.push_back(MakeAnalyzeSubcommand());
  subcommands.push_back(MakeReportSubcommand());
  subcommands.push_back(MakeCheckSubcommand());
  subcommands.push_back(MakeDiffSubcommand());
  subcommands.push_back(MakeHwSubcommand());
  subcommands.push_back(MakeCalibrateSubcommand());
  subcommands.push_back(MakeCostSubcommand());
  subcommands.push_back(MakeModulesSubcommand());
  subcommands.push_back(MakeCalltreeSubcommand());
  subcommands.push_back(MakeValidateSubcommand());
  subcommands.push_back(MakeBenchCollectivesSubcommand());
  subcommands.push_back(MakeShardSubcommand());
  subcommands.push_back(MakePredictSubcommand());
  subcommands.push_back(MakePlanSubcommand());
  subcommands.push_back(MakeRankSubcommand());

  if (RejectUnknownSubcommand(argc, argv)) return kExitBadInput;
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream& os) { os << kVersion << "\n"; });
  const char* overview = NamesSubcommand(argc, argv) ? kSubcommandOverview : kOverview;
  if (!llvm::cl::ParseCommandLineOptions(argc, argv, overview, &llvm::errs())) {
    return kExitBadInput;
  }
  for (const auto& subcommand : subcommands) {
    if (subcommand->Selected()) return subcommand->Run();
  }
  std::fprintf(stderr, "memplan: expected a subcommand; see 'memplan --help'\n");
  return kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  memplan::ir::UseFixedMmapThreshold();  // see ir/malloc_settings.h
  return Main(argc, argv);
}
