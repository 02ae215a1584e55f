#include <cstdio>

#include "cli/commands.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class AnalyzeSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    AnalyzeFlags flags;
    flags.path = path_;
    flags.module = module_;
    flags.format = format_;
    flags.output = output_;
    flags.top = top_;
    flags.top_given = top_.getNumOccurrences() > 0;
    flags.by = by_;
    flags.donate = donate_;
    flags.inline_calls = inline_calls_;
    flags.fused = jaxpr_model_ == "fused";
    flags.width = width_;
    flags.device = device_;
    if (jaxpr_model_ != "fused" && jaxpr_model_ != "every-value") {
      std::fprintf(stderr, "memplan: --jaxpr-model=%s: expected every-value or fused\n", jaxpr_model_.c_str());
      return kExitBadInput;
    }
    return RunAnalyze(flags);
  }

 private:
  cl::SubCommand command_{"analyze",
                          "Report the memory of an XLA buffer assignment, a jaxpr or an Alpa stage profile"};
  cl::opt<std::string> path_{cl::Positional, cl::Required, cl::sub(command_),
                             cl::desc("<buffer-assignment file, dump directory, jaxpr or Alpa log>")};
  cl::opt<AnalyzeFormat> format_{
      "format", cl::sub(command_), cl::init(AnalyzeFormat::kText), cl::desc("Output format"),
      cl::values(clEnumValN(AnalyzeFormat::kText, "text", "aligned text report"),
                 clEnumValN(AnalyzeFormat::kJson, "json", "JSON (docs/json-schema.md)"),
                 clEnumValN(AnalyzeFormat::kFolded, "folded",
                            "folded stacks of the peak attribution (flamegraph.pl, speedscope)"),
                 clEnumValN(AnalyzeFormat::kDot, "dot",
                            "Graphviz DOT: dataflow of the values live at the peak"),
                 clEnumValN(AnalyzeFormat::kSvg, "svg", "that graph as SVG (Graphviz)"),
                 clEnumValN(AnalyzeFormat::kChromeTrace, "chrome-trace",
                            "Chrome trace-event JSON (Perfetto): live bytes and value lifetimes"))};
  cl::opt<std::string> by_{"by", cl::sub(command_), cl::init("op"), cl::value_desc("op|source|type"),
                           cl::desc("Attribute the peak by op (op_name path), source (call "
                                    "stack / file:line) or type (op_type)")};
  cl::opt<std::string> output_{"o", cl::sub(command_), cl::init("-"), cl::value_desc("file"),
                               cl::desc("Write the report to <file> (atomically)")};
  cl::opt<int> top_{"top", cl::sub(command_), cl::init(10),
                    cl::desc("Rows in the allocation and value tables (0: all); values drawn "
                             "by dot, svg and chrome-trace (default there: 100)")};
  cl::opt<std::string> donate_{"donate", cl::sub(command_), cl::value_desc("inputs"),
                               cl::desc("Jaxpr: the top-level inputs donated, e.g. 0,2,5-9")};
  cl::opt<bool> inline_calls_{"inline-calls", cl::sub(command_), cl::init(true),
                              cl::desc("Jaxpr: inline pjit/named_call/custom_jvp/... bodies "
                                       "(default true); false: each call is one step")};
  cl::opt<std::string> jaxpr_model_{"jaxpr-model", cl::sub(command_), cl::init("every-value"),
                                    cl::value_desc("model"),
                                    cl::desc("Jaxpr: every-value (each equation output owns memory; "
                                             "default) or fused (XLA-like fusion)")};
  cl::opt<std::string> module_{"module", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Module to analyze in a dump directory "
                                        "(default: the largest)")};
  cl::opt<int> width_{"width", cl::sub(command_), cl::init(120), cl::value_desc("columns"),
                      cl::desc("Text: fit lines in this many columns, eliding the middle of "
                               "long names (0: no limit; default 120)")};
  cl::opt<std::string> device_{"device", cl::sub(command_), cl::value_desc("name"),
                               cl::desc("Text: give each headline number's share of this "
                                        "device's memory: a hardware preset (h100, see "
                                        "'memplan hw list') or a name with its memory "
                                        "(H100-80GB)")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeAnalyzeSubcommand() {
  return std::make_unique<AnalyzeSubcommand>();
}

}  // namespace memplan::cli
