#include "executor/report_wire.h"

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace memplan::executor {
namespace {

using llvm::json::Object;
using llvm::json::Value;

constexpr RankOutcome kOutcomes[] = {RankOutcome::kOk,     RankOutcome::kDoesNotFit, RankOutcome::kNoDevice,
                                     RankOutcome::kFailed, RankOutcome::kTimedOut,   RankOutcome::kNotRun,
                                     RankOutcome::kNotReported};

llvm::StringRef Ref(std::string_view s) { return llvm::StringRef(s.data(), s.size()); }

void Optional(Object& o, const char* key, const std::optional<int64_t>& v) {
  if (v) o[key] = *v;
}

}  // namespace

std::string_view RankOutcomeName(RankOutcome outcome) {
  switch (outcome) {
    case RankOutcome::kOk: return "ok";
    case RankOutcome::kDoesNotFit: return "does_not_fit";
    case RankOutcome::kNoDevice: return "no_device";
    case RankOutcome::kFailed: return "failed";
    case RankOutcome::kTimedOut: return "timed_out";
    case RankOutcome::kNotRun: return "not_run";
    case RankOutcome::kNotReported: return "not_reported";
  }
  return "?";
}

std::string RankReportToWire(const RankReport& r) {
  Object o;
  o["rank"] = r.rank;
  o["outcome"] = Ref(RankOutcomeName(r.outcome));
  o["error"] = llvm::json::fixUTF8(Ref(r.error));
  o["failed_step"] = r.failed_step;
  o["backend"] = Ref(r.backend);
  o["device"] = llvm::json::fixUTF8(Ref(r.device));
  o["mode"] = Ref(AllocationModeName(r.mode));
  o["planned_peak_bytes"] = r.planned_peak_bytes;
  o["planned_peak_stated"] = r.planned_peak_stated;
  o["plan_peak_bytes"] = r.plan_peak_bytes;
  o["needed_bytes"] = r.needed_bytes;
  o["measured_peak_bytes"] = r.measured_peak_bytes;
  o["scratch_peak_bytes"] = r.scratch_peak_bytes;
  Optional(o, "reserved_peak_bytes", r.reserved_peak_bytes);
  Optional(o, "device_total_bytes", r.device_total_bytes);
  Optional(o, "device_free_before_bytes", r.device_free_before_bytes);
  Optional(o, "device_free_min_bytes", r.device_free_min_bytes);
  Optional(o, "device_free_after_bytes", r.device_free_after_bytes);
  o["step_seconds"] = r.step_seconds;
  o["wall_seconds"] = r.wall_seconds;
  llvm::json::Array ops;
  for (const OpMeasurement& m : r.ops) {
    ops.push_back(llvm::json::Array{m.index, m.seconds, m.wrong, m.scratch});
  }
  o["ops"] = std::move(ops);
  std::string out;
  llvm::raw_string_ostream os(out);
  os << Value(std::move(o));
  os.flush();
  return out;
}

namespace {

absl::Status Garbled() { return absl::InternalError("a rank's report is garbled"); }

// The outcome named by its wire name, or nullopt.
std::optional<RankOutcome> OutcomeNamed(llvm::StringRef name) {
  for (RankOutcome candidate : kOutcomes) {
    if (name == Ref(RankOutcomeName(candidate))) return candidate;
  }
  return std::nullopt;
}

// The byte counts and times; absent keys leave the defaults.
void ReadNumbers(const Object& o, RankReport& r) {
  auto integer = [&](const char* key, int64_t* out) {
    if (auto v = o.getInteger(key)) *out = *v;
  };
  auto optional = [&](const char* key, std::optional<int64_t>* out) {
    if (auto v = o.getInteger(key)) *out = *v;
  };
  integer("failed_step", &r.failed_step);
  integer("planned_peak_bytes", &r.planned_peak_bytes);
  if (auto b = o.getBoolean("planned_peak_stated")) r.planned_peak_stated = *b;
  integer("plan_peak_bytes", &r.plan_peak_bytes);
  integer("needed_bytes", &r.needed_bytes);
  integer("measured_peak_bytes", &r.measured_peak_bytes);
  integer("scratch_peak_bytes", &r.scratch_peak_bytes);
  optional("reserved_peak_bytes", &r.reserved_peak_bytes);
  optional("device_total_bytes", &r.device_total_bytes);
  optional("device_free_before_bytes", &r.device_free_before_bytes);
  optional("device_free_min_bytes", &r.device_free_min_bytes);
  optional("device_free_after_bytes", &r.device_free_after_bytes);
  if (auto x = o.getNumber("step_seconds")) r.step_seconds = *x;
  if (auto x = o.getNumber("wall_seconds")) r.wall_seconds = *x;
}

// "ops": [index, seconds, wrong, scratch] each.
absl::Status ReadOps(const Object& o, RankReport& r) {
  const llvm::json::Array* ops = o.getArray("ops");
  if (ops == nullptr) return absl::OkStatus();
  for (const Value& item : *ops) {
    const llvm::json::Array* a = item.getAsArray();
    if (a == nullptr || a->size() != 4) return Garbled();
    auto index = (*a)[0].getAsInteger();
    auto seconds = (*a)[1].getAsNumber();
    auto wrong = (*a)[2].getAsInteger();
    auto scratch = (*a)[3].getAsBoolean();
    if (!index || !seconds || !wrong || !scratch) return Garbled();
    OpMeasurement m;
    m.index = *index;
    m.seconds = *seconds;
    m.wrong = *wrong;
    m.scratch = *scratch;
    r.ops.push_back(m);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RankReport> RankReportFromWire(std::string_view wire) {
  llvm::Expected<Value> parsed = llvm::json::parse(Ref(wire));
  if (!parsed) {
    return absl::InternalError(StrCat("a rank's report is garbled: ", llvm::toString(parsed.takeError())));
  }
  const Object* o = parsed->getAsObject();
  if (o == nullptr) return Garbled();
  RankReport r;
  const auto rank = o->getInteger("rank");
  if (!rank || *rank < 0) return Garbled();
  r.rank = static_cast<int>(*rank);
  const llvm::Optional<llvm::StringRef> outcome_name = o->getString("outcome");
  if (!outcome_name) return Garbled();
  const std::optional<RankOutcome> outcome = OutcomeNamed(*outcome_name);
  if (!outcome) return Garbled();
  r.outcome = *outcome;
  if (auto s = o->getString("error")) r.error = s->str();
  if (auto s = o->getString("backend")) r.backend = s->str();
  if (auto s = o->getString("device")) r.device = s->str();
  if (auto s = o->getString("mode")) r.mode = *s == "pool" ? AllocationMode::kPool : AllocationMode::kArena;
  ReadNumbers(*o, r);
  RETURN_IF_ERROR(ReadOps(*o, r));
  return r;
}

}  // namespace memplan::executor
