// nccl-tests' standard output: the preamble (version, program, devices) and
// the result table, in every layout nccl-tests has printed since 2017.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/collective_measurements_parser.h"
#include "parsers/collective_runs.h"
#include "parsers/line_position.h"
#include "parsers/nccl_tests_table.h"
#include "parsers/utf8.h"

namespace memplan::parsers {
namespace {

using internal::AssignColumns;
using internal::Column;
using internal::KindHint;
using internal::ParseDouble;
using internal::ParseHeader;
using internal::ParseInt;
using internal::PendingRun;
using internal::Role;
using internal::StartsWith;
using internal::StripLauncherPrefix;
using internal::Table;
using internal::Token;
using internal::Tokenize;
using internal::TrimLeft;

// ---------------------------------------------------------------------------
// The parser.

struct RankLine {
  int64_t group = 0;
  std::string host;
  std::string device;
};

struct Preamble {
  std::string tool = "nccl-tests";
  KindHint program;
  KindHint command;
  int64_t declared_ranks = 0;  // "# memplan bench-collectives: backend host, 2 ranks, ..."
  std::map<int64_t, RankLine> ranks;
  bool ranks_truncated = false;
  bool saw_table = false;
};

class TextParser {
 public:
  TextParser(const SourceText& source, const CollectiveParseOptions& options)
      : source_(source), options_(options) {
    pos_.source = &source;
  }

  absl::StatusOr<ir::CollectiveMeasurements> Parse() {
    std::string_view rest = source_.text();
    std::string_view line;
    while (pos_.NextLine(rest, &line)) RETURN_IF_ERROR(Line(StripLauncherPrefix(line)));
    RETURN_IF_ERROR(EndTable());
    if (finished_.empty()) {
      return source_.ErrorAt(source_.text().data(),
                             "expected an nccl-tests result table: a header line such as "
                             "'#  size  count  type  redop  root  time  algbw  busbw  #wrong ...' "
                             "followed by rows");
    }
    for (PendingRun& run : finished_) {
      RETURN_IF_ERROR(internal::FinishRun(source_, options_, run, out_.diagnostics));
      out_.runs.push_back(std::move(run.run));
    }
    return std::move(out_);
  }

 private:
  absl::Status Line(std::string_view line) {
    const std::string_view trimmed = TrimLeft(line);
    if (trimmed.empty()) return absl::OkStatus();
    if (trimmed.front() == '#') {
      const size_t hash = static_cast<size_t>(trimmed.data() - line.data());
      return Comment(line, hash, TrimLeft(trimmed.substr(1)));
    }
    if (table_ && trimmed.front() >= '0' && trimmed.front() <= '9') return Row(line);
    size_t at = 0;
    if (std::optional<ir::CollectiveKind> kind = internal::CollectiveOfProgram(line, &at)) {
      // A command line echoed before a run.
      RETURN_IF_ERROR(EndTable());
      NewPreambleIfTableSeen();
      preamble_.command = {kind, line.data() + at,
                           StrCat("the command ", line.substr(at, line.find(' ', at) - at))};
      return absl::OkStatus();
    }
    if (table_) {
      pos_.WarnAt(out_.diagnostics, "lines inside a result table that are not rows (skipped)",
                  trimmed.data());
    }
    return absl::OkStatus();
  }

