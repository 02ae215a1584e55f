// libFuzzer target: one executor plan (docs/executor-plan.md) through the
// reader, the checks, the peaks a replay would hold it to, and the writer.
// Beyond "no crash, no sanitizer report, no hang" it aborts when
//   - a parse error does not name its location ("fuzz-input.json:line:col");
//   - a plan that reads fails CheckPlan;
//   - writing is not deterministic, or what is written does not read back
//     into a plan that writes the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "executor/plan.h"
#include "executor/plan_check.h"
#include "executor/plan_json.h"
#include "parsers/source_text.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "executor_plan_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<executor::ExecutorPlan> plan =
      executor::ParsePlanJson(*parsers::SourceText::FromString("fuzz-input.json", bytes));
  if (!plan.ok()) {
    const std::string message(plan.status().message());
    if (!message.starts_with("fuzz-input.json:")) Fail("parse error without a location", message);
    return 0;
  }
  if (std::optional<executor::PlanProblem> problem = executor::CheckPlan(*plan)) {
    Fail("a plan that reads fails its checks", problem->message);
  }
  for (const executor::RankPlan& rank : plan->ranks) {
    for (executor::AllocationMode mode : {executor::AllocationMode::kArena, executor::AllocationMode::kPool}) {
      if (executor::PlannedPeakBytes(rank, mode) < 0) Fail("negative planned peak", "");
    }
    if (executor::MaxScratchBytes(rank) < 0) Fail("negative scratch", "");
  }
  executor::CollectiveGroups(*plan);
  const std::string written = executor::RenderPlanJson(*plan);
  if (written != executor::RenderPlanJson(*plan)) Fail("writing is not deterministic", written);
  absl::StatusOr<executor::ExecutorPlan> again =
      executor::ParsePlanJson(*parsers::SourceText::FromString("written.json", written));
  if (!again.ok()) Fail("a written plan does not read back", std::string(again.status().message()) + "\n" + written);
  if (executor::RenderPlanJson(*again) != written) Fail("a plan read back writes other bytes", written);
  return 0;
}
