// Internal to the nccl-tests text parser: the tokens of a line, the numbers
// nccl-tests prints, and the result table's columns (which column each value
// of a row belongs to, in every layout since 2017).
#ifndef MEMPLAN_PARSERS_NCCL_TESTS_TABLE_H_
#define MEMPLAN_PARSERS_NCCL_TESTS_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::parsers::internal {

// A blank-separated word of a line and where it lies.
struct Token {
  std::string_view text;
  size_t begin = 0;  // offsets in the line
  size_t end = 0;
};

// The words of `line` from offset `from`.
std::vector<Token> Tokenize(std::string_view line, size_t from = 0);
std::string_view TrimLeft(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
// The whole of `s` as a number; nullopt otherwise.
std::optional<int64_t> ParseInt(std::string_view s);
// Any number nccl-tests prints: "12.5", "1.2e+03", "-1", "nan", "inf".
std::optional<double> ParseDouble(std::string_view s);
// `line` without OpenMPI's --tag-output prefix "[1,0]<stdout>:" (or <stderr>).
std::string_view StripLauncherPrefix(std::string_view line);

enum class Role { kSize, kCount, kType, kRedop, kRoot, kTime, kAlgbw, kBusbw, kWrong, kError, kOther };

struct Column {
  Role role = Role::kOther;
  int group = -1;  // 0: out-of-place, 1: in-place, -1: shared or neither
  size_t end = 0;  // where its name ends in the header line
  std::string name;
};

struct Table {
  std::vector<Column> columns;
  bool v1_names = false;            // "bytes N type op": 2017's layout
  std::optional<bool> time_in_ms;   // from the units line or the rows
  const char* header_at = nullptr;
  int64_t header_line = 0;
};

// A header line (its names after the '#' at `hash`): nullopt unless the names
// include time (or cputime), algbw and busbw.
std::optional<Table> ParseHeader(std::string_view line, size_t hash);

// Which column each token belongs to: in order when the counts match (a
// trailing timestamp may take two tokens); otherwise by where they end, as
// nccl-tests right-aligns values under their names (a blank redop column
// in older all-to-all tables, for one). nullopt when no alignment fits.
std::optional<std::vector<int>> AssignColumns(const std::vector<Token>& tokens,
                                              const std::vector<Column>& columns);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_NCCL_TESTS_TABLE_H_
