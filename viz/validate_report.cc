#include "viz/validate_report.h"

#include <cstdio>

#include "viz/json_text.h"
#include "executor/collective_data.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/collectives_report.h"
#include "viz/format.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

using executor::CollectiveKind;
using executor::OpMeasurement;
using executor::PlanOp;
using executor::RankOutcome;
using executor::RankReport;

std::string Fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  return buffer;
}

std::string Bytes(int64_t bytes) {
  if (bytes < 1024 && bytes > -1024) return HumanBytes(bytes);
  return StrCat(HumanBytes(bytes), " (", GroupedBytes(bytes), " B)");
}

// "65.5 kFLOP", "1.07 GFLOP", "2.20 TFLOP".
std::string Flops(double flops) {
  static constexpr const char* kUnits[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  int unit = 0;
  while (flops >= 1000.0 && unit < 5) {
    flops /= 1000.0;
    ++unit;
  }
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), unit == 0 ? "%.0f %s" : "%.2f %s", flops, kUnits[unit]);
  return buffer;
}

std::string GroupString(const std::vector<int>& group) {
  std::string out = "[";
  for (size_t i = 0; i < group.size(); ++i) StrAppend(&out, i ? "," : "", group[i]);
  return out + "]";
}

std::string DescribeOp(const PlanOp& op) {
  if (op.kind == PlanOp::Kind::kGemm) {
    const executor::GemmOp& g = op.gemm;
    return StrCat("gemm ", g.m, "x", g.n, "x", g.k, " ", ir::DTypeName(g.dtype),
                  g.out_dtype != g.dtype ? StrCat("->", ir::DTypeName(g.out_dtype)) : std::string(),
                  g.count > 1 ? StrCat(" x", g.count) : std::string());
  }
  const executor::CollectiveOp& c = op.collective;
  return StrCat(executor::CollectiveName(c.kind), " ", ir::DTypeName(c.dtype), " on ", GroupString(c.group));
}

double PercentError(double measured, double predicted) {
  return predicted > 0 ? 100.0 * (measured - predicted) / predicted : 0.0;
}

void RenderRankOps(const executor::RankPlan& plan, const RankReport& rank, std::string& out) {
  if (rank.ops.empty()) return;
  TextTable table({{"op", TextTable::Align::kRight},
                   {"step", TextTable::Align::kRight},
                   {"what"},
                   {"size", TextTable::Align::kRight},
                   {"time (us)", TextTable::Align::kRight},
                   {"predicted (us)", TextTable::Align::kRight},
                   {"error", TextTable::Align::kRight},
                   {"algbw (GB/s)", TextTable::Align::kRight},
                   {"busbw (GB/s)", TextTable::Align::kRight},
                   {"TFLOP/s", TextTable::Align::kRight},
                   {"#wrong", TextTable::Align::kRight}});
  for (const OpMeasurement& m : rank.ops) {
    const PlanOp& op = plan.ops[m.index];
    std::vector<std::string> row = {StrCat(m.index), StrCat(op.step), DescribeOp(op) + (m.scratch ? " *" : "")};
    if (op.kind == PlanOp::Kind::kCollective) {
      row.push_back(HumanBytes(op.collective.bytes));
    } else {
      row.push_back(Flops(executor::GemmFlops(op.gemm)));
    }
    row.push_back(Fixed(m.seconds * 1e6, 2));
    row.push_back(op.predicted_seconds ? Fixed(*op.predicted_seconds * 1e6, 2) : "-");
    row.push_back(op.predicted_seconds ? SignedPercent(PercentError(m.seconds, *op.predicted_seconds)) : "-");
    if (op.kind == PlanOp::Kind::kCollective) {
      const int n = static_cast<int>(op.collective.group.size());
      row.push_back(Fixed(executor::AlgorithmBandwidthGBps(op.collective.bytes, m.seconds), 2));
      row.push_back(Fixed(executor::BusBandwidthGBps(op.collective.kind, n, op.collective.bytes, m.seconds), 2));
      row.push_back("-");
      row.push_back(StrCat(m.wrong));
    } else {
      row.push_back("-");
      row.push_back("-");
      row.push_back(m.seconds > 0 ? Fixed(executor::GemmFlops(op.gemm) / m.seconds / 1e12, 3) : "-");
      row.push_back("-");
    }
    table.AddRow(std::move(row));
  }
  out += table.Render("    ");
  bool any_scratch = false;
  for (const OpMeasurement& m : rank.ops) any_scratch = any_scratch || m.scratch;
  if (any_scratch) out += "    * on the executor's scratch memory (the plan binds no buffer)\n";
}

