// The subcommands behind `memplan`, as plain functions of their options so
// that main() only parses flags. Each returns the process exit code:
// 0 ok, 1 a check failed, 2 bad input or usage.
#ifndef MEMPLAN_CLI_COMMANDS_H_
#define MEMPLAN_CLI_COMMANDS_H_

#include <string>

#include "ir/jaxpr_program.h"

namespace memplan::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

enum class AnalyzeFormat {
  kText,
  kJson,
  kFolded,
  kDot,          // Graphviz DOT of the dataflow around the peak
  kSvg,          // that graph laid out by libgvc
  kChromeTrace,  // Chrome trace-event JSON (Perfetto)
};

struct AnalyzeFlags {
  std::string path;
  std::string module;
  AnalyzeFormat format = AnalyzeFormat::kText;
  std::string output = "-";
  int top = 10;
  std::string by = "op";  // attribution key: op, source, type
  // Whether --top was given: DOT, SVG and Chrome trace draw 100 values unless
  // it was.
  bool top_given = false;
  // Jaxprs: the top-level inputs donated ("0,2,5-9"), and whether calls are
  // inlined (else each is one step charged with its callee's temporaries).
  std::string donate;
  bool inline_calls = true;
  bool fused = false;  // --jaxpr-model=fused
  // The text report's width in columns (0: no limit), and the device whose
  // memory it gives shares of ("" for none).
  int width = 120;
  std::string device;
};

int RunAnalyze(const AnalyzeFlags& flags);
// `memplan analyze` on a jaxpr and on Alpa's stage profile log
// (analyze_jaxpr_command.cc); RunAnalyze routes them there.
int RunAnalyzeJaxpr(const AnalyzeFlags& flags);
int RunAnalyzeAlpa(const AnalyzeFlags& flags);

// memplan check PATH --budget FILE: budgets and regressions, for CI.
// Logic in check_command.cc; the budget format in docs/ci.md.
struct CheckFlags {
  std::string path;
  std::string budget;    // budgets.yaml
  std::string baseline;  // a dump or `memplan analyze --format=json`; may be empty
  std::string junit;     // JUnit XML output; may be empty
  std::string module;    // check only this module of a dump directory
  bool strict = false;   // a budget the input cannot check fails
  // Check budgets of an input that stops early (kInputEndsEarly) instead of
  // failing them.
  bool allow_truncated = false;
};

int RunCheck(const CheckFlags& flags);

enum class DiffFormat { kText, kJson };

// memplan diff OLD NEW: what changed between two programs.
struct DiffFlags {
  std::string old_path;
  std::string new_path;
  std::string module;  // module of a dump directory, on both sides
  DiffFormat format = DiffFormat::kText;
  std::string output = "-";
  int top = 20;  // changes listed; 0: all
};

int RunDiff(const DiffFlags& flags);

// --assigner (predict, rank, report --plan): kRerun re-runs XLA's buffer
// assigner on the predicted per-device buffers; kKeep keeps each value in
// its single-device allocation while its shard fits (cli/predict_options.h).
enum class Assigner { kRerun, kKeep };

// memplan report PATH -o FILE: one self-contained HTML page
// (viz/html_report.h). Logic in report_command.cc.
struct ReportFlags {
  std::string path;
  std::string module;  // module of a dump directory; empty: the largest
  std::string output;  // required; "-" writes to stdout
  std::string by = "op";  // attribution key: op, source, type
  std::string plan;       // a sharding plan file: adds the prediction; empty: none
  Assigner assigner = Assigner::kRerun;  // for the prediction
};

int RunReport(const ReportFlags& flags);

enum class CalltreeFormat { kText, kJson, kDot, kFolded, kHtml };

// memplan calltree FILE: a text call tree or a Chrome trace (gzip'd or not):
// calls per function and file, deepest paths, repeated subtrees, the call
// graph, folded stacks, and the memory peak of traces with memory events.
// Logic in calltree_command.cc.
struct CalltreeFlags {
  std::string path;
  CalltreeFormat format = CalltreeFormat::kText;
  std::string output = "-";
  int top = 10;  // table rows (0: all)
  // Whether --top was given: DOT draws 100 functions unless it was.
  bool top_given = false;
  // --program: a program (dump, HLO module, jaxpr) whose peak is hung on
  // the tree's nodes by source line; --module picks a dump's module.
  std::string program;
  std::string module;
};

int RunCalltree(const CalltreeFlags& flags);

enum class ModulesFormat { kText, kJson };

// memplan modules DIR: every module of a dump directory, one row each.
struct ModulesFlags {
  std::string path;
  ModulesFormat format = ModulesFormat::kText;
  std::string output = "-";
};

int RunModules(const ModulesFlags& flags);
enum class ShardFormat { kText, kJson };

// memplan shard --shape S (--spec P [--mesh M] | --sharding H | --opsharding B
// | --placements L [--mesh M]) [--devices D]: one array under one sharding,
// per device. Logic in shard_command.cc; formats in docs/shardings.md.
struct ShardFlags {
  std::string shape;       // "f32[20,16]"; may be empty when --spec holds a ShapeDtypeStruct
  std::string mesh;        // "x=4,y=1" or a Mesh / DeviceMesh repr
  std::string spec;        // PartitionSpec / NamedSharding / ShapeDtypeStruct repr
  std::string sharding;    // HloSharding text
  std::string opsharding;  // OpSharding bytes: b'...' or hex
  std::string placements;  // DTensor placements
  std::string devices;     // the mesh's device order, or the device id of each position
  std::string device_label = "GPU";
  ShardFormat format = ShardFormat::kText;
  std::string output = "-";
};

int RunShard(const ShardFlags& flags);

enum class PredictFormat { kText, kJson };

// memplan predict PROGRAM --plan PLAN [--format=text|json] [-o FILE]:
// per-device memory under a sharding plan (predictor/predict.h).
struct PredictFlags {
  std::string path;
  std::string module;
  std::string plan;
  // How a jaxpr PROGRAM is lowered (--jaxpr-rules); the plan adds donation.
  ir::JaxprProgramOptions jaxpr;
  Assigner assigner = Assigner::kRerun;
  PredictFormat format = PredictFormat::kText;
  std::string output = "-";
};

int RunPredict(const PredictFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_COMMANDS_H_
