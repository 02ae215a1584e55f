#include <cstdio>

#include "cli/assigner_flag.h"
#include "cli/commands.h"
#include "cli/family_input_flags.h"
#include "cli/jaxpr_rules_flag.h"
#include "cli/rank_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class RankSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    RankFlags flags;
    if (args_.empty()) return kExitBadInput;
    flags.path = args_[0];
    std::optional<std::vector<std::string>> plans = PlanFilesOf("rank", args_, plans_);
    if (!plans) return kExitBadInput;
    flags.plans = std::move(*plans);
    flags.module = module_;
    if (!jaxpr_rules_.Apply(&flags.jaxpr)) return kExitBadInput;
    if (!assigner_.Apply(&flags.assigner)) return kExitBadInput;
    flags.devices = devices_;
    flags.hw = hw_;
    if (nodes_.getNumOccurrences() > 0) flags.nodes = nodes_;
    flags.budget = budget_;
    if (families_.getNumOccurrences() > 0) flags.families = families_;
    flags.inputs = inputs_.Flags();
    flags.overlap = overlap_;
    flags.f32_dots = f32_dots_;
    flags.format = format_;
    flags.output = output_;
    flags.emit_plan = emit_plan_;
    flags.emit_executor_plan = emit_executor_plan_;
    return RunRank(flags);
  }

 private:
  cl::SubCommand command_{"rank",
                          "Sharding candidates of a program on N devices, priced (memory and step "
                          "time) and ranked within the memory budget (docs/cost-model.md)"};
  cl::list<std::string> args_{cl::Positional, cl::OneOrMore, cl::sub(command_),
                              cl::desc("<single-device compile: dump directory, .hlo.pb, or HLO "
                                       "text with its buffer assignment beside it>")};
  cl::opt<int64_t> devices_{"devices", cl::Required, cl::sub(command_), cl::value_desc("N"),
                            cl::desc("Devices to shard over")};
  cl::opt<std::string> hw_{"hw", cl::sub(command_), cl::init("h100"), cl::value_desc("preset|file"),
                           cl::desc("Hardware (docs/hardware.md)")};
  cl::opt<int64_t> nodes_{"nodes", cl::sub(command_), cl::value_desc("K"),
                          cl::desc("Nodes the devices are spread over, evenly (default: as few as "
                                   "hold them, the hardware's GPUs per node each)")};
  cl::opt<std::string> budget_{"budget", cl::sub(command_), cl::value_desc("bytes"),
                               cl::desc("Memory per device, e.g. 80GiB (default: the hardware's HBM)")};
  cl::opt<std::string> families_{"families", cl::sub(command_), cl::value_desc("list"),
                                 cl::desc("Families to enumerate, comma-separated (default: "
                                          "dp,fsdp,tp,dp+tp,fsdp+tp, those with inputs; none "
                                          "with --plans)")};
  FamilyInputOptions inputs_{command_};
  JaxprRulesOption jaxpr_rules_{command_};
  AssignerOption assigner_{command_};
  cl::list<std::string> plans_{"plans", cl::sub(command_), cl::value_desc("file"),
                               cl::desc("Plan files to rank as well (docs/plan-format.md)")};
  cl::opt<std::string> overlap_{"overlap", cl::sub(command_), cl::init("per-collective"),
                                cl::value_desc("none|full|per-collective"),
                                cl::desc("How collectives overlap compute (docs/cost-model.md)")};
  cl::opt<std::string> f32_dots_{"f32-dots", cl::sub(command_), cl::init("tf32"),
                                 cl::value_desc("tf32|f32"), cl::desc("Rate of f32 dots")};
  cl::opt<RankFormat> format_{
      "format", cl::sub(command_), cl::init(RankFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(RankFormat::kText, "text", "aligned text"),
                 clEnumValN(RankFormat::kJson, "json", "JSON (memplan.rank.v1)"),
                 clEnumValN(RankFormat::kHtml, "html", "one self-contained HTML page"))};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module of a dump directory (default: the largest)")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the ranking to <file> (atomically)")};
  cl::opt<std::string> emit_plan_{"emit-plan", cl::sub(command_), cl::value_desc("file"),
                                  cl::desc("Write the chosen candidate's plan file")};
  cl::opt<std::string> emit_executor_plan_{
      "emit-executor-plan", cl::sub(command_), cl::value_desc("file"),
      cl::desc("Write the chosen candidate's executor plan (JSON for memplan validate)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeRankSubcommand() { return std::make_unique<RankSubcommand>(); }

}  // namespace memplan::cli
