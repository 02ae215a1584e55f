// nccl-tests' -J JSON, memplan's memplan.collectives.v1, and the entry
// points that pick a parser by content.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/collective_json_fields.h"
#include "parsers/collective_measurements_parser.h"
#include "parsers/collective_runs.h"
#include "parsers/json_text.h"

namespace memplan::parsers {
namespace {

using internal::Append;
using internal::Fields;
using internal::ObjectAt;
using internal::PendingRun;
using llvm::json::Object;
using llvm::json::Value;

// ---------------------------------------------------------------------------
// nccl-tests -J (src/util.cu: version, args, config.devices, results[]).

absl::Status ReadPlace(const SourceText& source, const Object& result, const JsonPath& path,
                       std::string_view key, bool in_place, const ir::CollectiveSample& row,
                       PendingRun& run, ir::Diagnostics& diagnostics) {
  const Value* v = result.get(llvm::StringRef(key.data(), key.size()));
  if (v == nullptr || v->kind() == Value::Null) return absl::OkStatus();
  const JsonPath place_path = Append(path, std::string(key));
  ASSIGN_OR_RETURN(const Object* place, ObjectAt(source, *v, place_path));
  const Fields f(source, *place, place_path);
  ir::CollectiveSample s = row;
  s.in_place = in_place;
  const std::string_view time_key = f.Get("time") != nullptr ? "time" : "cpu_time";
  ASSIGN_OR_RETURN(s.time_us, f.Number(time_key));
  if (std::isnan(s.time_us)) {
    diagnostics.Warn("results without a time (\"nan\", skipped)",
                     source.LocationString(f.At(time_key)));
    return absl::OkStatus();
  }
  if (!std::isfinite(s.time_us) || s.time_us < 0) {
    return f.Error(time_key, "expected a time in microseconds (finite, not negative)");
  }
  ASSIGN_OR_RETURN(s.algbw_gbps, f.Number("alg_bw"));
  ASSIGN_OR_RETURN(s.busbw_gbps, f.Number("bus_bw"));
  if (const Value* wrong = f.Get("nwrong"); wrong != nullptr && wrong->kind() != Value::Null) {
    ASSIGN_OR_RETURN(s.wrong_elements, f.Integer("nwrong"));
  }
  run.run.samples.push_back(std::move(s));
  run.busbw_at.push_back(f.At("bus_bw"));
  return absl::OkStatus();
}

absl::Status ReadDevices(const SourceText& source, const Object& root, PendingRun& run) {
  const Object* config = root.getObject("config");
  if (config == nullptr) return absl::OkStatus();
  const llvm::json::Array* devices = config->getArray("devices");
  if (devices == nullptr) return absl::OkStatus();
  int64_t group0 = -1;
  for (size_t i = 0; i < devices->size(); ++i) {
    const JsonPath element = {{"config", -1}, {"devices", static_cast<int64_t>(i)}};
    ASSIGN_OR_RETURN(const Object* device, ObjectAt(source, (*devices)[i], element));
    const Fields f(source, *device, element);
    ASSIGN_OR_RETURN(const int64_t group, f.Integer("group", /*required=*/false));
    if (group0 < 0) group0 = group;
    if (group != group0) continue;
    ASSIGN_OR_RETURN(std::string host, f.String("hostname", /*required=*/false));
    ASSIGN_OR_RETURN(std::string info, f.String("device_info", /*required=*/false));
    if (run.run.device.empty()) run.run.device = info;
    run.run.rank_hosts.push_back(std::move(host));
  }
  run.run.ranks = static_cast<int64_t>(run.run.rank_hosts.size());
  return absl::OkStatus();
}

absl::StatusOr<ir::CollectiveMeasurements> NcclTestsJson(const SourceText& source,
                                                         const Value& document,
                                                         const CollectiveParseOptions& options) {
  ASSIGN_OR_RETURN(const Object* root, ObjectAt(source, document, {}));
  const Fields top(source, *root, {});
  ir::CollectiveMeasurements out;
  PendingRun run;
  run.at = top.At("results");
  run.run.location = source.LocationString(run.at);
  ASSIGN_OR_RETURN(const int64_t version, top.Integer("version", /*required=*/false));
  run.run.tool = version > 0 ? StrCat("nccl-tests (JSON version ", version, ")") : "nccl-tests";
  if (const llvm::json::Array* args = root->getArray("args"); args != nullptr && !args->empty()) {
    if (auto program = (*args)[0].getAsString()) {
      const std::string_view name(program->data(), program->size());
      size_t at = 0;
      if (auto kind = internal::CollectiveOfProgram(name, &at)) {
        const std::optional<size_t> offset = LocateJsonValue(source.text(), {{"args", -1}, {"", 0}});
        run.program = {kind, source.text().data() + offset.value_or(0),
                       StrCat("the program ", name)};
      }
    }
  }
  RETURN_IF_ERROR(ReadDevices(source, *root, run));
  const llvm::json::Array* results = root->getArray("results");
  if (results == nullptr) {
    return top.Error("results", "expected an array of results (nccl-tests -J output)");
  }
  for (size_t i = 0; i < results->size(); ++i) {
    const JsonPath path = {{"results", -1}, {"", static_cast<int64_t>(i)}};
    ASSIGN_OR_RETURN(const Object* result, ObjectAt(source, (*results)[i], path));
    const Fields f(source, *result, path);
    ir::CollectiveSample row;
    ASSIGN_OR_RETURN(row.bytes, f.Integer("size"));
    ASSIGN_OR_RETURN(row.count, f.Integer("count", /*required=*/false));
    ASSIGN_OR_RETURN(row.dtype, f.String("type", /*required=*/false));
    ASSIGN_OR_RETURN(std::string redop, f.String("redop", /*required=*/false));
    if (run.redop.empty()) run.redop = redop;
    row.location = source.LocationString(source.text().data() +
                                         LocateJsonValue(source.text(), path).value_or(0));
    RETURN_IF_ERROR(
        ReadPlace(source, *result, path, "out_of_place", false, row, run, out.diagnostics));
    RETURN_IF_ERROR(
        ReadPlace(source, *result, path, "in_place", true, row, run, out.diagnostics));
  }
  if (run.run.samples.empty()) {
    return top.Error("results", "expected at least one result with times");
  }
  RETURN_IF_ERROR(internal::FinishRun(source, options, run, out.diagnostics));
  out.runs.push_back(std::move(run.run));
  return out;
}

// ---------------------------------------------------------------------------
// memplan.collectives.v1, and memplan.validate.v1 whose per-rank
// "collectives" have the same record shape.

constexpr std::string_view kMemplanSchema = "memplan.collectives.v1";
constexpr std::string_view kValidateSchema = "memplan.validate.v1";

// One record: collective, bytes, count, dtype, time_us, algbw_gbps,
// busbw_gbps, wrong.
absl::StatusOr<ir::CollectiveKind> ReadRecord(const SourceText& source, const Fields& f,
                                              const JsonPath& path, ir::CollectiveSample& s) {
  std::string name;
  ASSIGN_OR_RETURN(name, f.String("collective"));
  const std::optional<ir::CollectiveKind> kind = ir::CollectiveFromName(name);
  if (!kind) {
    return f.Error("collective",
                   "expected all_reduce, all_gather, reduce_scatter, all_to_all, send_recv, "
                   "broadcast or reduce");
  }
  ASSIGN_OR_RETURN(s.bytes, f.Integer("bytes"));
  ASSIGN_OR_RETURN(s.count, f.Integer("count", /*required=*/false));
  ASSIGN_OR_RETURN(s.dtype, f.String("dtype", /*required=*/false));
  ASSIGN_OR_RETURN(s.time_us, f.Number("time_us"));
  if (!std::isfinite(s.time_us) || s.time_us < 0) {
    return f.Error("time_us", "expected a time in microseconds (finite, not negative)");
  }
  ASSIGN_OR_RETURN(s.algbw_gbps, f.Number("algbw_gbps"));
  ASSIGN_OR_RETURN(s.busbw_gbps, f.Number("busbw_gbps"));
  if (f.Get("wrong") != nullptr) {
    ASSIGN_OR_RETURN(s.wrong_elements, f.Integer("wrong"));
  }
  s.location = source.LocationString(source.text().data() +
                                     LocateJsonValue(source.text(), path).value_or(0));
  return *kind;
}

// The measurements of `runs`, each finished (checked, its diagnostics
// added) in order; the first run that fails its checks fails them all.
absl::StatusOr<ir::CollectiveMeasurements> FinishRuns(const SourceText& source,
                                                      const CollectiveParseOptions& options,
                                                      std::vector<PendingRun>& runs) {
  ir::CollectiveMeasurements out;
  for (PendingRun& run : runs) {
    RETURN_IF_ERROR(internal::FinishRun(source, options, run, out.diagnostics));
    out.runs.push_back(std::move(run.run));
  }
  return out;
}

// A new run of `kind` measured by `tool`, located at the collective of the
// record `f` reads (which also names it, as the most trusted hint).
PendingRun StartRun(const SourceText& source, const Fields& f, ir::CollectiveKind kind,
                    std::string tool) {
  PendingRun fresh;
  fresh.at = f.At("collective");
  fresh.program = {kind, fresh.at, StrCat("collective ", ir::CollectiveName(kind))};
  fresh.run.kind = kind;
  fresh.run.tool = std::move(tool);
  fresh.run.location = source.LocationString(fresh.at);
  return fresh;
}

// What a memplan.collectives.v1 document says of all its results.
struct BenchHeader {
  std::string backend;              // "host" or "cuda"
  int64_t ranks = 0;                // at least 1
  std::vector<std::string> hosts;   // one per rank, or none
  std::string device;               // may be empty
};

// The header fields of the memplan.collectives.v1 object `root` (read
// through `top`): backend, ranks, hosts and device, each checked.
absl::StatusOr<BenchHeader> ReadBenchHeader(const SourceText& source, const Object& root,
                                            const Fields& top) {
  BenchHeader h;
  ASSIGN_OR_RETURN(h.backend, top.String("backend"));
  if (h.backend != "host" && h.backend != "cuda") {
    return top.Error("backend", "expected \"host\" or \"cuda\"");
  }
  ASSIGN_OR_RETURN(h.ranks, top.Integer("ranks"));
  if (h.ranks < 1) return top.Error("ranks", "expected at least 1 rank");
  if (const llvm::json::Array* hosts = root.getArray("hosts")) {
    for (size_t i = 0; i < hosts->size(); ++i) {
      auto s = (*hosts)[i].getAsString();
      if (!s) return JsonErrorAt(source, {{"hosts", -1}, {"", static_cast<int64_t>(i)}},
                                 "expected a host name (string)");
      h.hosts.push_back(s->str());
    }
    if (static_cast<int64_t>(h.hosts.size()) != h.ranks) {
      return top.Error("hosts", StrCat("expected one host per rank (", h.ranks, ")"));
    }
  }
  ASSIGN_OR_RETURN(h.device, top.String("device", /*required=*/false));
  return h;
}

// The run of `kind` in `runs`, started (from `header`, located at the
// collective of the record `f` reads) when it is the first of its kind.
PendingRun& RunOfKind(const SourceText& source, const Fields& f, ir::CollectiveKind kind,
                      const BenchHeader& header, std::vector<PendingRun>& runs) {
  PendingRun* run = nullptr;
  for (PendingRun& r : runs) {
    if (r.run.kind == kind) run = &r;
  }
  if (run != nullptr) return *run;
  PendingRun fresh =
      StartRun(source, f, kind, StrCat("memplan bench-collectives (", header.backend, ")"));
  fresh.run.ranks = header.ranks;
  fresh.run.rank_hosts = header.hosts;
  fresh.run.device = header.device;
  runs.push_back(std::move(fresh));
  return runs.back();
}

absl::StatusOr<ir::CollectiveMeasurements> MemplanJson(const SourceText& source,
                                                       const Value& document,
                                                       const CollectiveParseOptions& options) {
  ASSIGN_OR_RETURN(const Object* root, ObjectAt(source, document, {}));
  const Fields top(source, *root, {});
  ASSIGN_OR_RETURN(const BenchHeader header, ReadBenchHeader(source, *root, top));
  const llvm::json::Array* results = root->getArray("results");
  if (results == nullptr) return top.Error("results", "expected an array of results");

  std::vector<PendingRun> runs;  // one per collective, in order of appearance
  for (size_t i = 0; i < results->size(); ++i) {
    const JsonPath path = {{"results", -1}, {"", static_cast<int64_t>(i)}};
    ASSIGN_OR_RETURN(const Object* result, ObjectAt(source, (*results)[i], path));
    const Fields f(source, *result, path);
    ir::CollectiveSample s;
    ASSIGN_OR_RETURN(const ir::CollectiveKind kind, ReadRecord(source, f, path, s));
    PendingRun& run = RunOfKind(source, f, kind, header, runs);
    run.run.samples.push_back(std::move(s));
    run.busbw_at.push_back(f.At("busbw_gbps"));
  }
  if (runs.empty()) return top.Error("results", "expected at least one result");
  return FinishRuns(source, options, runs);
}

// A validate record's "group": its rank numbers, as many as "ranks" says
// (empty when the record names none).
absl::StatusOr<std::vector<int64_t>> GroupOf(const Fields& f, const Object& record, int64_t group_size) {
  std::vector<int64_t> group;
  const llvm::json::Array* g = record.getArray("group");
  if (g == nullptr) return group;
  for (size_t k = 0; k < g->size(); ++k) {
    auto member = (*g)[k].getAsInteger();
    if (!member || *member < 0) return f.Error("group", "expected rank numbers");
    group.push_back(*member);
  }
  if (static_cast<int64_t>(group.size()) != group_size) {
    return f.Error("group", StrCat("expected ", group_size, " ranks, as 'ranks' says"));
  }
  return group;
}

// The validate runs so far, one per collective and group.
struct ValidateRuns {
  std::string backend;
  std::vector<PendingRun> runs;
  std::vector<std::vector<int64_t>> groups;  // of runs, by index
};

// Adds one rank's "collectives" records to the run of its collective and
// group, starting a run for a new one.
absl::Status AddRankRecords(const SourceText& source, const Object& rank, const JsonPath& rank_path,
                            ValidateRuns& v) {
  const Fields rf(source, rank, rank_path);
  std::string device;
  ASSIGN_OR_RETURN(device, rf.String("device", /*required=*/false));
  const llvm::json::Array* collectives = rank.getArray("collectives");
  if (collectives == nullptr) return absl::OkStatus();
  for (size_t i = 0; i < collectives->size(); ++i) {
    JsonPath path = rank_path;
    path.push_back({"collectives", -1});
    path.push_back({"", static_cast<int64_t>(i)});
    ASSIGN_OR_RETURN(const Object* record, ObjectAt(source, (*collectives)[i], path));
    const Fields f(source, *record, path);
    ir::CollectiveSample s;
    ASSIGN_OR_RETURN(const ir::CollectiveKind kind, ReadRecord(source, f, path, s));
    ASSIGN_OR_RETURN(const int64_t group_size, f.Integer("ranks"));
    if (group_size < 1) return f.Error("ranks", "expected at least 1 rank");
    ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(f, *record, group_size));
    size_t index = v.runs.size();
    for (size_t k = 0; k < v.runs.size(); ++k) {
      if (v.runs[k].run.kind == kind && v.runs[k].run.ranks == group_size && v.groups[k] == group) index = k;
    }
    if (index == v.runs.size()) {
      PendingRun fresh = StartRun(source, f, kind, StrCat("memplan validate (", v.backend, ")"));
      fresh.run.ranks = group_size;
      fresh.run.group_devices = group;
      fresh.run.device = device;
      v.runs.push_back(std::move(fresh));
      v.groups.push_back(group);
    }
    v.runs[index].run.samples.push_back(std::move(s));
    v.runs[index].busbw_at.push_back(f.At("busbw_gbps"));
  }
  return absl::OkStatus();
}

// memplan validate --format=json: each rank's "collectives", one run per
// collective and group (the records of every rank that ran it).
absl::StatusOr<ir::CollectiveMeasurements> ValidateJson(const SourceText& source,
                                                        const Value& document,
                                                        const CollectiveParseOptions& options) {
  ASSIGN_OR_RETURN(const Object* root, ObjectAt(source, document, {}));
  const Fields top(source, *root, {});
  ValidateRuns v;
  ASSIGN_OR_RETURN(v.backend, top.String("backend", /*required=*/false));
  const llvm::json::Array* ranks = root->getArray("ranks");
  if (ranks == nullptr) return top.Error("ranks", "expected an array of per-rank reports");
  for (size_t r = 0; r < ranks->size(); ++r) {
    const JsonPath rank_path = {{"ranks", -1}, {"", static_cast<int64_t>(r)}};
    ASSIGN_OR_RETURN(const Object* rank, ObjectAt(source, (*ranks)[r], rank_path));
    RETURN_IF_ERROR(AddRankRecords(source, *rank, rank_path, v));
  }
  if (v.runs.empty()) {
    return top.Error("ranks", "expected at least one collective in the ranks' reports");
  }
  return FinishRuns(source, options, v.runs);
}

bool IsMemplanDocument(const Value& document) {
  const Object* root = document.getAsObject();
  return root != nullptr && root->get("schema") != nullptr;
}

absl::StatusOr<ir::CollectiveMeasurements> FromJson(const SourceText& source,
                                                    const Value& document,
                                                    const CollectiveParseOptions& options) {
  if (!IsMemplanDocument(document)) return NcclTestsJson(source, document, options);
  const Fields top(source, *document.getAsObject(), {});
  std::string schema;
  ASSIGN_OR_RETURN(schema, top.String("schema"));
  if (schema == kValidateSchema) return ValidateJson(source, document, options);
  if (schema != kMemplanSchema) {
    return top.Error("schema", StrCat("expected \"", kMemplanSchema, "\" or \"", kValidateSchema,
                                      "\""));
  }
  return MemplanJson(source, document, options);
}

}  // namespace

