// The promises every prediction keeps, whatever the program and plan: the
// checks the predictor's fuzz targets (predict_fuzzer.cc: fuzzed plans on
// the corpus programs; predict_program_fuzzer.cc: fuzzed programs under
// generated plans) share. Each aborts (through Fail) with a message naming
// the target when a promise breaks.
#ifndef MEMPLAN_FUZZ_PREDICT_CHECKS_H_
#define MEMPLAN_FUZZ_PREDICT_CHECKS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/entry_arguments.h"
#include "ir/mesh.h"
#include "ir/plan.h"
#include "ir/module.h"
#include "predictor/predict.h"

namespace memplan::fuzz {

// The plan's argument bytes on one device, each argument's shard as
// ir::XlaShardLayout sizes it (what `memplan shard` shows: every device
// holds padded shards of one size); -1 when an argument has no such layout
// (not an array, or a sharding XlaShardLayout does not read).
int64_t ArgumentShardBytes(const std::vector<ir::EntryArgument>& arguments,
                           const ir::ResolvedPlan& plan);

// Prints "TARGET: WHAT" and DETAIL to stderr, then aborts.
[[noreturn]] void Fail(std::string_view target, std::string_view what, std::string_view detail);

// Per device: every byte count 0 or more; footprint = argument + output -
// alias + temp; alias at most argument and output; the live peak holds the
// arguments; one device entry per position of `mesh`; the headline the
// largest footprint.
void CheckDevices(std::string_view target, const predictor::Prediction& p, const ir::Mesh& mesh);

// What is live at the peak adds up to the live peak (arguments + listed +
// other), most bytes first, each listed buffer live at the peak step, at
// most PeakContents::kLargestKept listed.
void CheckLiveAtPeak(std::string_view target, const predictor::Prediction& p);

// The JSON report of `p` on `module`: it parses (markup_check.h's
// JsonProblem), the text report is valid UTF-8 without control characters
// (TextProblem), and each renders the same bytes twice. Returns the JSON.
std::string CheckedJson(std::string_view target, const ir::Module& module,
                        const std::string& module_name, const predictor::Prediction& p);

}  // namespace memplan::fuzz

#endif  // MEMPLAN_FUZZ_PREDICT_CHECKS_H_
