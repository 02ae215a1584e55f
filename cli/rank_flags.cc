#include <cstdio>

#include "cli/commands.h"
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
    // `--plans A.yaml B.yaml`: the files after the first go to the positionals.
    if (args_.empty()) return kExitBadInput;
    flags.path = args_[0];
    flags.plans.assign(plans_.begin(), plans_.end());
    if (args_.size() > 1) {
      if (plans_.empty()) {
        std::fprintf(stderr, "memplan rank: unexpected argument '%s'; expected one PROGRAM (plan "
                             "files follow --plans)\n", args_[1].c_str());
        return kExitBadInput;
      }
      flags.plans.insert(flags.plans.end(), args_.begin() + 1, args_.end());
    }
    flags.module = module_;
    flags.devices = devices_;
    flags.hw = hw_;
    if (nodes_.getNumOccurrences() > 0) flags.nodes = nodes_;
    flags.budget = budget_;
    if (families_.getNumOccurrences() > 0) flags.families = families_;
    flags.inputs.families_file = family_inputs_;
    if (data_.getNumOccurrences() > 0) flags.inputs.data = data_;
    if (ep_.getNumOccurrences() > 0) flags.inputs.ep = ep_;
    flags.inputs.tp_plan = tp_plan_;
    if (min_fsdp_elements_.getNumOccurrences() > 0) {
      flags.inputs.min_fsdp_elements = min_fsdp_elements_;
    }
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
  cl::opt<std::string> family_inputs_{"family-inputs", cl::sub(command_), cl::value_desc("file"),
                                      cl::desc("Family inputs (families.yaml: data, "
                                               "min_fsdp_elements, tp, ep)")};
  cl::opt<std::string> data_{"data", cl::sub(command_), cl::value_desc("names"),
                             cl::desc("Data arguments (top-level names), sharded on their leading "
                                      "dimension by dp and fsdp")};
  cl::opt<std::string> tp_plan_{"tp-plan", cl::sub(command_), cl::value_desc("file"),
                                cl::desc("Tensor-parallel plan: a YAML/JSON mapping glob -> "
                                         "colwise | rowwise | sequence")};
  cl::opt<std::string> ep_{"ep", cl::sub(command_), cl::value_desc("globs"),
                           cl::desc("Expert parameters (globs), sharded on dimension 0 over ep")};
  cl::opt<int64_t> min_fsdp_elements_{"min-fsdp-elements", cl::sub(command_), cl::value_desc("N"),
                                      cl::desc("fsdp shards parameters of at least N elements")};
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
