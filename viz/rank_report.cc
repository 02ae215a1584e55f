#include "viz/rank_report.h"

#include <array>
#include <cstdlib>
#include <vector>

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "viz/predict_report.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using simulator::RankedCandidate;
using simulator::Ranking;
using simulator::SkippedCandidate;

// "-1.50 GiB" for a negative headroom.
std::string SignedBytes(int64_t bytes) {
  return bytes < 0 ? "-" + HumanBytes(-bytes) : HumanBytes(bytes);
}

std::string Where(const RankedCandidate& c) { return c.source.empty() ? c.family : c.source; }

std::string NodesText(const Ranking& r) {
  return StrCat(r.nodes, r.nodes == 1 ? " node" : " nodes", " of ", r.gpus_per_node,
                r.gpus_per_node == 1 ? " GPU" : " GPUs");
}

std::string_view SkipReasonName(simulator::SkipReason reason) {
  switch (reason) {
    case simulator::SkipReason::kFamilyRule: return "family_rule";
    case simulator::SkipReason::kDeviceCount: return "device_count";
    case simulator::SkipReason::kPrediction: return "prediction";
  }
  return "unknown";
}

void CandidateRows(TextTable& table, const std::vector<RankedCandidate>& list, bool ranked) {
  int64_t n = 0;
  for (const RankedCandidate& c : list) {
    const simulator::StepTime& t = c.cost.step;
    table.AddRow({ranked ? StrCat(++n) : "-", c.cost.prediction.mesh.ToString(), c.label, Where(c),
                  HumanBytes(c.footprint_bytes), SignedBytes(c.headroom_bytes),
                  HumanSeconds(t.step_seconds), HumanSeconds(t.compute_seconds),
                  HumanSeconds(t.collective_seconds), HumanSeconds(t.exposed_seconds),
                  HumanBytes(static_cast<int64_t>(c.cost.bytes_moved))});
  }
}

TextTable CandidateTable() {
  using A = TextTable::Align;
  return TextTable({{"#", A::kRight},
                    {"mesh", A::kLeft},
                    {"plan", A::kLeft},
                    {"from", A::kLeft},
                    {"footprint", A::kRight},
                    {"headroom", A::kRight},
                    {"step", A::kRight},
                    {"compute", A::kRight},
                    {"comm", A::kRight},
                    {"exposed", A::kRight},
                    {"moved", A::kRight}});
}

void MeshJson(llvm::json::OStream& j, const ir::Mesh& mesh) {
  j.attributeArray("mesh", [&] {
    for (const ir::MeshAxis& axis : mesh.axes) {
      j.object([&] {
        j.attribute("name", JsonText(axis.name));
        j.attribute("size", axis.size);
      });
    }
  });
}

// The first device's bytes ("memory"), when the prediction has devices.
void DeviceMemoryJson(llvm::json::OStream& j, const predictor::Prediction& p) {
  if (p.devices.empty()) return;
  const predictor::DeviceMemory& d = p.devices.front();
  j.attributeObject("memory", [&] {
    j.attribute("argument_bytes", d.argument_bytes);
    j.attribute("output_bytes", d.output_bytes);
    j.attribute("alias_bytes", d.alias_bytes);
    j.attribute("temp_bytes", d.temp_bytes);
    j.attribute("live_peak_bytes", d.live_peak_bytes);
  });
}

// "phases": compute per step phase of a training step, else null.
void PhasesJson(llvm::json::OStream& j, const simulator::CandidateCost& cost) {
  j.attributeBegin("phases");
  if (cost.phases.training) {
    j.object([&] {
      for (analyzer::StepPhase ph : analyzer::kStepPhases) {
        const simulator::PhaseCompute& pc = cost.phases.of(ph);
        j.attributeObject(JsonRef(analyzer::StepPhaseName(ph)), [&] {
          j.attribute("compute_seconds", pc.seconds);
          j.attribute("flops", pc.flops);
          j.attribute("bytes_accessed", pc.bytes_accessed);
          j.attribute("hidden_seconds", cost.step.hidden_seconds[static_cast<size_t>(ph)]);
        });
      }
    });
  } else {
    j.value(nullptr);
  }
  j.attributeEnd();
}

