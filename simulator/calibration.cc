#include "simulator/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "simulator/units.h"

namespace memplan::simulator {
namespace {

using ir::CollectiveKind;

// One measured time, as the model decomposes it:
//   time = offset + alpha * steps + bus_bytes / bandwidth
// for the (link, collective) being fitted; offset is the alpha time of the
// other links' stages, priced with what is already known.
struct Sample {
  const RunUse* run = nullptr;
  CollectivePlan plan;
  int64_t bytes = 0;
  double seconds = 0;
};

struct Group {
  Link link;
  CollectiveKind kind;
  std::vector<Sample> samples;
  std::set<const RunUse*> runs;
};

// The run's ranks and where they sit.
GroupPlacement PlacementOf(const ir::CollectiveRun& run, const Hardware& base, bool* assumed) {
  int64_t n = run.ranks;
  if (n == 0 && run.kind == CollectiveKind::kSendRecv) n = 2;
  *assumed = false;
  GroupPlacement p;
  if (static_cast<int64_t>(run.rank_hosts.size()) == run.ranks && run.ranks > 0) {
    std::map<std::string, int64_t> per_host;
    for (const std::string& h : run.rank_hosts) ++per_host[h];
    p.ranks = n;
    p.nodes = static_cast<int64_t>(per_host.size());
    for (const auto& [h, c] : per_host) p.ranks_per_node = std::max(p.ranks_per_node, c);
    for (const auto& [h, c] : per_host) p.uniform &= c == p.ranks_per_node;
  } else if (static_cast<int64_t>(run.group_devices.size()) == run.ranks && run.ranks > 0) {
    p = PlaceGroup(run.group_devices, base.gpus_per_node);
    *assumed = true;  // rank r on node r / gpus_per_node
  } else {
    p = PlaceEvenly(n, base.gpus_per_node);
    *assumed = true;
  }
  if (run.kind == CollectiveKind::kSendRecv) {
    // nccl-tests' sendrecv sends along a ring: the slowest pair sets the time.
    p = {2, p.nodes > 1 ? 2 : 1, 1, true};
    if (p.nodes == 1) p.ranks_per_node = 2;
  }
  return p;
}

// Weighted least squares for y = a*x1 + c*x2, weights w; a >= 0, c > 0.
struct Point {
  double x1, x2, y, w;
};
struct Solution {
  double a = 0, c = 0;
  bool clamped = false;
};

std::optional<Solution> Solve(const std::vector<Point>& points) {
  double s11 = 0, s22 = 0;
  for (const Point& p : points) {
    s11 += p.w * p.x1 * p.x1;
    s22 += p.w * p.x2 * p.x2;
  }
  if (s22 <= 0) return std::nullopt;
  // Columns scaled to unit weighted norm, for conditioning.
  const double n1 = s11 > 0 ? std::sqrt(s11) : 1.0;
  const double n2 = std::sqrt(s22);
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  for (const Point& p : points) {
    const double u1 = p.x1 / n1, u2 = p.x2 / n2;
    a11 += p.w * u1 * u1;
    a12 += p.w * u1 * u2;
    a22 += p.w * u2 * u2;
    b1 += p.w * u1 * p.y;
    b2 += p.w * u2 * p.y;
  }
  Solution s;
  const double det = a11 * a22 - a12 * a12;
  if (s11 > 0 && det > 1e-9 * a11 * a22) {
    s.a = (b1 * a22 - b2 * a12) / det / n1;
    s.c = (a11 * b2 - a12 * b1) / det / n2;
  } else if (s11 > 0) {
    return std::nullopt;  // x1 and x2 proportional: one size, or one rank count and no alpha
  }
  if (s11 == 0 || s.a < 0) {
    s.clamped = s11 > 0;
    s.a = 0;
    s.c = b2 / a22 / n2;
  }
  // A bus bandwidth outside 1kB/s..10PB/s or a latency above an hour is no
  // link: the times do not follow a line.
  if (!(s.c > 0) || !std::isfinite(s.c) || !std::isfinite(s.a)) return std::nullopt;
  if (1.0 / s.c < 1e3 || 1.0 / s.c > 1e16 || s.a > 3600) return std::nullopt;
  return s;
}

// The regression point of one sample for the (link, kind) being fitted.
Point PointOf(const Sample& s, Link link, CollectiveKind kind, const Hardware& hw) {
  // Weights 1/t: the variance of a measured time taken to grow with the
  // time. Relative weights (1/t^2) let the many latency-bound sizes bend the
  // bandwidth; plain least squares lets the largest sizes set alpha
  // (docs/cost-model.md compares the three on samples/nccl-tests/).
  Point p{0, 0, s.seconds, 1.0 / s.seconds};
  const CollectiveCost priced = PriceCollective(s.plan, hw);
  for (const CostStage& stage : priced.stages) {
    if (stage.link == link && stage.kind == kind) {
      p.x1 += static_cast<double>(stage.steps);
      p.x2 += stage.bus_bytes;
    } else if (s.plan.combine == Combine::kPipelined) {
      p.y -= stage.alpha_seconds;  // known latency of the other stages
    }
  }
  return p;
}

absl::Status FitGroup(const Group& group, Hardware& hw, std::vector<LinkFit>& fits) {
  std::vector<Point> points;
  for (const Sample& s : group.samples) points.push_back(PointOf(s, group.link, group.kind, hw));
  const std::optional<Solution> solution = Solve(points);
  if (!solution) {
    return absl::InvalidArgumentError(
        StrCat("cannot fit ", ir::CollectiveName(group.kind), " on ", LinkName(group.link), " from ",
               group.samples.size(), " samples (", group.samples.front().run->location,
               "): expected at least two sizes whose times grow with size"));
  }
  LinkFit fit;
  fit.link = group.link;
  fit.kind = group.kind;
  fit.before = hw.ParamsFor(group.link, group.kind);
  fit.fit = {solution->a, 1.0 / solution->c};
  fit.alpha_clamped = solution->clamped;
  hw.collectives[{group.link, group.kind}] = fit.fit;

  fit.runs = static_cast<int64_t>(group.runs.size());
  fit.samples = static_cast<int64_t>(group.samples.size());
  fit.min_bytes = INT64_MAX;
  std::set<int64_t> ranks;
  double sum_squares = 0;
  const Sample* largest = nullptr;
  for (const Sample& s : group.samples) {
    fit.min_bytes = std::min(fit.min_bytes, s.bytes);
    fit.max_bytes = std::max(fit.max_bytes, s.bytes);
    ranks.insert(s.run->placement.ranks);
    const double residual = PriceCollective(s.plan, hw).seconds / s.seconds - 1.0;
    sum_squares += residual * residual;
    if (std::fabs(residual) > std::fabs(fit.max_residual)) {
      fit.max_residual = residual;
      fit.max_residual_bytes = s.bytes;
    }
    if (largest == nullptr || s.bytes > largest->bytes) largest = &s;
  }
  fit.rms_residual = std::sqrt(sum_squares / static_cast<double>(group.samples.size()));
  fit.rank_counts.assign(ranks.begin(), ranks.end());
  if (largest != nullptr && largest->plan.route == Route::kHierarchical) {
    double network = 0, nvlink = 0;
    for (const CostStage& stage : PriceCollective(largest->plan, hw).stages) {
      (stage.link == Link::kNetwork ? network : nvlink) =
          std::max(stage.link == Link::kNetwork ? network : nvlink, stage.bandwidth_seconds);
    }
    fit.network_not_bottleneck = nvlink > network;
  }
  fits.push_back(std::move(fit));
  return absl::OkStatus();
}

// "8GiB", "64MB", "4B".
std::string Bytes(int64_t b) {
  std::string text = FormatQuantity(static_cast<double>(b), Quantity::kBytes);
  if (!text.empty() && text.back() >= '0' && text.back() <= '9') text += 'B';
  return text;
}

std::string Percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%+.1f%%", 100.0 * fraction);
  return buffer;
}

}  // namespace

