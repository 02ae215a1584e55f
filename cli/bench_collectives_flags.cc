#include "cli/executor_commands.h"
#include "cli/executor_flags.h"
#include "cli/subcommand.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {
namespace {

namespace cl = llvm::cl;

class BenchCollectivesSubcommand : public Subcommand {
 public:
  bool Selected() const override { return static_cast<bool>(command_); }

  int Run() override {
    BenchCollectivesFlags flags;
    flags.common = common_.Get();
    flags.min_bytes = min_bytes_;
    flags.max_bytes = max_bytes_;
    flags.factor = factor_;
    flags.iterations = iterations_;
    flags.warmup = warmup_;
    flags.dtype = dtype_;
    flags.collectives = collectives_;
    return RunBenchCollectives(flags);
  }

 private:
  cl::SubCommand command_{"bench-collectives",
                          "Sweep collective sizes and print nccl-tests' columns (time, algbw, busbw, #wrong)"};
  ExecutorOptions common_{command_};
  cl::opt<std::string> min_bytes_{"min-bytes", cl::sub(command_), cl::init("32"), cl::value_desc("bytes"),
                                  cl::desc("Smallest size S (default 32)")};
  cl::opt<std::string> max_bytes_{"max-bytes", cl::sub(command_), cl::init("32MiB"), cl::value_desc("bytes"),
                                  cl::desc("Largest size S (default 32MiB)")};
  cl::opt<int64_t> factor_{"factor", cl::sub(command_), cl::init(2), cl::desc("Size multiplier between rows")};
  cl::opt<int> iterations_{"iters", cl::sub(command_), cl::init(20), cl::desc("Timed iterations per size")};
  cl::opt<int> warmup_{"warmup", cl::sub(command_), cl::init(5), cl::desc("Untimed iterations first")};
  cl::opt<std::string> dtype_{"dtype", cl::sub(command_), cl::init("f32"), cl::value_desc("type"),
                              cl::desc("Element type (XLA spelling: f32, bf16, f16, f64, s32, ...)")};
  cl::opt<std::string> collectives_{"collectives", cl::sub(command_),
                                    cl::init("all_reduce,all_gather,reduce_scatter,all_to_all"),
                                    cl::value_desc("list"), cl::desc("Which collectives, comma-separated")};
};

}  // namespace

std::unique_ptr<Subcommand> MakeBenchCollectivesSubcommand() {
  return std::make_unique<BenchCollectivesSubcommand>();
}

}  // namespace memplan::cli
