// The budget file of `memplan check`: LLVM's YAML parser for the syntax,
// walked node by node. Compiled with -fno-rtti: it uses llvm::yaml classes,
// and LLVM is built without RTTI.
#include "parsers/budget_file.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <system_error>
#include <utility>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/byte_count.h"
#include "parsers/human_bytes.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

const ModuleBudget* BudgetFile::Find(std::string_view key) const {
  for (const ModuleBudget& m : modules) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// The budget file: LLVM's YAML parser for the syntax, walked here node by
// node (linear in the entries; llvm::yaml::Input's key checks are quadratic).

namespace {

// "0.8 * device", "device": the fraction; nullopt otherwise.
std::optional<double> ParseDeviceFraction(std::string_view text) {
  std::string_view s = TrimSpaces(text);
  if (s == "device") return 1.0;
  const std::optional<double> number = ReadDecimal(s);
  if (!number) return std::nullopt;
  s = TrimSpaces(s);
  if (s.empty() || s.front() != '*') return std::nullopt;
  s.remove_prefix(1);
  if (TrimSpaces(s) != "device") return std::nullopt;
  return number;
}

// Below 2^63: the largest byte count a limit may come to.
constexpr double kMaxLimitBytes = 9.2e18;

void CollectDiagnostic(const llvm::SMDiagnostic& diagnostic, void* context) {
  std::string& out = *static_cast<std::string*>(context);
  if (!out.empty()) return;  // the first error only
  llvm::raw_string_ostream os(out);
  diagnostic.print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
}

std::string TrimNewlines(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

constexpr std::string_view kBudgetFileShape =
    "expected a budget file: a mapping of module names (or \"*\") to limits, e.g. "
    "'\"*\": {peak: 60GiB}' (see docs/ci.md)";

// "file:line:col" and a full diagnostic, for a point in the budget file.
class BudgetSource {
 public:
  BudgetSource(std::string_view text, const std::string& file_name) {
    sources_.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                             file_name),
        llvm::SMLoc());
    file_name_ = file_name;
  }
  llvm::MemoryBufferRef Buffer() const {
    return sources_.getMemoryBuffer(sources_.getMainFileID())->getMemBufferRef();
  }
  std::string Location(const char* where) const {
    if (where == nullptr) return file_name_;
    const auto [line, column] =
        sources_.getLineAndColumn(llvm::SMLoc::getFromPointer(where), sources_.getMainFileID());
    return StrCat(file_name_, ":", line, ":", column);
  }
  absl::Status Error(const char* where, const std::string& message) const {
    if (where == nullptr) return absl::InvalidArgumentError(StrCat(file_name_, ": ", message));
    std::string out;
    CollectDiagnostic(sources_.GetMessage(llvm::SMLoc::getFromPointer(where),
                                          llvm::SourceMgr::DK_Error, message),
                      &out);
    return absl::InvalidArgumentError(TrimNewlines(out));
  }
  absl::Status Error(const llvm::yaml::Node* node, const std::string& message) const {
    return Error(node != nullptr ? node->getSourceRange().Start.getPointer() : nullptr, message);
  }

 private:
  llvm::SourceMgr sources_;
  std::string file_name_;
};

// The deepest a budget file may nest, counted conservatively before LLVM's
// parser (which recurses once per level) sees the text: flow collections
// ('[' '{') open at once, plus the indentation and block indicators ("- ",
// "? ", ": ") that start a line. A budget file needs 3 levels.
constexpr int kMaxFlowDepth = 32;
constexpr int kMaxLinePrefix = 128;

// The location of the first point where the text nests deeper than the
// limits above, or nullptr. Quoted scalars and comments are skipped.
const char* TooDeep(std::string_view text) {
  int flow = 0;
  bool line_start = true;
  int prefix = 0;
  char previous = '\n';  // the last byte outside spaces, quotes and comments
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') {
      line_start = true;
      prefix = 0;
      previous = '\n';
      continue;
    }
    if (line_start) {
      if (c == ' ' || c == '\t' || c == '-' || c == '?' || c == ':') {
        if (++prefix > kMaxLinePrefix) return text.data() + i;
        if (c != ' ' && c != '\t') previous = c;
        continue;
      }
      line_start = false;
    }
    if (c == ' ' || c == '\t') continue;
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r') ++i;
      continue;
    }
    const bool token_start = previous == '\n' || previous == '[' || previous == '{' ||
                             previous == ',' || previous == ':' || previous == '-' ||
                             previous == '?';
    if ((c == '"' || c == '\'') && token_start) {
      // A quoted scalar, which may span lines: skip to its closing quote.
      for (++i; i < text.size(); ++i) {
        if (c == '"' && text[i] == '\\') {
          ++i;
        } else if (text[i] == c) {
          if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
            ++i;  // '' inside single quotes
          } else {
            break;
          }
        }
      }
      previous = c;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++flow > kMaxFlowDepth) return text.data() + i;
    } else if ((c == ']' || c == '}') && flow > 0) {
      --flow;
    }
    previous = c;
  }
  return nullptr;
}