void RenderRank(const ValidateViewInput& input, const RankReport& rank, std::string& out) {
  const executor::RankPlan& plan = input.plan.ranks[rank.rank];
  const std::string problem = RankProblemSentence(rank);
  StrAppend(&out, "\nrank ", rank.rank, ": ", problem.empty() ? "ok" : problem.substr(problem.find(": ") + 2),
            "\n");
  if (!rank.device.empty()) StrAppend(&out, "  device  ", rank.device, "\n");
  StrAppend(&out, "  memory (", executor::AllocationModeName(rank.mode), " mode)\n");
  StrAppend(&out, "    planned peak   ", Bytes(rank.planned_peak_bytes),
            rank.planned_peak_stated ? ", stated by the plan"
            : rank.mode == executor::AllocationMode::kArena ? ", the arena the plan places its buffers in"
                                                            : ", the most bytes of buffers live at one step",
            "\n");
  if (rank.planned_peak_stated && rank.plan_peak_bytes != rank.planned_peak_bytes) {
    StrAppend(&out, "    plan's buffers ", Bytes(rank.plan_peak_bytes), "\n");
  }
  if (rank.outcome == RankOutcome::kOk || rank.outcome == RankOutcome::kFailed ||
      rank.outcome == RankOutcome::kTimedOut) {
    StrAppend(&out, "    measured peak  ", Bytes(rank.measured_peak_bytes), "  ",
              SignedPercent(executor::PeakErrorPercent(rank)), "\n");
    StrAppend(&out, "    scratch peak   ", Bytes(rank.scratch_peak_bytes), "\n");
  }
  if (rank.reserved_peak_bytes) StrAppend(&out, "    pool reserved  ", Bytes(*rank.reserved_peak_bytes), "\n");
  if (rank.device_free_before_bytes && rank.device_total_bytes) {
    StrAppend(&out, "    device free    ", Bytes(*rank.device_free_before_bytes), " of ",
              HumanBytes(*rank.device_total_bytes), " before",
              rank.device_free_min_bytes ? StrCat(", ", HumanBytes(*rank.device_free_min_bytes), " at the lowest")
                                         : std::string(),
              rank.device_free_after_bytes ? StrCat(", ", HumanBytes(*rank.device_free_after_bytes), " after")
                                           : std::string(),
              "\n");
  }
  if (!rank.ops.empty() || plan.predicted_step_seconds) {
    StrAppend(&out, "  step time  ", Fixed(rank.step_seconds * 1e6, 2), " us measured (ops one after another)");
    if (plan.predicted_step_seconds) {
      StrAppend(&out, ", ", Fixed(*plan.predicted_step_seconds * 1e6, 2), " us predicted, ",
                SignedPercent(PercentError(rank.step_seconds, *plan.predicted_step_seconds)));
    }
    out += "\n";
  }
  RenderRankOps(plan, rank, out);
}

}  // namespace

std::string RankProblemSentence(const RankReport& rank) {
  const std::string prefix = StrCat("rank ", rank.rank, ": ");
  switch (rank.outcome) {
    case RankOutcome::kOk: return "";
    case RankOutcome::kDoesNotFit:
      return StrCat(prefix, "does not fit: the replay needs ", Bytes(rank.needed_bytes), ", the plan's ",
                    GroupedBytes(rank.plan_peak_bytes), " B and ", GroupedBytes(rank.needed_bytes - rank.plan_peak_bytes),
                    " B of executor scratch, but the device has ", Bytes(rank.device_free_before_bytes.value_or(0)),
                    " free; nothing was allocated");
    case RankOutcome::kNoDevice: return StrCat(prefix, "no usable device: ", rank.error);
    case RankOutcome::kFailed:
      return rank.failed_step >= 0 ? StrCat(prefix, "failed at step ", rank.failed_step, ": ", rank.error)
                                   : StrCat(prefix, "failed: ", rank.error);
    case RankOutcome::kTimedOut:
      return rank.failed_step >= 0 ? StrCat(prefix, "timed out at step ", rank.failed_step, ": ", rank.error)
                                   : StrCat(prefix, "timed out: ", rank.error);
    case RankOutcome::kNotRun: return StrCat(prefix, "not run: another rank could not start");
    case RankOutcome::kNotReported: return StrCat(prefix, "did not report: ", rank.error);
  }
  return "";
}

