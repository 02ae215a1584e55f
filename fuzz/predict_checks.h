// The promises every prediction keeps, whatever the program and plan: the
// checks the predictor's fuzz targets (predict_fuzzer.cc: fuzzed plans on
// the corpus programs; predict_program_fuzzer.cc: fuzzed programs under
// generated plans) share. A broken promise aborts (through Fail) with a
// message naming the target.
#ifndef MEMPLAN_FUZZ_PREDICT_CHECKS_H_
#define MEMPLAN_FUZZ_PREDICT_CHECKS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ir/entry_arguments.h"
#include "ir/plan.h"
#include "ir/program.h"
#include "predictor/predict.h"

namespace memplan::fuzz {

// Prints "TARGET: WHAT" and DETAIL to stderr, then aborts.
[[noreturn]] void Fail(std::string_view target, std::string_view what, std::string_view detail);

// Predicts `plan` on `program` (whose entry arguments are `arguments`) with
// a predictor sharing work between candidates and with one sharing none,
// and aborts through Fail when a promise breaks:
//   - they disagree: an error from one alone, or JSON reports that differ
//     by a byte; an error is other than InvalidArgument;
//   - per device: a byte count below 0; footprint other than argument +
//     output - alias + temp; alias above argument or output; a live peak
//     without the arguments; other than one entry per mesh position; a
//     headline other than the largest footprint;
//   - argument bytes other than the arguments' shards as ir::XlaShardLayout
//     sizes them (what `memplan shard` shows), where it reads them;
//   - what is live at the peak not adding up to the live peak (arguments +
//     listed + other), not most bytes first, a listed buffer not live at
//     the peak step, more than PeakContents::kLargestKept listed;
//   - the JSON report not parsing (markup_check.h's JsonProblem), the text
//     report not valid UTF-8 free of control characters (TextProblem), or
//     either rendering other bytes the second time.
// Returns the error both predictors gave (the caller checks its wording),
// else OK.
absl::Status PredictAndCheck(std::string_view target, const ir::Program& program,
                             const std::vector<ir::EntryArgument>& arguments,
                             const predictor::Predictor& shared,
                             const predictor::Predictor& unshared, const ir::ResolvedPlan& plan);

}  // namespace memplan::fuzz

#endif  // MEMPLAN_FUZZ_PREDICT_CHECKS_H_
