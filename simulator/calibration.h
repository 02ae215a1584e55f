// Fits the cost model's alpha and beta per link and collective to measured
// collective times (nccl-tests, memplan bench-collectives), by weighted least
// squares on time against bytes (weights 1/time). The fit inverts the same plan the cost model
// prices (simulator/collective_cost.h), so a calibrated hardware file
// reproduces the measured times to within the residuals it reports.
// Method and caveats: docs/cost-model.md, "Calibration".
#ifndef MEMPLAN_SIMULATOR_CALIBRATION_H_
#define MEMPLAN_SIMULATOR_CALIBRATION_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/collective.h"
#include "ir/collective_measurements.h"
#include "simulator/collective_cost.h"
#include "simulator/hardware.h"

namespace memplan::simulator {

struct CalibrationOptions {
  int64_t min_bytes = 1;  // rows of fewer bytes are left out (0-byte rows always)
  int64_t max_bytes = INT64_MAX;
  bool include_in_place = false;  // fit in-place rows too (default: out-of-place only)
};

// Why a run was not used.
enum class SkipReason : uint8_t {
  kNone,
  kOneRank,        // nothing moves
  kRanksUnknown,   // broadcast or reduce with no device list
  kNoSamples,      // no row within the size range with a time
};
std::string_view SkipReasonText(SkipReason reason);

// How one measured run was read.
struct RunUse {
  std::string location;
  ir::CollectiveKind kind = ir::CollectiveKind::kAllReduce;
  GroupPlacement placement;
  bool placement_assumed = false;  // no host list: ranks spread gpus_per_node to a node
  Route route = Route::kNone;
  std::optional<Link> link;  // the link its samples calibrate
  int64_t samples = 0;       // rows used
  SkipReason skipped = SkipReason::kNone;
};

struct LinkFit {
  Link link = Link::kNvlink;
  ir::CollectiveKind kind = ir::CollectiveKind::kAllReduce;
  AlphaBeta fit;     // alpha: seconds per step; bandwidth: bus bytes/s
  AlphaBeta before;  // what the base hardware said
  int64_t runs = 0;
  int64_t samples = 0;
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  std::vector<int64_t> rank_counts;  // distinct, ascending
  // Relative residuals (model / measured - 1) of the calibrated model over
  // the fitted samples.
  double rms_residual = 0;
  double max_residual = 0;  // the one of largest magnitude, signed
  int64_t max_residual_bytes = 0;
  // The unconstrained fit gave a negative alpha; refitted with alpha = 0.
  bool alpha_clamped = false;
  // Hierarchical runs: at the largest size an NVLink stage, not the network,
  // set the bandwidth term, so the network bandwidth is only a lower bound.
  bool network_not_bottleneck = false;
};

struct Calibration {
  Hardware hardware;  // the base with the fits applied
  std::vector<LinkFit> fits;  // NVLink first, then network; collectives in enum order
  std::vector<RunUse> runs;   // in input order
};

// InvalidArgument when no run leaves anything to fit (each run's reason in
// the message), or a group of samples cannot separate alpha from beta (one
// size only) or has times that do not grow with size.
absl::StatusOr<Calibration> Calibrate(const Hardware& base,
                                      std::span<const ir::CollectiveRun> runs,
                                      const CalibrationOptions& options);

// A hardware file holding the fits: `extends: <base_spec>` and a
// `collectives:` section, each entry with a comment saying what it was
// fitted from. `sources` name the input files, for the header comment.
std::string CalibrationYaml(const Calibration& calibration, std::string_view base_spec,
                            std::span<const std::string> sources);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_CALIBRATION_H_
