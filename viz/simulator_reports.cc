#include "viz/simulator_reports.h"

#include <cmath>
#include <cstdio>

#include "viz/format.h"
#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "simulator/units.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using simulator::FormatQuantity;
using simulator::FormatQuantityRounded;
using simulator::Quantity;

// "8GiB", "64MB", "4B".
std::string Bytes(int64_t b) {
  std::string text = FormatQuantity(static_cast<double>(b), Quantity::kBytes);
  if (!text.empty() && text.back() >= '0' && text.back() <= '9') text += 'B';
  return text;
}

std::string PercentOf(double fraction, bool sign) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), sign ? "%+.1f%%" : "%.1f%%", 100.0 * fraction);
  return buffer;
}

std::string Placement(const simulator::RunUse& u) {
  return StrCat(u.placement.nodes, " x ", u.placement.ranks_per_node,
                u.placement.uniform ? "" : " (uneven)", u.placement_assumed ? " (assumed)" : "");
}

}  // namespace

std::string RenderHardwareList(std::span<const simulator::Hardware> hardware) {
  TextTable table({{"name"},
                   {"HBM", TextTable::Align::kRight},
                   {"HBM bandwidth", TextTable::Align::kRight},
                   {"bf16 dense", TextTable::Align::kRight},
                   {"NVLink each way", TextTable::Align::kRight},
                   {"network per GPU", TextTable::Align::kRight},
                   {"GPUs/node", TextTable::Align::kRight},
                   {"description"}});
  for (const simulator::Hardware& hw : hardware) {
    table.AddRow({hw.name, Bytes(hw.hbm_bytes), FormatQuantity(hw.hbm_bandwidth, Quantity::kBandwidth),
                  FormatQuantity(hw.PeakFlops(simulator::Precision::kBf16), Quantity::kFlopRate),
                  FormatQuantity(hw.nvlink.bandwidth, Quantity::kBandwidth),
                  FormatQuantity(hw.network.bandwidth, Quantity::kBandwidth),
                  StrCat(hw.gpus_per_node), hw.description});
  }
  return table.Render("");
}

namespace {

std::string RunsTable(const simulator::Calibration& c) {
  TextTable runs({{"run"},
                  {"collective"},
                  {"ranks", TextTable::Align::kRight},
                  {"nodes x per node"},
                  {"route"},
                  {"rows", TextTable::Align::kRight},
                  {"fits"}});
  for (const simulator::RunUse& u : c.runs) {
    runs.AddRow({u.location, std::string(ir::CollectiveName(u.kind)), StrCat(u.placement.ranks),
                 Placement(u), std::string(simulator::RouteName(u.route)), StrCat(u.samples),
                 u.link ? std::string(simulator::LinkName(*u.link))
                        : StrCat("nothing: ", simulator::SkipReasonText(u.skipped))});
  }
  return runs.Render();
}

// What a fit's flags say, one line each.
void AppendFitNotes(const simulator::LinkFit& f, std::string& notes) {
  const std::string which = StrCat(simulator::LinkName(f.link), " ", ir::CollectiveName(f.kind), ": ");
  if (f.alpha_clamped) {
    StrAppend(&notes, "  ", which,
              "the best line had a negative intercept; alpha is fixed at 0 and the bandwidth "
              "refitted\n");
  }
  if (f.network_not_bottleneck) {
    StrAppend(&notes, "  ", which,
              "at the largest size an NVLink stage, not the network, set the time: the "
              "network bandwidth is a lower bound\n");
  }
}

// The fits table; the fits' notes into `notes`.
std::string FitsTable(const simulator::Calibration& c, std::string& notes) {
  TextTable fits({{"link"},
                  {"collective"},
                  {"rows", TextTable::Align::kRight},
                  {"ranks"},
                  {"sizes"},
                  {"alpha", TextTable::Align::kRight},
                  {"bandwidth", TextTable::Align::kRight},
                  {"base alpha", TextTable::Align::kRight},
                  {"base bandwidth", TextTable::Align::kRight},
                  {"residual rms", TextTable::Align::kRight},
                  {"largest residual", TextTable::Align::kRight}});
  for (const simulator::LinkFit& f : c.fits) {
    std::string ranks;
    for (int64_t r : f.rank_counts) StrAppend(&ranks, ranks.empty() ? "" : ",", r);
    fits.AddRow({std::string(simulator::LinkName(f.link)), std::string(ir::CollectiveName(f.kind)),
                 StrCat(f.samples), ranks, StrCat(Bytes(f.min_bytes), "..", Bytes(f.max_bytes)),
                 FormatQuantityRounded(f.fit.alpha, Quantity::kDuration, 4),
                 FormatQuantityRounded(f.fit.bandwidth, Quantity::kBandwidth, 4),
                 FormatQuantityRounded(f.before.alpha, Quantity::kDuration, 4),
                 FormatQuantityRounded(f.before.bandwidth, Quantity::kBandwidth, 4),
                 PercentOf(f.rms_residual, false),
                 StrCat(PercentOf(f.max_residual, true), " at ", Bytes(f.max_residual_bytes))});
    AppendFitNotes(f, notes);
  }
  return fits.Render();
}

}  // namespace