std::string_view SkipReasonText(SkipReason reason) {
  switch (reason) {
    case SkipReason::kNone:
      return "";
    case SkipReason::kOneRank:
      return "one rank: nothing moves";
    case SkipReason::kRanksUnknown:
      return "the output lists no devices, so the rank count is unknown";
    case SkipReason::kNoSamples:
      return "no row within the size range has a time";
  }
  return "";
}

namespace {

using Groups = std::map<std::pair<Link, CollectiveKind>, Group>;

// How a run is used: its placement, route and link, or why it is skipped;
// its rows within the options' size range go to its (link, collective)
// group, their run pointers left for LinkSamplesToRuns.
RunUse UseRun(const ir::CollectiveRun& run, const Hardware& base, const CalibrationOptions& options,
              Groups& groups) {
  RunUse u;
  u.location = run.location;
  u.kind = run.kind;
  u.placement = PlacementOf(run, base, &u.placement_assumed);
  if (u.placement.ranks == 0) {
    u.skipped = SkipReason::kRanksUnknown;
    return u;
  }
  const CollectivePlan probe = PlanCollective(run.kind, 1.0, u.placement);
  u.route = probe.route;
  if (probe.route == Route::kNone) {
    u.skipped = SkipReason::kOneRank;
    return u;
  }
  u.link = probe.route == Route::kNvlink ? Link::kNvlink : Link::kNetwork;
  Group& group = groups[{*u.link, run.kind}];
  group.link = *u.link;
  group.kind = run.kind;
  for (const ir::CollectiveSample& s : run.samples) {
    if (s.in_place && !options.include_in_place) continue;
    if (s.bytes <= 0 || s.bytes < options.min_bytes || s.bytes > options.max_bytes) continue;
    if (!std::isfinite(s.time_us) || s.time_us <= 0) continue;
    group.samples.push_back(
        {nullptr, PlanCollective(run.kind, static_cast<double>(s.bytes), u.placement), s.bytes,
         s.time_us * 1e-6});
    ++u.samples;
  }
  if (u.samples == 0) {
    u.skipped = SkipReason::kNoSamples;
    u.link.reset();
  }
  return u;
}

// Points each sample at its run, once `uses` no longer moves.
void LinkSamplesToRuns(std::span<const ir::CollectiveRun> runs, const std::vector<RunUse>& uses,
                       Groups& groups) {
  std::map<std::pair<Link, CollectiveKind>, size_t> filled;
  size_t r = 0;
  for (const ir::CollectiveRun& run : runs) {
    const RunUse& u = uses[r++];
    if (!u.link) continue;
    Group& group = groups[{*u.link, run.kind}];
    size_t& next = filled[{*u.link, run.kind}];
    for (int64_t i = 0; i < u.samples; ++i) group.samples[next++].run = &u;
    group.runs.insert(&u);
  }
}

}  // namespace