void PricedCollectiveJson(llvm::json::OStream& j, const ir::Mesh& mesh,
                          const simulator::PricedCollective& pc) {
  j.object([&] {
    j.attribute("kind", JsonRef(predictor::CollectiveKindName(pc.kind)));
    j.attribute("axes", JsonText(AxisNames(mesh, pc.axes)));
    j.attribute("ranks", pc.ranks);
    j.attribute("members", pc.members);
    j.attribute("operations", pc.operations);
    j.attribute("bytes", pc.bytes);
    j.attribute("route", JsonRef(simulator::RouteName(pc.route)));
    j.attribute("seconds", pc.seconds);
    j.attribute("alpha_seconds", pc.alpha_seconds);
    j.attribute("bandwidth_seconds", pc.bandwidth_seconds);
    j.attribute("nvlink_bytes", pc.nvlink_bytes);
    j.attribute("network_bytes", pc.network_bytes);
    j.attribute("overlappable", pc.overlappable);
    j.attribute("role", JsonRef(simulator::CollectiveRoleName(pc.role)));
    j.attributeArray("window", [&] {
      for (analyzer::StepPhase ph : analyzer::kStepPhases) {
        if (pc.window & simulator::PhaseBit(ph)) j.value(JsonRef(analyzer::StepPhaseName(ph)));
      }
    });
  });
}

void CandidateJson(llvm::json::OStream& j, const RankedCandidate& c, int64_t rank) {
  const predictor::Prediction& p = c.cost.prediction;
  j.object([&] {
    if (rank > 0) j.attribute("rank", rank);
    j.attribute("label", JsonText(c.label));
    j.attribute("family", c.family.empty() ? llvm::json::Value(nullptr) : JsonText(c.family));
    j.attribute("source", c.source.empty() ? llvm::json::Value(nullptr) : JsonText(c.source));
    MeshJson(j, p.mesh);
    j.attribute("footprint_bytes", c.footprint_bytes);
    j.attribute("headroom_bytes", c.headroom_bytes);
    DeviceMemoryJson(j, p);
    j.attribute("step_seconds", c.cost.step.step_seconds);
    j.attribute("compute_seconds", c.cost.step.compute_seconds);
    j.attribute("collective_seconds", c.cost.step.collective_seconds);
    j.attribute("exposed_seconds", c.cost.step.exposed_seconds);
    j.attribute("flops", c.cost.flops);
    j.attribute("bytes_accessed", c.cost.bytes_accessed);
    j.attribute("bytes_moved", c.cost.bytes_moved);
    j.attribute("network_bytes", c.cost.network_bytes);
    PhasesJson(j, c.cost);
    j.attributeArray("collectives", [&] {
      for (const simulator::PricedCollective& pc : c.cost.collectives) PricedCollectiveJson(j, p.mesh, pc);
    });
  });
}

// The chosen candidate's step by phase and its collectives by role; "" for
// a program that is no training step and has no collectives.
std::string StepBreakdown(const RankedCandidate& c) {
  std::string s;
  if (c.cost.phases.training) {
    using A = TextTable::Align;
    TextTable table({{"phase", A::kLeft},
                     {"compute", A::kRight},
                     {"share", A::kRight},
                     {"comm hidden", A::kRight}});
    for (analyzer::StepPhase ph : analyzer::kStepPhases) {
      const double seconds = c.cost.phases.of(ph).seconds;
      const double total = c.cost.step.compute_seconds;
      table.AddRow({std::string(analyzer::StepPhaseName(ph)), HumanSeconds(seconds),
                    StrCat(static_cast<int>(total > 0 ? 100.0 * seconds / total + 0.5 : 0), "%"),
                    HumanSeconds(c.cost.step.hidden_seconds[static_cast<size_t>(ph)])});
    }
    s += "Its training step:\n" + table.Render();
  }
  std::array<double, 3> by_role = {};
  for (const simulator::PricedCollective& pc : c.cost.collectives) {
    by_role[static_cast<size_t>(pc.role)] += pc.seconds;
  }
  if (!c.cost.collectives.empty()) {
    StrAppend(&s, "Its collectives: gradient ", HumanSeconds(by_role[0]), ", prefetch ",
              HumanSeconds(by_role[1]), ", critical ", HumanSeconds(by_role[2]), "; exposed ",
              HumanSeconds(c.cost.step.exposed_seconds), "\n");
  }
  return s;
}

}  // namespace

std::string DescribeSkip(const SkippedCandidate& s) {
  switch (s.reason) {
    case simulator::SkipReason::kFamilyRule:
      return StrCat("the family rules cannot shard the program on this mesh: ", s.detail);
    case simulator::SkipReason::kDeviceCount:
      return StrCat("its mesh (", s.detail, ") has ", s.mesh_devices,
                    " devices, not the ranking's");
    case simulator::SkipReason::kPrediction:
      return StrCat("the prediction failed: ", s.detail);
  }
  return s.detail;
}

