// The flags `memplan validate` and `memplan bench-collectives` share. Only
// for the *_flags.cc files (compiled without RTTI, like LLVM).
#ifndef MEMPLAN_CLI_EXECUTOR_FLAGS_H_
#define MEMPLAN_CLI_EXECUTOR_FLAGS_H_

#include <string>

#include "cli/executor_commands.h"
#include "llvm/Support/CommandLine.h"

namespace memplan::cli {

class ExecutorOptions {
 public:
  explicit ExecutorOptions(llvm::cl::SubCommand& command)
      : backend_("backend", llvm::cl::sub(command), llvm::cl::init(ExecutorBackend::kCuda),
                 llvm::cl::desc("Where to run"),
                 llvm::cl::values(clEnumValN(ExecutorBackend::kCuda, "cuda",
                                             "GPUs with CUDA, cuBLAS and NCCL, one process per GPU (default)"),
                                  clEnumValN(ExecutorBackend::kHost, "host",
                                             "host memory and MPI collectives (a stand-in that runs anywhere)"))),
        format_("format", llvm::cl::sub(command), llvm::cl::init(ExecutorFormat::kText),
                llvm::cl::desc("Output format"),
                llvm::cl::values(clEnumValN(ExecutorFormat::kText, "text", "aligned text (default)"),
                                 clEnumValN(ExecutorFormat::kJson, "json", "JSON (docs/)"),
                                 clEnumValN(ExecutorFormat::kHtml, "html",
                                            "one self-contained HTML page (validate only)"))),
        output_("o", llvm::cl::sub(command), llvm::cl::init("-"), llvm::cl::value_desc("file"),
                llvm::cl::desc("Write the report to <file> (atomically; rank 0 writes)")),
        timeout_("timeout", llvm::cl::sub(command), llvm::cl::init(120), llvm::cl::value_desc("seconds"),
                 llvm::cl::desc("Give up on a collective, GEMM or exchange between ranks after this long")),
        device_memory_("device-memory", llvm::cl::sub(command), llvm::cl::value_desc("bytes"),
                       llvm::cl::desc("--backend=host: the emulated device's memory per rank, e.g. 16GiB "
                                      "(default: the host's available memory shared among its ranks)")),
        device_("device", llvm::cl::sub(command), llvm::cl::init(-1), llvm::cl::value_desc("index"),
                llvm::cl::desc("--backend=cuda: the GPU to use (default: the rank's position on its host)")) {}

  ExecutorFlags Get() const {
    ExecutorFlags flags;
    flags.backend = backend_;
    flags.format = format_;
    flags.output = output_;
    flags.timeout_seconds = timeout_;
    flags.device_memory = device_memory_;
    flags.device = device_;
    return flags;
  }

 private:
  llvm::cl::opt<ExecutorBackend> backend_;
  llvm::cl::opt<ExecutorFormat> format_;
  llvm::cl::opt<std::string> output_;
  llvm::cl::opt<double> timeout_;
  llvm::cl::opt<std::string> device_memory_;
  llvm::cl::opt<int> device_;
};

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_EXECUTOR_FLAGS_H_
