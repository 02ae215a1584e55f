// Throughput of `memplan analyze` on one buffer-assignment dump: map the
// file, parse it, analyze it (and, in the end-to-end case, render the JSON
// report as the CLI does).
//
//   parse_analyze_bench [--dump=FILE] [benchmark flags]
//
// FILE defaults to $MEMPLAN_BENCH_DUMP, else the synthetic dump that the
// `bench_dump` target writes into the build directory
// (gen_synthetic_dump, 100 MB). The bundled seed 004 sample is measured too.
// Each benchmark reports "MB/s" (10^6 bytes of input per second).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis.h"
#include "benchmark/benchmark.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/source_text.h"
#include "viz/analyze_report.h"

namespace {

using memplan::parsers::SourceText;

void SetThroughput(benchmark::State& state, int64_t bytes) {
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(bytes) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}

std::shared_ptr<const SourceText> MustOpen(benchmark::State& state, const std::string& path) {
  auto source = SourceText::FromFile(path);
  if (!source.ok()) {
    state.SkipWithError(std::string(source.status().message()).c_str());
    return nullptr;
  }
  return *source;
}

memplan::ir::Program MustParse(benchmark::State& state,
                               const std::shared_ptr<const SourceText>& source) {
  auto program = memplan::parsers::ParseBufferAssignment({source}, memplan::ir::Program::Named("bench"));
  if (!program.ok()) {
    state.SkipWithError(std::string(program.status().message()).c_str());
    return {};
  }
  return std::move(*program);
}

// Map + parse + analyze, as `memplan analyze` does before rendering.
void BM_ParseAnalyze(benchmark::State& state, const std::string& path, bool render) {
  int64_t bytes = 0;
  for (auto _ : state) {
    auto source = MustOpen(state, path);
    if (!source) return;
    bytes = static_cast<int64_t>(source->text().size());
    memplan::ir::Program program = MustParse(state, source);
    const auto analysis = memplan::analyzer::Analysis::Run(program, {});
    if (render) {
      const memplan::viz::AnalyzeReportInput input{program, analysis, "", 10};
      benchmark::DoNotOptimize(memplan::viz::RenderAnalyzeJson(input));
    }
    benchmark::DoNotOptimize(analysis.peak);
  }
  SetThroughput(state, bytes);
}

// The parse alone (file mapped once, outside the timing).
void BM_Parse(benchmark::State& state, const std::string& path) {
  auto source = MustOpen(state, path);
  if (!source) return;
  for (auto _ : state) {
    memplan::ir::Program program = MustParse(state, source);
    benchmark::DoNotOptimize(program.values.data());
  }
  SetThroughput(state, static_cast<int64_t>(source->text().size()));
}

// The analysis alone, on a Program parsed once.
void BM_Analyze(benchmark::State& state, const std::string& path) {
  auto source = MustOpen(state, path);
  if (!source) return;
  const memplan::ir::Program program = MustParse(state, source);
  for (auto _ : state) {
    const auto analysis = memplan::analyzer::Analysis::Run(program, {});
    benchmark::DoNotOptimize(analysis.peak);
  }
  SetThroughput(state, static_cast<int64_t>(source->text().size()));
}

}  // namespace

int main(int argc, char** argv) {
  std::string dump = MEMPLAN_BENCH_DEFAULT_DUMP;
  if (const char* env = std::getenv("MEMPLAN_BENCH_DUMP")) dump = env;
  // Take our own flag out before Google Benchmark sees the arguments.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i > 0 && arg.starts_with("--dump=")) {
      dump = std::string(arg.substr(7));
    } else {
      args.push_back(argv[i]);
    }
  }
  int args_count = static_cast<int>(args.size());
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) return 2;

  const std::string seed = MEMPLAN_BENCH_SEED_SAMPLE;
  for (const auto& [name, path] : {std::pair<std::string, std::string>{"seed004", seed},
                                   std::pair<std::string, std::string>{"synthetic", dump}}) {
    benchmark::RegisterBenchmark(("BM_ParseAnalyze/" + name).c_str(), BM_ParseAnalyze, path,
                                 false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_ParseAnalyzeRenderJson/" + name).c_str(), BM_ParseAnalyze,
                                 path, true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Parse/" + name).c_str(), BM_Parse, path)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Analyze/" + name).c_str(), BM_Analyze, path)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
