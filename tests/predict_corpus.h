// The sharded corpus (samples/sharded/<program>/candidates/*.truth.json) as
// prediction cases: each candidate's ResolvedPlan built from what the
// compile recorded (inputs[].hlo_sharding and mesh, independent of any plan
// parser), the single-device program, and XLA's memory_analysis() of the
// 8-device compile. Shared by the accuracy test and the table tool.
#ifndef MEMPLAN_TESTS_PREDICT_CORPUS_H_
#define MEMPLAN_TESTS_PREDICT_CORPUS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/plan.h"
#include "predictor/predict.h"

namespace memplan::test {

struct CorpusTruth {
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t footprint() const { return argument_bytes + output_bytes - alias_bytes + temp_bytes; }
};

struct CorpusCase {
  std::string program;    // directory name
  std::string candidate;  // file stem
  ir::ResolvedPlan plan;
  CorpusTruth truth;
};

struct CorpusRow {
  CorpusCase c;
  predictor::Prediction prediction;
  double footprint_error_percent = 0;  // signed: (predicted - truth) / truth
  double temp_error_percent = 0;
};

struct CorpusProgram {
  std::string name;
  std::string dir;
  std::vector<CorpusCase> cases;
};

// Every program of `root` (samples/sharded) with its candidates, sorted.
absl::StatusOr<std::vector<CorpusProgram>> LoadCorpus(const std::string& root);

// Loads each program once and predicts all its candidates.
absl::StatusOr<std::vector<CorpusRow>> PredictCorpus(const std::vector<CorpusProgram>& corpus,
                                                     const predictor::PredictOptions& options = {});

// LoadCorpus(root) and PredictCorpus of it with default options.
absl::StatusOr<std::vector<CorpusRow>> PredictCorpusAt(const std::string& root);

// The markdown table of docs/accuracy.md's prediction section: one row per
// case, then median and max |error| and the ordering check per program.
std::string CorpusTable(const std::vector<CorpusRow>& rows);

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_PREDICT_CORPUS_H_
