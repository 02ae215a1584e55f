// `memplan validate` and `memplan bench-collectives`: the executor's
// subcommands, as plain functions of plain flag structs (flags in
// validate_flags.cc and bench_collectives_flags.cc). Each returns this
// rank's exit code; under mpirun every rank returns the same one.
#ifndef MEMPLAN_CLI_EXECUTOR_COMMANDS_H_
#define MEMPLAN_CLI_EXECUTOR_COMMANDS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace memplan::cli {

class Subcommand;
std::unique_ptr<Subcommand> MakeValidateSubcommand();
std::unique_ptr<Subcommand> MakeBenchCollectivesSubcommand();

enum class ExecutorBackend { kCuda, kHost };
enum class ExecutorFormat { kText, kJson, kHtml };  // kHtml: validate only
enum class AllocationModeFlag { kDefault, kArena, kPool };

// Options both subcommands share.
struct ExecutorFlags {
  ExecutorBackend backend = ExecutorBackend::kCuda;
  ExecutorFormat format = ExecutorFormat::kText;
  std::string output = "-";
  double timeout_seconds = 120;
  std::string device_memory;  // host backend: the emulated device ("16GiB"); empty: available RAM
  int device = -1;            // cuda backend: GPU index; -1: local rank
};

// memplan validate PLAN|DUMP: replay and compare with the plan.
struct ValidateFlags {
  ExecutorFlags common;
  std::string path;
  std::string module;  // module of a dump directory
  AllocationModeFlag mode = AllocationModeFlag::kDefault;
  std::optional<double> max_peak_error_percent;
  std::string inject_failure;  // "RANK:STEP" (tests)
};

int RunValidate(const ValidateFlags& flags);

// memplan bench-collectives: an nccl-tests-style sweep.
struct BenchCollectivesFlags {
  ExecutorFlags common;
  std::string min_bytes = "32";
  std::string max_bytes = "32MiB";
  int64_t factor = 2;
  int iterations = 20;
  int warmup = 5;
  std::string dtype = "f32";
  std::string collectives = "all_reduce,all_gather,reduce_scatter,all_to_all";
};

int RunBenchCollectives(const BenchCollectivesFlags& flags);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_EXECUTOR_COMMANDS_H_
