// Throughput of the HLO text parser (parsers/hlo_text_parser.h) on one
// module text: map the file, parse it into an ir::Module, free it.
//
//   hlo_text_bench [--hlo=FILE] [benchmark flags]
//   hlo_text_bench --parse-once [--hlo=FILE]   # one parse, then exit (for
//                                              # /usr/bin/time's peak RSS)
//
// FILE defaults to $MEMPLAN_BENCH_HLO, else the synthetic module the
// `bench_hlo` target writes into the build directory (gen_synthetic_hlo,
// 100 MB). The largest JAX sample's module text is measured too. Each
// benchmark reports "MB/s" (10^6 bytes of input per second).
#include <chrono>
#include <cstdio>
#include <memory>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/benchmark.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/source_text.h"

namespace {

using memplan::parsers::SourceText;

// Map + parse + free, as a tool reading the file pays it.
void BM_ParseHloText(benchmark::State& state, const std::string& path) {
  int64_t bytes = 0;
  for (auto _ : state) {
    auto source = SourceText::FromFile(path);
    if (!source.ok()) {
      state.SkipWithError(std::string(source.status().message()).c_str());
      return;
    }
    bytes = static_cast<int64_t>((*source)->text().size());
    memplan::ir::Module module;
    memplan::ir::Diagnostics diagnostics;
    const absl::Status status = memplan::parsers::ParseHloModuleText(**source, &module, &diagnostics);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(module.instructions().data());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(bytes) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// One map + parse + free, with the time of each part.
int ParseOnce(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  auto source = SourceText::FromFile(path);
  if (!source.ok()) {
    std::fprintf(stderr, "%s\n", std::string(source.status().message()).c_str());
    return 2;
  }
  auto module = std::make_unique<memplan::ir::Module>();
  memplan::ir::Diagnostics diagnostics;
  const auto parse_start = std::chrono::steady_clock::now();
  const absl::Status status = memplan::parsers::ParseHloModuleText(**source, module.get(), &diagnostics);
  const double parse = Seconds(parse_start);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  size_t with_attributes = 0;
  for (const memplan::ir::Instruction& instruction : module->instructions()) {
    with_attributes += instruction.attributes >= 0;
  }
  std::printf("%zu bytes, %zu computations, %zu instructions (%zu with attributes), %zu stack "
              "frames, %lld warnings\n",
              (*source)->text().size(), module->computations().size(), module->instruction_count(),
              with_attributes, module->stack_frames.size(), static_cast<long long>(diagnostics.total()));
  const auto free_start = std::chrono::steady_clock::now();
  module.reset();
  std::printf("parse %.1f ms, free %.1f ms, total %.1f ms\n", parse * 1e3, Seconds(free_start) * 1e3,
              Seconds(start) * 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string hlo = MEMPLAN_BENCH_DEFAULT_HLO;
  if (const char* env = std::getenv("MEMPLAN_BENCH_HLO")) hlo = env;
  bool parse_once = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i > 0 && arg.starts_with("--hlo=")) {
      hlo = std::string(arg.substr(6));
    } else if (i > 0 && arg == "--parse-once") {
      parse_once = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  if (parse_once) return ParseOnce(hlo);
  int args_count = static_cast<int>(args.size());
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 2;
  for (const auto& [name, path] :
       {std::pair<std::string, std::string>{"transformer_block_bf16", MEMPLAN_BENCH_CORPUS_HLO},
        std::pair<std::string, std::string>{"synthetic", hlo}}) {
    benchmark::RegisterBenchmark(("BM_ParseHloText/" + name).c_str(), BM_ParseHloText, path)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
