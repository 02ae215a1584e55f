// Tokens, numbers and columns of nccl-tests' result table (nccl_tests_table.h).
#include "parsers/nccl_tests_table.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::parsers::internal {

// ---------------------------------------------------------------------------
// Tokens and numbers.

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

}  // namespace

std::vector<Token> Tokenize(std::string_view line, size_t from) {
  std::vector<Token> tokens;
  size_t i = from;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i >= line.size()) break;
    const size_t begin = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    tokens.push_back({line.substr(begin, i - begin), begin, i});
  }
  return tokens;
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// Any number nccl-tests prints: "12.5", "1.2e+03", "-1", "nan", "inf".
std::optional<double> ParseDouble(std::string_view s) {
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// OpenMPI's --tag-output prefix "[1,0]<stdout>:" (or <stderr>).
std::string_view StripLauncherPrefix(std::string_view line) {
  if (line.empty() || line.front() != '[') return line;
  for (std::string_view tag : {std::string_view("]<stdout>:"), std::string_view("]<stderr>:")}) {
    const size_t at = line.find(tag);
    if (at != std::string_view::npos && at < 32) return line.substr(at + tag.size());
  }
  return line;
}

// ---------------------------------------------------------------------------
// The table's columns.

namespace {

Role RoleOf(std::string_view name) {
  if (name == "size" || name == "bytes") return Role::kSize;
  if (name == "count" || name == "N") return Role::kCount;
  if (name == "type") return Role::kType;
  if (name == "redop" || name == "op") return Role::kRedop;
  if (name == "root") return Role::kRoot;
  if (name == "time" || name == "cputime") return Role::kTime;
  if (name == "algbw") return Role::kAlgbw;
  if (name == "busbw") return Role::kBusbw;
  if (name == "#wrong") return Role::kWrong;
  if (name == "error" || name == "res") return Role::kError;
  return Role::kOther;
}

}  // namespace

// A header: names including time (or cputime), algbw and busbw.
std::optional<Table> ParseHeader(std::string_view line, size_t hash) {
  const std::vector<Token> tokens = Tokenize(line, hash + 1);
  bool time = false, algbw = false, busbw = false;
  for (const Token& t : tokens) {
    time |= t.text == "time" || t.text == "cputime";
    algbw |= t.text == "algbw";
    busbw |= t.text == "busbw";
  }
  if (!time || !algbw || !busbw) return std::nullopt;
  Table table;
  int group = -1;
  for (const Token& t : tokens) {
    Column c;
    c.role = RoleOf(t.text);
    c.name = std::string(t.text);
    c.end = t.end;
    if (c.role == Role::kTime) ++group;
    const bool per_group = c.role == Role::kTime || c.role == Role::kAlgbw ||
                           c.role == Role::kBusbw || c.role == Role::kWrong ||
                           c.role == Role::kError || c.role == Role::kOther;
    c.group = per_group ? group : -1;
    if (c.role == Role::kSize && t.text == "bytes") table.v1_names = true;
    table.columns.push_back(std::move(c));
  }
  return table;
}

// Which column each token belongs to: in order when the counts match (a
// trailing timestamp may take two tokens); otherwise by where they end, as
// nccl-tests right-aligns values under their names (a blank redop column
// in older all-to-all tables, for one). nullopt when no alignment fits.
std::optional<std::vector<int>> AssignColumns(const std::vector<Token>& tokens,
                                              const std::vector<Column>& columns) {
  const size_t k = tokens.size();
  const size_t j = columns.size();
  std::vector<int> assigned(k, -1);
  const bool timestamp_last = !columns.empty() && columns.back().name == "timestamp";
  if (k == j || (timestamp_last && k == j + 1)) {
    for (size_t i = 0; i < k; ++i) assigned[i] = static_cast<int>(std::min(i, j - 1));
    return assigned;
  }
  if (k > j || k == 0) return std::nullopt;
  // Least total distance between token and column right edges, keeping
  // order: dp[a][b] for the first a tokens in the first b columns.
  constexpr int64_t kInf = INT64_MAX / 4;
  std::vector<std::vector<int64_t>> dp(k + 1, std::vector<int64_t>(j + 1, kInf));
  for (size_t b = 0; b <= j; ++b) dp[0][b] = 0;
  for (size_t a = 1; a <= k; ++a) {
    for (size_t b = a; b <= j; ++b) {
      const int64_t distance = std::llabs(static_cast<int64_t>(tokens[a - 1].end) -
                                          static_cast<int64_t>(columns[b - 1].end));
      dp[a][b] = std::min(dp[a][b - 1], dp[a - 1][b - 1] + distance);
    }
  }
  for (size_t a = k, b = j; a > 0; --b) {
    if (dp[a][b] == dp[a][b - 1] && b > a) continue;
    assigned[a - 1] = static_cast<int>(b - 1);
    --a;
  }
  for (size_t i = 0; i < k; ++i) {
    const int64_t distance = std::llabs(static_cast<int64_t>(tokens[i].end) -
                                        static_cast<int64_t>(columns[assigned[i]].end));
    if (distance > 8) return std::nullopt;
  }
  return assigned;
}

}  // namespace memplan::parsers::internal