// A scalar's value, or nullopt for any other node.
std::optional<std::string> ScalarText(llvm::yaml::Node* node) {
  auto* scalar = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(node);
  if (scalar == nullptr) return std::nullopt;
  llvm::SmallString<32> storage;
  return scalar->getValue(storage).str();
}

// One module's entry as read, before "*" is applied.
struct RawModule {
  ModuleBudget budget;
  std::array<const char*, ir::kNumMetrics> fraction_at{};  // where each fraction is
};

constexpr std::string_view kLimitExpected =
    "expected a byte count (12345, 1.5GiB, 800MB) or a fraction of the device's memory "
    "(0.8 * device)";

// A metric's limit: a byte count or a fraction of the device's memory.
absl::Status ReadLimit(const BudgetSource& source, ir::Metric metric, const std::optional<std::string>& value,
                       const char* where, RawModule& raw) {
  if (!value) return source.Error(where, std::string(kLimitExpected));
  Limit limit;
  limit.text = *value;
  limit.location = source.Location(where);
  if ((limit.device_fraction = ParseDeviceFraction(*value))) {
    if (!(*limit.device_fraction > 0) || *limit.device_fraction >= 1e6) {
      return source.Error(where, "expected a positive fraction of the device below 1000000");
    }
    raw.fraction_at[static_cast<int>(metric)] = where;
  } else if (!(limit.bytes = ParseByteCount(*value))) {
    return source.Error(where, std::string(kLimitExpected));
  }
  raw.budget.limits[static_cast<int>(metric)] = std::move(limit);
  return absl::OkStatus();
}

// "device: NAME" (a catalog name) or "device_memory: BYTES", once.
absl::Status ReadDevice(const BudgetSource& source, const DeviceCatalog& devices, const std::string& key,
                        const std::optional<std::string>& value, const char* where, ModuleBudget& budget) {
  if (budget.device_memory) {
    return source.Error(where, "give either device or device_memory, not both (expected one "
                               "statement of the device's memory)");
  }
  std::optional<int64_t> bytes;
  if (key == "device") {
    if (value && devices.memory_of) bytes = devices.memory_of(*value);
    if (!bytes || *bytes <= 0) {
      return source.Error(where, StrCat("unknown device '", value.value_or(""), "'; expected ", devices.names,
                                        ", or give device_memory instead"));
    }
  } else {
    bytes = value ? ParseByteCount(*value) : std::nullopt;
    if (!bytes || *bytes <= 0) return source.Error(where, "expected the device's memory as a byte count (80GiB)");
  }
  budget.device_memory = *bytes;
  budget.device = *value;
  return absl::OkStatus();
}

// Reads one field of a module's mapping into `raw`.
absl::Status ReadField(const BudgetSource& source, const DeviceCatalog& devices,
                       const std::string& key, llvm::yaml::Node* key_node,
                       llvm::yaml::Node* value_node, RawModule& raw) {
  ModuleBudget& budget = raw.budget;
  const std::optional<std::string> value = ScalarText(value_node);
  const char* where =
      value_node != nullptr ? value_node->getSourceRange().Start.getPointer() : nullptr;
  if (where == nullptr) where = key_node->getSourceRange().Start.getPointer();
  for (ir::Metric metric : ir::kAllMetrics) {
    if (key == ir::MetricKey(metric)) return ReadLimit(source, metric, value, where, raw);
  }
  if (key == "regression") {
    const std::optional<double> percent = value ? ParsePercent(*value) : std::nullopt;
    if (!percent) {
      return source.Error(where, "expected a percentage such as 5% (the largest growth allowed)");
    }
    budget.regression_percent = *percent;
    budget.regression_location = source.Location(where);
    return absl::OkStatus();
  }
  if (key == "device" || key == "device_memory") return ReadDevice(source, devices, key, value, where, budget);
  std::string known;
  for (ir::Metric metric : ir::kAllMetrics) StrAppend(&known, ir::MetricKey(metric), ", ");
  return source.Error(key_node, StrCat("unknown key '", key, "'; expected one of ", known,
                                       "regression, device, device_memory"));
}