absl::StatusOr<ir::CollectiveMeasurements> ParseNcclTestsJson(
    const SourceText& source, const CollectiveParseOptions& options) {
  ASSIGN_OR_RETURN(const Value document, ParseJsonText(source));
  return NcclTestsJson(source, document, options);
}

absl::StatusOr<ir::CollectiveMeasurements> ParseMemplanCollectivesJson(
    const SourceText& source, const CollectiveParseOptions& options) {
  ASSIGN_OR_RETURN(const Value document, ParseJsonText(source));
  if (!IsMemplanDocument(document)) {
    return source.ErrorAt(source.text().data(),
                          StrCat("expected a JSON object with \"schema\": \"", kMemplanSchema,
                                 "\""));
  }
  return FromJson(source, document, options);
}

absl::StatusOr<ir::CollectiveMeasurements> ParseCollectiveMeasurements(
    const SourceText& source, const CollectiveParseOptions& options) {
  // Both JSON forms are objects; text may start with '[' ("[1,0]<stdout>:").
  std::string_view text = source.text();
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  if (!LooksLikeJson(source.text()) || text.empty() || text.front() != '{') {
    return ParseNcclTestsText(source, options);
  }
  ASSIGN_OR_RETURN(const Value document, ParseJsonText(source));
  return FromJson(source, document, options);
}

