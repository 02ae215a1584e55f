#include "cli/simulator_commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class CalibrateSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    CalibrateFlags flags;
    flags.inputs.assign(inputs_.begin(), inputs_.end());
    flags.output = output_;
    flags.hw = hw_;
    flags.collective = collective_;
    flags.min_bytes = min_bytes_;
    flags.max_bytes = max_bytes_;
    flags.in_place = in_place_;
    flags.format = format_;
    flags.report = report_;
    return RunCalibrate(flags);
  }

 private:
  cl::SubCommand command_{
      "calibrate",
      "Fit alpha and bandwidth per link and collective to nccl-tests output or memplan "
      "bench-collectives JSON; -o writes a hardware file for --hw (docs/cost-model.md)"};
  cl::list<std::string> inputs_{cl::Positional, cl::OneOrMore, cl::sub(command_),
                                cl::desc("<nccl-tests output (text or -J JSON), or "
                                         "memplan.collectives.v1 JSON>...")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::value_desc("links.yaml"),
                               cl::desc("Write the calibrated hardware file (YAML, atomically): "
                                        "it extends the base hardware")};
  cl::opt<std::string> hw_{"hw", cl::sub(command_), cl::value_desc("preset|file"),
                           cl::desc("Base hardware (default: recognised from the device names "
                                    "in the input)")};
  cl::opt<std::string> collective_{
      "collective", cl::sub(command_), cl::value_desc("name"),
      cl::desc("The collective of tables that do not name it (nccl-tests before 2.17): "
               "all_reduce, all_gather, reduce_scatter, all_to_all, send_recv, broadcast, "
               "reduce")};
  cl::opt<std::string> min_bytes_{"min-bytes", cl::sub(command_), cl::value_desc("bytes"),
                                  cl::desc("Fit only rows of at least this size (e.g. 1MiB)")};
  cl::opt<std::string> max_bytes_{"max-bytes", cl::sub(command_), cl::value_desc("bytes"),
                                  cl::desc("Fit only rows of at most this size")};
  cl::opt<bool> in_place_{"in-place", cl::sub(command_),
                          cl::desc("Fit in-place rows too (default: out-of-place only)")};
  cl::opt<CalibrateFormat> format_{
      "format", cl::sub(command_), cl::init(CalibrateFormat::kText), cl::desc("Report format"),
      cl::values(clEnumValN(CalibrateFormat::kText, "text", "aligned text"),
                 clEnumValN(CalibrateFormat::kJson, "json",
                            "JSON (memplan.calibration.v1, docs/cost-model.md)"))};
  cl::opt<std::string> report_{"report", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the report to <file> instead of stdout")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeCalibrateSubcommand() {
  return std::make_unique<CalibrateSubcommand>();
}

}  // namespace memplan::cli
