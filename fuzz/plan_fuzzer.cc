// libFuzzer target: plan files (docs/plan-format.md) through ParsePlan and
// ResolvePlan against a small fixed program. Beyond "no crash, no sanitizer
// report, no hang" it aborts when a promise breaks:
//   - every error names the input ("fuzz-plan.yaml:line:col: ...");
//   - a resolved plan has one sharding per argument, tuple-free, whose tiles
//     divide the argument's dimensions, over the mesh's device count;
//   - unmatched_arguments counts the arguments no key selected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ir/entry_arguments.h"
#include "parsers/plan_parser.h"

namespace {

constexpr std::string_view kName = "fuzz-plan.yaml";

[[noreturn]] void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "plan_fuzzer: %.*s\n%.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

memplan::ir::Shape Array(std::vector<int64_t> dims) {
  memplan::ir::Shape shape;
  shape.dtype = memplan::ir::DType::kF32;
  shape.dims = std::move(dims);
  return shape;
}

const std::vector<memplan::ir::EntryArgument>& Arguments() {
  static const auto* arguments = new std::vector<memplan::ir::EntryArgument>{
      {0, "params['w']", Array({16, 32}), true},
      {1, "params['b']", Array({32}), true},
      {2, "opt_state['count']", Array({}), false},
      {3, "x", Array({8, 4, 16}), false},
      {4, "y", Array({8, 6}), false},
  };
  return *arguments;
}

void CheckError(const absl::Status& status) {
  const std::string_view message(status.message().data(), status.message().size());
  if (message.substr(0, kName.size() + 1) != std::string(kName) + ":") {
    Fail("error does not name the input", message);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<parsers::PlanFile> plan =
      parsers::ParsePlan(parsers::SourceText::FromString(std::string(kName), text));
  if (!plan.ok()) {
    CheckError(plan.status());
    return 0;
  }
  absl::StatusOr<ir::ResolvedPlan> resolved =
      parsers::ResolvePlan(*plan, Arguments(), {Array({16, 32}), Array({})});
  if (!resolved.ok()) {
    CheckError(resolved.status());
    return 0;
  }
  if (resolved->arguments.size() != Arguments().size()) Fail("argument count", "");
  int64_t unmatched = 0;
  for (size_t i = 0; i < resolved->arguments.size(); ++i) {
    const ir::ArgumentPlan& argument = resolved->arguments[i];
    if (argument.parameter != static_cast<int64_t>(i)) Fail("argument out of order", "");
    if (argument.source == ir::PlanSource::kDefault) {
      ++unmatched;
      if (resolved->ArgumentSharding(i).kind != ir::HloSharding::Kind::kReplicated) {
        Fail("default not replicated", "");
      }
    }
    if (!resolved->ValidShardingIndex(i)) Fail("sharding index outside the table", "");
    const ir::HloSharding& sharding = resolved->ArgumentSharding(i);
    if (sharding.kind == ir::HloSharding::Kind::kTuple) Fail("tuple sharding", sharding.ToString());
    if (sharding.kind != ir::HloSharding::Kind::kTiled) continue;
    if (sharding.tiles.device_count() != resolved->mesh.device_count()) {
      Fail("tiles are not over the mesh", sharding.ToString());
    }
    const ir::Shape& shape = Arguments()[i].shape;
    if (sharding.TiledDataRank() != static_cast<int64_t>(shape.dims.size())) {
      Fail("sharding rank differs from the argument's", sharding.ToString());
    }
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      if (shape.dims[d] % sharding.tiles.dims[d] != 0) Fail("uneven argument shard", sharding.ToString());
    }
  }
  if (unmatched != resolved->unmatched_arguments) Fail("unmatched_arguments miscounted", "");
  return 0;
}