// Reads one module's mapping.
absl::StatusOr<RawModule> ReadModule(const BudgetSource& source, const DeviceCatalog& devices,
                                     const std::string& key, llvm::yaml::Node* key_node,
                                     llvm::yaml::Node* value_node) {
  RawModule raw;
  raw.budget.key = key;
  auto* map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(value_node);
  if (map == nullptr) {
    return source.Error(value_node != nullptr ? value_node : key_node,
                        StrCat("expected a mapping of limits for '", key,
                               "', e.g. {peak: 60GiB, regression: 5%}"));
  }
  raw.budget.location = source.Location(map->getSourceRange().Start.getPointer());
  std::set<std::string> seen;
  for (llvm::yaml::KeyValueNode& kv : *map) {
    const std::optional<std::string> field = ScalarText(kv.getKey());
    if (!field) return source.Error(kv.getKey(), "expected a key (peak, temp, device, ...)");
    if (!seen.insert(*field).second) {
      return source.Error(kv.getKey(), StrCat("duplicate key '", *field, "'; expected each key once"));
    }
    RETURN_IF_ERROR(ReadField(source, devices, *field, kv.getKey(), kv.getValue(), raw));
  }
  return raw;
}

// The budget file's entries in file order, each checked on its own.
absl::StatusOr<std::vector<RawModule>> ReadEntries(const BudgetSource& source,
                                                   const DeviceCatalog& devices,
                                                   std::string& diagnostics) {
  llvm::SourceMgr sources;
  sources.setDiagHandler(CollectDiagnostic, &diagnostics);
  llvm::yaml::Stream stream(source.Buffer(), sources);
  std::vector<RawModule> modules;
  auto document = stream.begin();
  if (document == stream.end()) return modules;
  llvm::yaml::Node* root = document->getRoot();
  if (auto* map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(root)) {
    std::set<std::string> seen;
    for (llvm::yaml::KeyValueNode& kv : *map) {
      const std::optional<std::string> key = ScalarText(kv.getKey());
      if (!key) return source.Error(kv.getKey(), "expected a module name (or \"*\")");
      if (!seen.insert(*key).second) {
        return source.Error(kv.getKey(), StrCat("duplicate key '", *key, "'; expected each module once"));
      }
      ASSIGN_OR_RETURN(RawModule raw, ReadModule(source, devices, *key, kv.getKey(), kv.getValue()));
      modules.push_back(std::move(raw));
      if (stream.failed()) break;
    }
  } else if (root != nullptr && !llvm::isa<llvm::yaml::NullNode>(root) && !stream.failed()) {
    return source.Error(root, StrCat("not a mapping: ", kBudgetFileShape));
  }
  if (stream.failed()) return absl::InvalidArgumentError("");
  ++document;
  if (document != stream.end() && !stream.failed()) {
    llvm::yaml::Node* second = document->getRoot();
    return source.Error(second, "expected one YAML document; a second one starts here");
  }
  return modules;
}

// LLVM's YAML syntax error (`diagnostics`, as it printed them) as an
// InvalidArgument; where its message does not say what was expected, the
// budget file's shape is added to its first line.
absl::Status YamlSyntaxError(const std::string& diagnostics) {
  std::string message = TrimNewlines(diagnostics);
  if (message.find("expected") == std::string::npos) {
    const size_t line_end = message.find('\n');
    message.insert(line_end == std::string::npos ? message.size() : line_end,
                   StrCat(" (", kBudgetFileShape, ")"));
  }
  return absl::InvalidArgumentError(message);
}

// The entries of the budget file `source` (named `file_name`), in file
// order. InvalidArgument, located where it can be, when it nests too deep,
// is not valid YAML, or is valid but an entry is wrong or none is given.
absl::StatusOr<std::vector<RawModule>> ReadBudgetEntries(const BudgetSource& source,
                                                         const DeviceCatalog& devices,
                                                         const std::string& file_name) {
  // Pointers into the source's own copy of the text, for its locations.
  const llvm::StringRef copy = source.Buffer().getBuffer();
  if (const char* deep = TooDeep(std::string_view(copy.data(), copy.size()))) {
    return source.Error(deep, StrCat("expected a budget file nested at most ", kMaxFlowDepth,
                                     " brackets and ", kMaxLinePrefix,
                                     " columns of indentation deep"));
  }
  std::string diagnostics;
  absl::StatusOr<std::vector<RawModule>> read = ReadEntries(source, devices, diagnostics);
  if (!diagnostics.empty()) return YamlSyntaxError(diagnostics);
  if (!read.ok()) {
    if (read.status().message().empty()) {
      return absl::InvalidArgumentError(StrCat(file_name, ": error: invalid YAML; ",
                                               kBudgetFileShape));
    }
    return read.status();
  }
  if (read->empty()) {
    return absl::InvalidArgumentError(StrCat(file_name, ": error: no budgets: ",
                                             kBudgetFileShape));
  }
  return read;
}