std::optional<ir::CollectiveKind> CollectiveFromFileName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  std::string folded;
  for (char c : path.substr(slash == std::string_view::npos ? 0 : slash + 1)) {
    if (c == '_' || c == '-') continue;
    folded += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  // Longest names first: "reduce" is inside "allreduce" and "reducescatter".
  constexpr struct {
    std::string_view name;
    ir::CollectiveKind kind;
  } kNames[] = {
      {"reducescatter", ir::CollectiveKind::kReduceScatter},
      {"allreduce", ir::CollectiveKind::kAllReduce},
      {"allgather", ir::CollectiveKind::kAllGather},
      {"alltoall", ir::CollectiveKind::kAllToAll},
      {"sendrecv", ir::CollectiveKind::kSendRecv},
      {"broadcast", ir::CollectiveKind::kBroadcast},
  };
  std::optional<ir::CollectiveKind> found;
  for (const auto& n : kNames) {
    const size_t at = folded.find(n.name);
    if (at == std::string::npos) continue;
    if (found && *found != n.kind) return std::nullopt;  // names two
    found = n.kind;
    folded.erase(at, n.name.size());
  }
  if (!found && folded.find("reduce") != std::string::npos) found = ir::CollectiveKind::kReduce;
  return found;
}

absl::StatusOr<ir::CollectiveMeasurements> LoadCollectiveMeasurements(
    const std::string& path, std::optional<ir::CollectiveKind> collective) {
  ASSIGN_OR_RETURN(std::shared_ptr<const SourceText> source, SourceText::FromFile(path));
  CollectiveParseOptions options;
  options.collective = collective;
  options.name_hint = CollectiveFromFileName(path);
  return ParseCollectiveMeasurements(*source, options);
}

}  // namespace memplan::parsers
