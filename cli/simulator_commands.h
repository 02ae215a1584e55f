// `memplan hw` and `memplan calibrate`: plain functions of plain flag
// structs (the flags live in hw_flags.cc and calibrate_flags.cc). Each
// returns the exit code: 0 ok, 2 bad input or usage.
#ifndef MEMPLAN_CLI_SIMULATOR_COMMANDS_H_
#define MEMPLAN_CLI_SIMULATOR_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace memplan::cli {

// memplan hw list | memplan hw show NAME|FILE [-o FILE]
struct HwFlags {
  std::vector<std::string> args;  // "list" | "show" NAME|FILE
  std::string output = "-";
};
int RunHw(const HwFlags& flags);

enum class CalibrateFormat { kText, kJson };

// memplan calibrate FILE... [-o links.yaml] [--hw NAME|FILE] ...
struct CalibrateFlags {
  std::vector<std::string> inputs;
  std::string output;      // the calibrated hardware file; empty: none written
  std::string hw;          // base hardware; empty: recognise it from the runs
  std::string collective;  // for tables that do not say which they measure
  std::string min_bytes;   // "1MiB"; empty: from the smallest row
  std::string max_bytes;   // empty: to the largest
  bool in_place = false;
  CalibrateFormat format = CalibrateFormat::kText;
  std::string report = "-";  // where the report goes
};
int RunCalibrate(const CalibrateFlags& flags);

enum class CostFormat { kText, kJson };

// memplan cost PROGRAM [--hw NAME|FILE] [--format=text|json] [--top N] [-o FILE]
struct CostFlags {
  std::string path;
  std::string module;       // of a dump directory; empty: the default
  std::string hw = "h100";
  std::string f32_dots = "tf32";  // or "f32"
  CostFormat format = CostFormat::kText;
  int top = 10;
  std::string output = "-";
};
int RunCost(const CostFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_SIMULATOR_COMMANDS_H_