std::string DescribeNothingFits(const Ranking& r) {
  const RankedCandidate* smallest = r.Smallest();
  if (smallest == nullptr) {
    return StrCat("no candidate could be priced (", r.skipped.size(), " skipped)");
  }
  return StrCat("no candidate fits the budget of ", HumanBytes(r.budget_bytes),
                " per device; the smallest footprint found is ",
                HumanBytes(smallest->footprint_bytes), " (", smallest->label, ", ",
                GroupedBytes(smallest->footprint_bytes), " bytes)");
}

std::string RenderRankText(const RankReportInput& in) {
  const Ranking& r = in.ranking;
  std::string s;
  StrAppend(&s, "Ranking of ", in.module_name, " on ", r.devices, " devices (", in.hardware, ", ",
            NodesText(r), "), budget ", HumanBytes(r.budget_bytes), " per device, overlap ",
            simulator::OverlapModelName(in.overlap), "\n\n");
  if (r.fitting.empty()) {
    StrAppend(&s, DescribeNothingFits(r), "\n");
  } else {
    StrAppend(&s, "Within the budget (", r.fitting.size(), "), fastest first:\n");
    TextTable table = CandidateTable();
    CandidateRows(table, r.fitting, true);
    s += table.Render();
    const RankedCandidate& best = r.fitting.front();
    StrAppend(&s, "\nChosen: ", best.label, " (mesh ", best.cost.prediction.mesh.ToString(),
              "), step ", HumanSeconds(best.cost.step.step_seconds), ", footprint ",
              HumanBytes(best.footprint_bytes), " of ", HumanBytes(r.budget_bytes), "\n");
    s += StepBreakdown(best);
  }
  if (!r.over_budget.empty()) {
    StrAppend(&s, "\nOver the budget (", r.over_budget.size(), "), smallest footprint first:\n");
    TextTable table = CandidateTable();
    CandidateRows(table, r.over_budget, false);
    s += table.Render();
  }
  if (!r.skipped.empty()) {
    StrAppend(&s, "\nNot priced (", r.skipped.size(), "):\n");
    for (const SkippedCandidate& k : r.skipped) {
      StrAppend(&s, "  ", k.label, " (", k.source.empty() ? k.family : k.source, "): ",
                DescribeSkip(k), "\n");
    }
  }
  return MarkupSafeText(s);  // names come from the input: no terminal escapes
}

std::string RenderRankJson(const RankReportInput& in) {
  const Ranking& r = in.ranking;
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.rank.v1");
    j.attribute("module", JsonText(in.module_name));
    j.attribute("hardware", JsonText(in.hardware));
    j.attribute("devices", r.devices);
    j.attribute("nodes", r.nodes);
    j.attribute("gpus_per_node", r.gpus_per_node);
    j.attribute("budget_bytes", r.budget_bytes);
    j.attribute("overlap", JsonRef(simulator::OverlapModelName(in.overlap)));
    j.attribute("chosen", r.fitting.empty() ? llvm::json::Value(nullptr)
                                            : JsonText(r.fitting.front().label));
    if (const RankedCandidate* smallest = r.Smallest()) {
      j.attributeObject("smallest_footprint", [&] {
        j.attribute("label", JsonText(smallest->label));
        j.attribute("bytes", smallest->footprint_bytes);
      });
    } else {
      j.attribute("smallest_footprint", nullptr);
    }
    j.attributeArray("fitting", [&] {
      int64_t rank = 0;
      for (const RankedCandidate& c : r.fitting) CandidateJson(j, c, ++rank);
    });
    j.attributeArray("over_budget", [&] {
      for (const RankedCandidate& c : r.over_budget) CandidateJson(j, c, 0);
    });
    j.attributeArray("skipped", [&] {
      for (const SkippedCandidate& k : r.skipped) {
        j.object([&] {
          j.attribute("label", JsonText(k.label));
          j.attribute("family", k.family.empty() ? llvm::json::Value(nullptr) : JsonText(k.family));
          j.attribute("source", k.source.empty() ? llvm::json::Value(nullptr) : JsonText(k.source));
          j.attribute("reason", JsonRef(SkipReasonName(k.reason)));
          j.attribute("message", JsonText(DescribeSkip(k)));
        });
      }
    });
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