std::string RenderValidateText(const ValidateViewInput& input) {
  const executor::ValidationReport& report = input.report;
  std::string out;
  StrAppend(&out, "memplan validate: ", report.plan_path,
            input.plan.name.empty() ? std::string() : StrCat(" (", input.plan.name, ")"), "\n");
  StrAppend(&out, "backend ", report.backend.empty() ? "(none)" : report.backend, ", ", report.ranks.size(),
            report.ranks.size() == 1 ? " rank" : " ranks", ", transport ", report.transport, "\n");
  for (const std::string& note : input.plan.notes) StrAppend(&out, "note: ", note, "\n");
  for (const RankReport& rank : report.ranks) RenderRank(input, rank, out);
  const executor::ValidationVerdict verdict = executor::Judge(report, input.max_peak_error_percent);
  int ok = 0;
  int exact = 0;
  for (const RankReport& rank : report.ranks) {
    if (rank.outcome != RankOutcome::kOk) continue;
    ++ok;
    if (rank.measured_peak_bytes == rank.planned_peak_bytes) ++exact;
  }
  StrAppend(&out, "\nsummary: ", ok, " of ", report.ranks.size(), " ranks replayed; measured peak equals planned on ",
            exact, " of ", ok, "; ", verdict.wrong_elements, " wrong collective elements");
  if (input.max_peak_error_percent) {
    StrAppend(&out, "; ", verdict.ranks_over_peak_error, " ranks off their planned peak by more than ",
              Percent(*input.max_peak_error_percent));
  }
  StrAppend(&out, "\nresult: ", verdict.ok() ? "PASS" : "FAIL", "\n");
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

namespace {

void OptionalAttribute(llvm::json::OStream& j, const char* key, const std::optional<int64_t>& v) {
  if (v) {
    j.attribute(key, *v);
  } else {
    j.attribute(key, nullptr);
  }
}

// A predicted time in microseconds, or null.
void PredictedMicros(llvm::json::OStream& j, const std::optional<double>& seconds) {
  if (seconds) {
    j.attribute("predicted_time_us", *seconds * 1e6);
  } else {
    j.attribute("predicted_time_us", nullptr);
  }
}

void WriteRankCollectives(llvm::json::OStream& j, const executor::RankPlan& plan,
                          const RankReport& rank) {
  j.attributeArray("collectives", [&] {
    for (const OpMeasurement& m : rank.ops) {
      const PlanOp& op = plan.ops[m.index];
      if (op.kind != PlanOp::Kind::kCollective) continue;
      const executor::CollectiveOp& c = op.collective;
      j.object([&] {
        WriteCollectiveRecord(j, c.kind, c.bytes, executor::WireLayoutFor(c.dtype).type,
                              static_cast<int>(c.group.size()), m.seconds, m.wrong);
        j.attribute("ranks", static_cast<int64_t>(c.group.size()));
        j.attributeArray("group", [&] {
          for (int member : c.group) j.value(member);
        });
        j.attribute("op", m.index);
        j.attribute("step", op.step);
        j.attribute("plan_dtype", JsonRef(ir::DTypeName(c.dtype)));
        PredictedMicros(j, op.predicted_seconds);
        j.attribute("scratch", m.scratch);
      });
    }
  });
}

void WriteRankGemms(llvm::json::OStream& j, const executor::RankPlan& plan, const RankReport& rank) {
  j.attributeArray("gemms", [&] {
    for (const OpMeasurement& m : rank.ops) {
      const PlanOp& op = plan.ops[m.index];
      if (op.kind != PlanOp::Kind::kGemm) continue;
      const executor::GemmOp& g = op.gemm;
      j.object([&] {
        j.attribute("op", m.index);
        j.attribute("step", op.step);
        j.attribute("m", g.m);
        j.attribute("n", g.n);
        j.attribute("k", g.k);
        j.attribute("dtype", JsonRef(ir::DTypeName(g.dtype)));
        j.attribute("out_dtype", JsonRef(ir::DTypeName(g.out_dtype)));
        j.attribute("count", g.count);
        j.attribute("flops", executor::GemmFlops(g));
        j.attribute("time_us", m.seconds * 1e6);
        j.attribute("tflops", m.seconds > 0 ? executor::GemmFlops(g) / m.seconds / 1e12 : 0.0);
        PredictedMicros(j, op.predicted_seconds);
        j.attribute("scratch", m.scratch);
      });
    }
  });
}

// One rank's outcome, memory against the plan, timings and measured ops.
void WriteRankJson(llvm::json::OStream& j, const executor::RankPlan& plan, const RankReport& rank) {
  j.attribute("rank", rank.rank);
  j.attribute("outcome", JsonRef(executor::RankOutcomeName(rank.outcome)));
  const std::string problem = RankProblemSentence(rank);
  if (problem.empty()) {
    j.attribute("problem", nullptr);
  } else {
    j.attribute("problem", llvm::json::fixUTF8(JsonRef(problem)));
  }
  j.attribute("device", llvm::json::fixUTF8(JsonRef(rank.device)));
  j.attribute("mode", JsonRef(executor::AllocationModeName(rank.mode)));
  j.attribute("planned_peak_bytes", rank.planned_peak_bytes);
  j.attribute("planned_peak_source", rank.planned_peak_stated ? "plan" : "buffers");
  j.attribute("plan_peak_bytes", rank.plan_peak_bytes);
  j.attribute("needed_bytes", rank.needed_bytes);
  j.attribute("measured_peak_bytes", rank.measured_peak_bytes);
  j.attribute("peak_error_percent", executor::PeakErrorPercent(rank));
  j.attribute("scratch_peak_bytes", rank.scratch_peak_bytes);
  OptionalAttribute(j, "reserved_peak_bytes", rank.reserved_peak_bytes);
  OptionalAttribute(j, "device_total_bytes", rank.device_total_bytes);
  OptionalAttribute(j, "device_free_before_bytes", rank.device_free_before_bytes);
  OptionalAttribute(j, "device_free_min_bytes", rank.device_free_min_bytes);
  OptionalAttribute(j, "device_free_after_bytes", rank.device_free_after_bytes);
  j.attribute("step_seconds", rank.step_seconds);
  if (plan.predicted_step_seconds) {
    j.attribute("predicted_step_seconds", *plan.predicted_step_seconds);
  } else {
    j.attribute("predicted_step_seconds", nullptr);
  }
  j.attribute("wall_seconds", rank.wall_seconds);
  WriteRankCollectives(j, plan, rank);
  WriteRankGemms(j, plan, rank);
}

}  // namespace

std::string RenderValidateJson(const ValidateViewInput& input) {
  const executor::ValidationReport& report = input.report;
  const executor::ValidationVerdict verdict = executor::Judge(report, input.max_peak_error_percent);
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.validate.v1");
    j.attribute("plan", llvm::json::fixUTF8(JsonRef(report.plan_path)));
    j.attribute("plan_name", llvm::json::fixUTF8(JsonRef(input.plan.name)));
    j.attribute("backend", JsonRef(report.backend));
    j.attribute("transport", JsonRef(report.transport));
    j.attribute("ok", verdict.ok());
    j.attribute("wrong", verdict.wrong_elements);
    if (input.max_peak_error_percent) {
      j.attribute("max_peak_error_percent", *input.max_peak_error_percent);
    } else {
      j.attribute("max_peak_error_percent", nullptr);
    }
    j.attributeArray("notes", [&] {
      for (const std::string& note : input.plan.notes) j.value(llvm::json::fixUTF8(JsonRef(note)));
    });
    j.attributeArray("ranks", [&] {
      for (const RankReport& rank : report.ranks) {
        j.object([&] { WriteRankJson(j, input.plan.ranks[rank.rank], rank); });
      }
    });
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