// OK unless a limit given as a fraction of the device's memory has no
// device to be a fraction of (neither its entry nor "*" names one), or
// reaches 8 EiB of the largest device any entry names: then the first such
// limit's error (entries in file order, metrics in order), located.
absl::Status CheckDeviceFractions(const BudgetSource& source, const std::vector<RawModule>& modules) {
  bool fallback_has_device = false;
  int64_t largest_device = 0;  // over every entry: a fraction may meet any of them
  for (const RawModule& m : modules) {
    if (m.budget.key == "*") fallback_has_device = m.budget.device_memory.has_value();
    largest_device = std::max(largest_device, m.budget.device_memory.value_or(0));
  }
  for (const RawModule& m : modules) {
    const bool device_known = m.budget.device_memory.has_value() || fallback_has_device;
    for (int i = 0; i < ir::kNumMetrics; ++i) {
      const std::optional<Limit>& limit = m.budget.limits[i];
      if (!limit || !limit->device_fraction) continue;
      if (!device_known) {
        return source.Error(
            m.fraction_at[i],
            StrCat("'", limit->text, "' is a fraction of the device's memory, but no device is "
                   "known: expected 'device: H100-80GB' or 'device_memory: 80GiB' in ",
                   m.budget.key == "*" ? "this entry" : "this entry or in \"*\""));
      }
      if (*limit->device_fraction * static_cast<double>(largest_device) >= kMaxLimitBytes) {
        return source.Error(m.fraction_at[i],
                            StrCat("expected a limit below 8 EiB; '", limit->text, "' of ",
                                   FormatXlaHumanBytes(largest_device), " is more"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BudgetFile> ParseBudgets(std::string_view text, const std::string& file_name,
                                        const DeviceCatalog& devices) {
  BudgetSource source(text, file_name);
  ASSIGN_OR_RETURN(std::vector<RawModule> modules, ReadBudgetEntries(source, devices, file_name));
  RETURN_IF_ERROR(CheckDeviceFractions(source, modules));
  BudgetFile file;
  file.path = file_name;
  file.modules.reserve(modules.size());
  for (RawModule& m : modules) file.modules.push_back(std::move(m.budget));
  return file;
}

absl::StatusOr<BudgetFile> LoadBudgets(const std::string& path, const DeviceCatalog& devices) {
  // A regular file, or a pipe read once up to parsers::SourceText's bound.
  absl::StatusOr<std::shared_ptr<const parsers::SourceText>> file =
      parsers::SourceText::FromFile(path);
  if (!file.ok()) {
    return absl::InvalidArgumentError(
        StrCat("cannot read the budget file: ", file.status().message()));
  }
  return ParseBudgets((*file)->text(), path, devices);
}

std::optional<ResolvedBudget> ResolveBudget(const BudgetFile& file, std::string_view module,
                                            std::string_view stem) {
  const ModuleBudget* own = file.Find(module);
  if (own == nullptr && !stem.empty()) own = file.Find(stem);
  const ModuleBudget* fallback = file.Find("*");
  if (own == fallback) fallback = nullptr;
  if (own == nullptr && fallback == nullptr) return std::nullopt;
  const ModuleBudget* first = own != nullptr ? own : fallback;
  ResolvedBudget r;
  r.key = first->key;
  r.device_memory = first->device_memory;
  if (!r.device_memory && fallback != nullptr) r.device_memory = fallback->device_memory;
  r.regression_percent = first->regression_percent;
  if (!r.regression_percent && fallback != nullptr) {
    r.regression_percent = fallback->regression_percent;
  }
  for (int i = 0; i < ir::kNumMetrics; ++i) {
    const std::optional<Limit>* limit = &first->limits[i];
    if (!limit->has_value() && fallback != nullptr) limit = &fallback->limits[i];
    if (!limit->has_value()) continue;
    const Limit& l = **limit;
    r.limit_text[i] = l.text;
    if (l.bytes) {
      r.limit_bytes[i] = l.bytes;
    } else if (l.device_fraction && r.device_memory) {
      // ParseBudgets keeps every fraction of every device below kMaxLimitBytes.
      const double bytes = std::floor(*l.device_fraction * static_cast<double>(*r.device_memory));
      r.limit_bytes[i] = static_cast<int64_t>(std::min(bytes, kMaxLimitBytes));
    }
  }
  return r;
}

}  // namespace memplan::parsers