std::string RenderCalibrationText(const CalibrationReportInput& input) {
  const simulator::Calibration& c = input.calibration;
  std::string out = StrCat("Calibration of ", input.base);
  if (!input.base_reason.empty()) StrAppend(&out, " (", input.base_reason, ")");
  StrAppend(&out, " from ", c.runs.size(), c.runs.size() == 1 ? " run" : " runs", "\n\n");
  out += "Runs\n";
  out += RunsTable(c);
  out += "\nFits: time = alpha * steps + bus bytes / bandwidth (weighted least squares, "
         "weights 1/time)\n";
  std::string notes;
  out += FitsTable(c, notes);
  out += "  residual: model time / measured time - 1, over the fitted rows\n";
  if (!notes.empty()) StrAppend(&out, "\nNotes\n", notes);
  if (input.warnings != nullptr && !input.warnings->warnings().empty()) {
    out += "\nInput warnings\n";
    for (const ir::Warning& w : input.warnings->warnings()) {
      StrAppend(&out, "  ", w.first_location, ": ", w.kind,
                w.count > 1 ? StrCat(" (", w.count, " times)") : "", "\n");
    }
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

namespace {

using llvm::json::OStream;

void RunUseJson(OStream& j, const simulator::RunUse& u) {
  j.object([&] {
    j.attribute("location", JsonText(u.location));
    j.attribute("collective", JsonRef(ir::CollectiveName(u.kind)));
    j.attribute("ranks", u.placement.ranks);
    j.attribute("nodes", u.placement.nodes);
    j.attribute("ranks_per_node", u.placement.ranks_per_node);
    j.attribute("uniform", u.placement.uniform);
    j.attribute("placement_assumed", u.placement_assumed);
    j.attribute("route", JsonRef(simulator::RouteName(u.route)));
    if (u.link) {
      j.attribute("link", JsonRef(simulator::LinkName(*u.link)));
    } else {
      j.attribute("link", nullptr);
    }
    j.attribute("rows", u.samples);
    if (u.skipped == simulator::SkipReason::kNone) {
      j.attribute("skipped", nullptr);
    } else {
      j.attribute("skipped", JsonRef(simulator::SkipReasonText(u.skipped)));
    }
  });
}

void LinkFitJson(OStream& j, const simulator::LinkFit& f) {
  j.object([&] {
    j.attribute("link", JsonRef(simulator::LinkName(f.link)));
    j.attribute("collective", JsonRef(ir::CollectiveName(f.kind)));
    j.attribute("alpha_seconds", f.fit.alpha);
    j.attribute("bandwidth_bytes_per_second", f.fit.bandwidth);
    j.attribute("base_alpha_seconds", f.before.alpha);
    j.attribute("base_bandwidth_bytes_per_second", f.before.bandwidth);
    j.attribute("runs", f.runs);
    j.attribute("rows", f.samples);
    j.attribute("min_bytes", f.min_bytes);
    j.attribute("max_bytes", f.max_bytes);
    j.attributeArray("rank_counts", [&] {
      for (int64_t r : f.rank_counts) j.value(r);
    });
    j.attribute("rms_residual", f.rms_residual);
    j.attribute("max_residual", f.max_residual);
    j.attribute("max_residual_bytes", f.max_residual_bytes);
    j.attribute("alpha_clamped", f.alpha_clamped);
    j.attribute("network_not_bottleneck", f.network_not_bottleneck);
  });
}

void WarningsJson(OStream& j, const ir::Diagnostics* warnings) {
  j.attributeArray("warnings", [&] {
    if (warnings == nullptr) return;
    for (const ir::Warning& w : warnings->warnings()) {
      j.object([&] {
        j.attribute("kind", JsonText(w.kind));
        j.attribute("first_location", JsonText(w.first_location));
        j.attribute("count", w.count);
      });
    }
  });
}

}  // namespace

std::string RenderCalibrationJson(const CalibrationReportInput& input) {
  const simulator::Calibration& c = input.calibration;
  std::string out;
  llvm::raw_string_ostream os(out);
  OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.calibration.v1");
    j.attribute("base", JsonText(input.base));
    j.attribute("base_reason", JsonText(input.base_reason));
    j.attributeArray("sources", [&] {
      for (const std::string& s : input.sources) j.value(JsonText(s));
    });
    j.attributeArray("runs", [&] {
      for (const simulator::RunUse& u : c.runs) RunUseJson(j, u);
    });
    j.attributeArray("fits", [&] {
      for (const simulator::LinkFit& f : c.fits) LinkFitJson(j, f);
    });
    WarningsJson(j, input.warnings);
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