  // "memplan bench-collectives: ... backend NAME, N ranks ...".
  void BenchPreamble(std::string_view body) {
    const std::vector<Token> t = Tokenize(body);
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i].text == "backend") {
        std::string_view backend = t[i + 1].text;
        if (!backend.empty() && backend.back() == ',') backend.remove_suffix(1);
        preamble_.tool = StrCat("memplan bench-collectives (", backend, ")");
      }
      if (t[i + 1].text.substr(0, 5) == "ranks") {
        preamble_.declared_ranks = ParseInt(t[i].text).value_or(0);
      }
    }
  }

  // "Collective test starting: PROGRAM" names the coming run's program;
  // "... concluded: PROGRAM" the finished run's, when nothing named it.
  void ProgramComment(std::string_view name, bool starting) {
    size_t at = 0;
    const auto kind = internal::CollectiveOfProgram(name, &at);
    if (starting) {
      if (kind) preamble_.program = {kind, name.data() + at, StrCat("the program ", TrimLeft(name))};
    } else if (kind && !finished_.empty() && !finished_.back().program.kind) {
      finished_.back().program = {kind, name.data() + at, StrCat("the program ", TrimLeft(name))};
    }
  }

  // The comment lines that end a table and begin or name a run: the
  // nccl-tests version, "Collective test starting/concluded:", memplan
  // bench-collectives' preamble (one table per collective after
  // "# Collective: NAME"), "nThread". False for any other line.
  absl::StatusOr<bool> RunComment(std::string_view body) {
    const bool version = StartsWith(body, "nccl-tests version");
    const bool starting = StartsWith(body, "Collective test starting:");
    const bool concluded = StartsWith(body, "Collective test concluded:");
    const bool bench = StartsWith(body, "memplan bench-collectives:");
    const bool collective = StartsWith(body, "Collective: ");
    const bool threads = StartsWith(body, "nThread ");
    if (!(version || starting || concluded || bench || collective || threads)) return false;
    RETURN_IF_ERROR(EndTable());
    if (version || starting || bench || threads) NewPreambleIfTableSeen();
    if (version) {
      const std::vector<Token> t = Tokenize(body);
      preamble_.tool = t.size() >= 3 ? StrCat("nccl-tests ", t[2].text) : "nccl-tests";
    } else if (starting || concluded) {
      ProgramComment(body.substr(starting ? 25 : 26), starting);
    } else if (bench) {
      BenchPreamble(body);
    } else if (collective) {
      const std::string_view name = TrimLeft(body.substr(12));
      std::string_view word = name.substr(0, name.find_first_of(" \t\r"));
      if (auto kind = ir::CollectiveFromName(word)) {
        preamble_.program = {kind, name.data(), StrCat("the collective ", word)};
      }
    }
    return true;
  }

  absl::Status Comment(std::string_view line, size_t hash, std::string_view body) {
    ASSIGN_OR_RETURN(const bool run_comment, RunComment(body));
    if (run_comment) return absl::OkStatus();
    if (StartsWith(body, "Rank ")) return RankLineOf(body);
    if (StartsWith(body, "Out of bounds values") || StartsWith(body, "Avg bus bandwidth") ||
        StartsWith(body, "Errors with asterisks")) {
      return EndTable();
    }
    if (std::optional<Table> header = ParseHeader(line, hash)) {
      RETURN_IF_ERROR(EndTable());
      header->header_at = line.data() + hash;
      header->header_line = pos_.line_number;
      table_ = std::move(header);
      preamble_.saw_table = true;
      return absl::OkStatus();
    }
    if (table_ && rows_ == 0 && StartsWith(body, "(")) {  // the units line
      for (const Token& t : Tokenize(body)) {
        if (t.text == "(us)") table_->time_in_ms = false;
        if (t.text == "(ms)") table_->time_in_ms = true;
      }
    }
    return absl::OkStatus();
  }

  //   "#  Rank  0 Group  0 Pid 1623025 on host device  0 [0x1b] NVIDIA H100 80GB HBM3"
  //   "#   Rank  0 Pid 112372 on localhost device  0 [0x00] A100-SXM4-40GB"
  absl::Status RankLineOf(std::string_view body) {
    const std::vector<Token> t = Tokenize(body);
    std::optional<int64_t> rank = t.size() > 1 ? ParseInt(t[1].text) : std::nullopt;
    if (!rank || *rank < 0) {
      pos_.WarnAt(out_.diagnostics, "device lines that do not parse (ignored)", body.data());
      return absl::OkStatus();
    }
    RankLine r;
    for (size_t i = 2; i + 1 < t.size(); ++i) {
      if (t[i].text == "Group") r.group = ParseInt(t[i + 1].text).value_or(0);
      if (t[i].text == "on" && r.host.empty()) r.host = std::string(t[i + 1].text);
    }
    if (const size_t close = body.find(']'); close != std::string_view::npos) {
      std::string_view device = TrimLeft(body.substr(close + 1));
      while (!device.empty() && (device.back() == ' ' || device.back() == '\r')) {
        device.remove_suffix(1);
      }
      r.device = std::string(device);
    }
    if (body.size() >= 3 && body.substr(body.size() - 3) == "...") preamble_.ranks_truncated = true;
    if (FirstInvalidUtf8(r.host) < r.host.size() || FirstInvalidUtf8(r.device) < r.device.size()) {
      return pos_.Error(body.data(), "expected UTF-8 host and device names");
    }
    if (!preamble_.ranks.emplace(*rank, std::move(r)).second) {
      pos_.WarnAt(out_.diagnostics,
                  "a rank listed twice (processes that did not share one communicator?)",
                  body.data());
    }
    return absl::OkStatus();
  }

  // What a row's cells have given so far: the columns both groups share,
  // and per group (out of place, in place) its sample and which of time,
  // algbw and busbw it has.
  struct RowCells {
    ir::CollectiveSample shared;
    ir::CollectiveSample group_samples[2];
    bool has[2][3] = {};  // time, algbw, busbw per group
    const char* busbw_at[2] = {nullptr, nullptr};
    bool have_size = false;
  };

  // A time, algbw or busbw cell of a group's sample.
  absl::Status MeasureCell(const Column& c, const Token& t, const char* at, RowCells& row) {
    if (c.group != 0 && c.group != 1) return absl::OkStatus();
    ir::CollectiveSample& s = row.group_samples[c.group];
    const std::optional<double> v = ParseDouble(t.text);
    if (!v) return pos_.Error(at, StrCat("expected a number under '", c.name, "'"));
    if (c.role == Role::kTime) {
      if (!std::isfinite(*v) || *v < 0) return pos_.Error(at, "expected a time (a finite number, not negative)");
      s.time_us = *v;
      row.has[c.group][0] = true;
    } else if (c.role == Role::kAlgbw) {
      s.algbw_gbps = *v;
      row.has[c.group][1] = true;
    } else {
      s.busbw_gbps = *v;
      row.has[c.group][2] = true;
      row.busbw_at[c.group] = at;
    }
    return absl::OkStatus();
  }

  // A #wrong or error cell of a group's sample ("N/A" leaves it unset).
  absl::Status CheckCell(const Column& c, const Token& t, const char* at, RowCells& row) {
    if ((c.group != 0 && c.group != 1) || t.text == "N/A") return absl::OkStatus();
    ir::CollectiveSample& s = row.group_samples[c.group];
    const std::optional<double> v = ParseDouble(t.text);
    if (!v) return pos_.Error(at, StrCat("expected a number or N/A under '", c.name, "'"));
    if (c.role == Role::kWrong) {
      if (!std::isfinite(*v) || *v < 0 || *v > 9.2e18) return pos_.Error(at, "expected a count of wrong elements");
      s.wrong_elements = static_cast<int64_t>(*v);
    } else {
      s.max_error = *v;
    }
    return absl::OkStatus();
  }

  absl::Status Cell(const Column& c, const Token& t, const char* at, RowCells& row) {
    switch (c.role) {
      case Role::kSize: {
        const std::optional<int64_t> v = ParseInt(t.text);
        if (!v || *v < 0) return pos_.Error(at, "expected the size in bytes (an integer)");
        row.shared.bytes = *v;
        row.have_size = true;
        return absl::OkStatus();
      }
      case Role::kCount: {
        const std::optional<int64_t> v = ParseInt(t.text);
        if (!v || *v < 0) return pos_.Error(at, "expected the element count (an integer)");
        row.shared.count = *v;
        return absl::OkStatus();
      }
      case Role::kType:
        if (FirstInvalidUtf8(t.text) < t.text.size()) return pos_.Error(at, "expected a type name");
        row.shared.dtype = std::string(t.text);
        return absl::OkStatus();
      case Role::kRedop:
        if (current_.redop.empty()) current_.redop = std::string(t.text);
        return absl::OkStatus();
      case Role::kRoot:
      case Role::kOther:
        return absl::OkStatus();
      case Role::kTime:
      case Role::kAlgbw:
      case Role::kBusbw:
        return MeasureCell(c, t, at, row);
      case Role::kWrong:
      case Role::kError:
        return CheckCell(c, t, at, row);
    }
    return absl::OkStatus();
  }

  absl::Status Row(std::string_view line) {
    const std::vector<Token> tokens = Tokenize(line);
    const std::optional<std::vector<int>> assigned = AssignColumns(tokens, table_->columns);
    if (!assigned) {
      return pos_.Error(line.data() + tokens.front().begin,
                        StrCat("expected a row of the table whose header is at line ",
                               table_->header_line, " (", table_->columns.size(),
                               " columns), found ", tokens.size(), " values"));
    }
    if (rows_ == 0) StartRun();
    ++rows_;
    RowCells row;
    row.shared.location = source_.LocationString(line.data() + tokens.front().begin);
    for (size_t i = 0; i < tokens.size(); ++i) {
      RETURN_IF_ERROR(Cell(table_->columns[(*assigned)[i]], tokens[i], line.data() + tokens[i].begin, row));
    }
    if (!row.have_size) return pos_.Error(line.data(), "expected the size column in this row");
    for (int g = 0; g < 2; ++g) {
      if (!(row.has[g][0] && row.has[g][1] && row.has[g][2])) continue;
      ir::CollectiveSample s = row.group_samples[g];
      s.bytes = row.shared.bytes;
      s.count = row.shared.count;
      s.dtype = row.shared.dtype;
      s.location = row.shared.location;
      s.in_place = g == 1;
      RETURN_IF_ERROR(CheckTimeUnit(s, line.data() + tokens.front().begin));
      current_.run.samples.push_back(std::move(s));
      current_.busbw_at.push_back(row.busbw_at[g]);
    }
    return absl::OkStatus();
  }

  // algbw = size / time: tells microseconds from the milliseconds of 2017's
  // tables when no units line says, and refuses rows whose numbers cannot
  // both be right. The tolerance allows for the printed rounding: times with
  // two decimals, bandwidths with two.
  absl::Status CheckTimeUnit(const ir::CollectiveSample& s, const char* at) {
    if (s.bytes <= 0 || s.time_us <= 0 || !std::isfinite(s.algbw_gbps) || s.algbw_gbps < 1.0) {
      return absl::OkStatus();
    }
    const double tolerance = 3.0 * (0.005 / s.time_us + 0.005 / s.algbw_gbps) + 0.03;
    auto agrees = [&](double scale_to_us) {
      const double expected = static_cast<double>(s.bytes) / (s.time_us * scale_to_us * 1e3);
      return std::fabs(expected - s.algbw_gbps) <= tolerance * s.algbw_gbps;
    };
    if (!table_->time_in_ms) {
      if (agrees(1.0)) {
        table_->time_in_ms = false;
        return absl::OkStatus();
      }
      if (agrees(1000.0)) {
        table_->time_in_ms = true;
        return absl::OkStatus();
      }
    } else if (agrees(*table_->time_in_ms ? 1000.0 : 1.0)) {
      return absl::OkStatus();
    }
    return pos_.Error(at, "expected algbw = size / time (time in microseconds, or milliseconds "
                          "in 2017's tables); this row's numbers do not agree");
  }

  void NewPreambleIfTableSeen() {
    if (preamble_.saw_table) preamble_ = Preamble();
  }

  void StartRun() {
    current_ = PendingRun();
    current_.at = table_->header_at;
    current_.run.location = source_.LocationString(table_->header_at);
    current_.run.tool = preamble_.tool;
    current_.program = preamble_.program;
    current_.command = preamble_.command;
    if (preamble_.ranks.empty() || preamble_.ranks_truncated) {
      current_.run.ranks = preamble_.declared_ranks;
      return;
    }
    const int64_t group = preamble_.ranks.begin()->second.group;
    for (const auto& [rank, r] : preamble_.ranks) {
      if (r.group != group) continue;
      current_.run.rank_hosts.push_back(r.host);
      if (current_.run.device.empty()) current_.run.device = r.device;
    }
    current_.run.ranks = static_cast<int64_t>(current_.run.rank_hosts.size());
    if (current_.run.ranks != static_cast<int64_t>(preamble_.ranks.size())) {
      out_.diagnostics.Warn("ranks split into groups (NCCL_TESTS_SPLIT): bandwidths are per group",
                            current_.run.location);
    }
  }

  // Ends the table being read, if any; its rows become a run.
  absl::Status EndTable() {
    if (table_ && rows_ > 0) {
      const bool ms = table_->time_in_ms.value_or(table_->v1_names);
      if (ms) {
        for (ir::CollectiveSample& s : current_.run.samples) s.time_us *= 1000.0;
      }
      if (!current_.run.samples.empty()) finished_.push_back(std::move(current_));
    }
    table_.reset();
    rows_ = 0;
    return absl::OkStatus();
  }

  const SourceText& source_;
  const CollectiveParseOptions& options_;
  LinePosition pos_;
  ir::CollectiveMeasurements out_;
  Preamble preamble_;
  std::optional<Table> table_;
  int64_t rows_ = 0;
  PendingRun current_;
  std::vector<PendingRun> finished_;
};

}  // namespace

absl::StatusOr<ir::CollectiveMeasurements> ParseNcclTestsText(
    const SourceText& source, const CollectiveParseOptions& options) {
  return TextParser(source, options).Parse();
}

}  // namespace memplan::parsers
