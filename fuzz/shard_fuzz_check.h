// What every sharding fuzz target checks once its parser succeeds or fails:
// a parse error names its input ("name:line:col: error: ..."); a sharding
// that XLA's normal form accepts prints, reparses and re-serializes to
// itself; its layout over a small array and both `memplan shard` views are
// deterministic and the JSON parses. A broken promise aborts with a message.
// Header-only so that each target stays one source file (memplan_fuzzer).
#ifndef MEMPLAN_FUZZ_SHARD_FUZZ_CHECK_H_
#define MEMPLAN_FUZZ_SHARD_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ir/shard_layout.h"
#include "ir/sharding.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/op_sharding.h"
#include "parsers/source_text.h"
#include "viz/shard_view.h"

namespace memplan::fuzz {

// Layouts are computed only up to this many devices (the parsers allow
// 2^20), so that one input cannot make the views print megabytes.
inline constexpr int64_t kFuzzMaxLayoutDevices = 4096;

[[noreturn]] inline void ShardFail(std::string_view target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%.*s: %s\n%s\n", static_cast<int>(target.size()), target.data(), what, detail.c_str());
  std::abort();
}

inline void CheckLocated(std::string_view target, const absl::Status& status, std::string_view name) {
  const std::string message(status.message());
  if (!std::string_view(message).starts_with(std::string(name) + ":")) {
    ShardFail(target, "parse error without a location", message);
  }
}

// A small array of the sharding's rank: dims 7, 1, 13, 2, ... (uneven on
// purpose).
inline ir::Shape FuzzShape(size_t rank) {
  static constexpr int64_t kDims[] = {7, 1, 13, 2, 5, 3};
  ir::Shape shape;
  shape.dtype = ir::DType::kBF16;
  for (size_t i = 0; i < rank; ++i) shape.dims.push_back(kDims[i % 6]);
  return shape;
}

inline void CheckViews(std::string_view target, const viz::ShardReportInput& report) {
  const std::string text = viz::RenderShardText(report);
  const std::string json = viz::RenderShardJson(report);
  if (text != viz::RenderShardText(report)) ShardFail(target, "text view not deterministic", text);
  if (json != viz::RenderShardJson(report)) ShardFail(target, "JSON view not deterministic", json);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) ShardFail(target, "JSON view does not parse", llvm::toString(parsed.takeError()) + "\n" + json);
}

// For an HloSharding however it was read: XLA's normal form, its round trips
// through text and OpSharding bytes, and its layout and views.
inline void CheckHloSharding(std::string_view target, const ir::HloSharding& written) {
  absl::StatusOr<ir::HloSharding> canonical = ir::CanonicalHloSharding(written);
  if (!canonical.ok()) return;  // an impossible sharding, said in words
  const std::string printed = canonical->ToString(true);
  auto source = parsers::SourceText::FromString("printed", printed);
  absl::StatusOr<ir::HloSharding> reparsed = parsers::ParseHloShardingText(*source);
  if (!reparsed.ok()) ShardFail(target, "printed sharding does not parse", printed + "\n" + std::string(reparsed.status().message()));
  absl::StatusOr<ir::HloSharding> recanonical = ir::CanonicalHloSharding(*reparsed);
  if (!recanonical.ok() || recanonical->ToString(true) != printed) {
    ShardFail(target, "printed sharding reads back differently", printed);
  }
  absl::StatusOr<std::string> bytes = parsers::OpShardingToBytes(*canonical);
  if (!bytes.ok()) ShardFail(target, "canonical sharding has no OpSharding", printed);
  absl::StatusOr<ir::HloSharding> decoded = parsers::OpShardingFromBytes(*bytes);
  if (!decoded.ok()) ShardFail(target, "OpSharding bytes do not decode", printed);
  // Metadata keeps only the OpMetadata fields the proto subset has.
  absl::StatusOr<ir::HloSharding> decoded_canonical = ir::CanonicalHloSharding(*decoded);
  if (!decoded_canonical.ok() || decoded_canonical->ToString() != canonical->ToString()) {
    ShardFail(target, "OpSharding bytes read back differently", printed);
  }

  viz::ShardReportInput report;
  report.notation = "HloSharding";
  report.text = printed;
  report.hlo_sharding = *canonical;
  std::vector<ir::HloSharding> leaves =
      canonical->kind == ir::HloSharding::Kind::kTuple ? canonical->tuple_elements : std::vector<ir::HloSharding>{*canonical};
  for (const ir::HloSharding& leaf : leaves) {
    if (leaf.kind == ir::HloSharding::Kind::kTiled && leaf.tiles.device_count() > kFuzzMaxLayoutDevices) return;
    if (leaf.kind == ir::HloSharding::Kind::kMaximal && leaf.maximal_device >= kFuzzMaxLayoutDevices) return;
    const int64_t rank = leaf.kind == ir::HloSharding::Kind::kTiled ? leaf.TiledDataRank() : 2;
    absl::StatusOr<ir::ShardLayout> layout = ir::XlaShardLayout(leaf, FuzzShape(static_cast<size_t>(rank)), {}, 3);
    if (layout.ok()) report.layouts.push_back(*std::move(layout));
  }
  CheckViews(target, report);
}

}  // namespace memplan::fuzz

#endif  // MEMPLAN_FUZZ_SHARD_FUZZ_CHECK_H_