absl::StatusOr<Calibration> Calibrate(const Hardware& base,
                                      std::span<const ir::CollectiveRun> runs,
                                      const CalibrationOptions& options) {
  Calibration out;
  out.hardware = base;
  out.runs.reserve(runs.size());
  Groups groups;
  for (const ir::CollectiveRun& run : runs) out.runs.push_back(UseRun(run, base, options, groups));
  LinkSamplesToRuns(runs, out.runs, groups);
  // NVLink first: the network fits subtract the NVLink stages' latency.
  for (Link link : kAllLinks) {
    for (CollectiveKind kind : ir::kAllCollectiveKinds) {
      auto it = groups.find({link, kind});
      if (it == groups.end() || it->second.samples.empty()) continue;
      RETURN_IF_ERROR(FitGroup(it->second, out.hardware, out.fits));
    }
  }
  if (out.fits.empty()) {
    std::string reasons;
    for (const RunUse& u : out.runs) {
      StrAppend(&reasons, "\n  ", u.location, ": ", SkipReasonText(u.skipped));
    }
    return absl::InvalidArgumentError(
        StrCat("nothing to calibrate: no run has rows to fit", reasons));
  }
  return out;
}

std::string CalibrationYaml(const Calibration& c, std::string_view base_spec,
                            std::span<const std::string> sources) {
  std::string out =
      "# Written by `memplan calibrate`: alpha (latency per step) and bus bandwidth per\n"
      "# link and collective, fitted by least squares on time against bytes\n"
      "# (docs/cost-model.md). Use it with --hw FILE: it extends the base hardware\n"
      "# and replaces only these collectives' parameters.\n#\n# Measurements:\n";
  for (const std::string& s : sources) StrAppend(&out, "#   ", s, "\n");
  out += "# Runs:\n";
  for (const RunUse& u : c.runs) {
    StrAppend(&out, "#   ", u.location, ": ", ir::CollectiveName(u.kind), ", ", u.placement.ranks,
              " ranks on ", u.placement.nodes, u.placement.nodes == 1 ? " node" : " nodes",
              u.placement_assumed ? " (assumed)" : "");
    if (u.skipped != SkipReason::kNone) {
      StrAppend(&out, "; not used: ", SkipReasonText(u.skipped), "\n");
    } else {
      StrAppend(&out, "; ", u.samples, " rows -> ", LinkName(*u.link), " (", RouteName(u.route),
                ")\n");
    }
  }
  StrAppend(&out, "name: ", c.hardware.name, "-calibrated\n");
  StrAppend(&out, "extends: ", base_spec, "\n");
  out += "collectives:\n";
  std::optional<Link> current;
  for (const LinkFit& f : c.fits) {
    if (current != f.link) {
      StrAppend(&out, "  ", LinkName(f.link), ":\n");
      current = f.link;
    }
    std::string ranks;
    for (int64_t r : f.rank_counts) StrAppend(&ranks, ranks.empty() ? "" : "/", r);
    StrAppend(&out, "    # ", f.samples, " rows, ", ranks, " ranks, ", Bytes(f.min_bytes), "..",
              Bytes(f.max_bytes), "; residual rms ", Percent(f.rms_residual).substr(1),
              ", largest ", Percent(f.max_residual), " at ", Bytes(f.max_residual_bytes),
              f.alpha_clamped ? "; alpha clamped at 0" : "",
              f.network_not_bottleneck ? "; NVLink-bound: a lower bound" : "", "\n");
    StrAppend(&out, "    ", ir::CollectiveName(f.kind),
              ": {alpha: ", FormatQuantityRounded(f.fit.alpha, Quantity::kDuration, 4),
              ", bandwidth: ", FormatQuantityRounded(f.fit.bandwidth, Quantity::kBandwidth, 4),
              "}\n");
  }
  return out;
}

}  // namespace memplan::simulator
