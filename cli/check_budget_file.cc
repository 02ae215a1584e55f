// `memplan check`: the budget file (LLVM's YAML I/O), byte counts and
// device presets. Compiled with -fno-rtti: it instantiates llvm::yaml
// templates, and LLVM is built without RTTI. Includes no protobuf header.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <utility>
#include "analyzer/analysis.h"
#include "cli/check.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/load_program.h"
#include "viz/format.h"
#include "viz/junit.h"

namespace memplan::cli {

// ---------------------------------------------------------------------------
// Byte counts, percents, device presets.

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A non-negative decimal number at the start of `s` ("12", "1.5", ".5");
// advances `s` past it.
std::optional<double> ReadNumber(std::string_view& s) {
  size_t n = 0;
  bool digits = false;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  if (n < s.size() && s[n] == '.') {
    ++n;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n, digits = true;
  }
  if (!digits) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + n, value);
  if (ec != std::errc() || end != s.data() + n) return std::nullopt;
  s.remove_prefix(n);
  return value;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? a[i] - 'A' + 'a' : a[i];
    const char y = (b[i] >= 'A' && b[i] <= 'Z') ? b[i] - 'A' + 'a' : b[i];
    if (x != y) return false;
  }
  return true;
}

struct DevicePreset {
  const char* name;
  int64_t gib;
};
// The number in each name, taken as GiB. Set device_memory for the exact
// usable bytes of a particular machine.
constexpr DevicePreset kDevicePresets[] = {
    {"A100-40GB", 40}, {"A100-80GB", 80}, {"H100-80GB", 80},  {"H100-94GB", 94},
    {"H200-141GB", 141}, {"B200-192GB", 192}, {"L4-24GB", 24}, {"V100-16GB", 16},
    {"V100-32GB", 32}, {"A100", 80},        {"H100", 80},      {"H200", 141},
    {"B200", 192},
};

}  // namespace

std::optional<int64_t> ParseByteCount(std::string_view text) {
  std::string_view s = Trim(text);
  const std::optional<double> number = ReadNumber(s);
  if (!number) return std::nullopt;
  const std::string_view unit = Trim(s);
  static constexpr struct {
    const char* unit;
    double multiplier;
  } kUnits[] = {
      {"", 1},
      {"B", 1},
      {"K", 1024.0},
      {"KiB", 1024.0},
      {"KB", 1e3},
      {"M", 1048576.0},
      {"MiB", 1048576.0},
      {"MB", 1e6},
      {"G", 1073741824.0},
      {"GiB", 1073741824.0},
      {"GB", 1e9},
      {"T", 1099511627776.0},
      {"TiB", 1099511627776.0},
      {"TB", 1e12},
      {"P", 1125899906842624.0},
      {"PiB", 1125899906842624.0},
      {"PB", 1e15},
  };
  for (const auto& u : kUnits) {
    if (!EqualsIgnoreCase(unit, u.unit)) continue;
    const long double bytes = static_cast<long double>(*number) * u.multiplier;
    if (u.multiplier == 1 && bytes != std::floor(bytes)) return std::nullopt;  // "1.5B"
    if (bytes >= 9.2e18L) return std::nullopt;
    return static_cast<int64_t>(std::llround(bytes));
  }
  return std::nullopt;
}

std::optional<double> ParsePercent(std::string_view text) {
  std::string_view s = Trim(text);
  const std::optional<double> number = ReadNumber(s);
  if (!number || Trim(s) != "%") return std::nullopt;
  return number;
}

std::optional<int64_t> DevicePresetBytes(std::string_view name) {
  for (const DevicePreset& p : kDevicePresets) {
    if (EqualsIgnoreCase(Trim(name), p.name)) return p.gib * (int64_t{1} << 30);
  }
  return std::nullopt;
}

std::string DevicePresetNames() {
  std::string out;
  for (const DevicePreset& p : kDevicePresets) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

const ModuleBudget* BudgetFile::Find(std::string_view key) const {
  for (const ModuleBudget& m : modules) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// The budget file, read with llvm::yaml::Input.

namespace {

// What the YAML traits below need while they run: the Input (for the
// location of the node being read) and room for an error message.
struct YamlContext {
  const llvm::yaml::Input* input = nullptr;
  std::string error;

  const char* Where() const {
    const llvm::yaml::Node* node = input != nullptr ? input->getCurrentNode() : nullptr;
    return node != nullptr ? node->getSourceRange().Start.getPointer() : nullptr;
  }
};

// A scalar field: its text and where it was written.
struct YamlScalar {
  bool present = false;
  std::string text;
  const char* where = nullptr;
};
struct YamlLimit : YamlScalar {
  std::optional<int64_t> bytes;
  std::optional<double> device_fraction;
};
struct YamlPercent : YamlScalar {
  double percent = 0;
};
struct YamlDevice : YamlScalar {
  int64_t bytes = 0;
};
struct YamlDeviceMemory : YamlScalar {
  int64_t bytes = 0;
};

struct YamlModule {
  const char* where = nullptr;
  YamlLimit limits[kNumMetrics];
  YamlPercent regression;
  YamlDevice device;
  YamlDeviceMemory device_memory;
};

struct YamlBudgets {
  std::vector<std::pair<std::string, YamlModule>> modules;
};

YamlContext& ContextOf(void* ctxt) { return *static_cast<YamlContext*>(ctxt); }

// "0.8 * device", "device": the fraction; nullopt otherwise.
std::optional<double> ParseDeviceFraction(std::string_view text) {
  std::string_view s = Trim(text);
  if (s == "device") return 1.0;
  const std::optional<double> number = ReadNumber(s);
  if (!number) return std::nullopt;
  s = Trim(s);
  if (s.empty() || s.front() != '*') return std::nullopt;
  s.remove_prefix(1);
  if (Trim(s) != "device") return std::nullopt;
  return number;
}

}  // namespace
}  // namespace memplan::cli

namespace llvm::yaml {

using memplan::cli::ContextOf;

template <>
struct ScalarTraits<memplan::cli::YamlLimit> {
  static void output(const memplan::cli::YamlLimit& v, void*, raw_ostream& os) { os << v.text; }
  static StringRef input(StringRef scalar, void* ctxt, memplan::cli::YamlLimit& v) {
    auto& context = ContextOf(ctxt);
    v.present = true;
    v.text = scalar.str();
    v.where = context.Where();
    const std::string_view text(scalar.data(), scalar.size());
    if ((v.device_fraction = memplan::cli::ParseDeviceFraction(text))) {
      if (*v.device_fraction <= 0) return "expected a positive fraction of the device";
      return {};
    }
    if ((v.bytes = memplan::cli::ParseByteCount(text))) return {};
    return "expected a byte count (12345, 1.5GiB, 800MB) or a fraction of the device's "
           "memory (0.8 * device)";
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <>
struct ScalarTraits<memplan::cli::YamlPercent> {
  static void output(const memplan::cli::YamlPercent& v, void*, raw_ostream& os) { os << v.text; }
  static StringRef input(StringRef scalar, void* ctxt, memplan::cli::YamlPercent& v) {
    v.present = true;
    v.text = scalar.str();
    v.where = ContextOf(ctxt).Where();
    const std::optional<double> percent =
        memplan::cli::ParsePercent(std::string_view(scalar.data(), scalar.size()));
    if (!percent) return "expected a percentage such as 5% (the largest growth allowed)";
    v.percent = *percent;
    return {};
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <>
struct ScalarTraits<memplan::cli::YamlDevice> {
  static void output(const memplan::cli::YamlDevice& v, void*, raw_ostream& os) { os << v.text; }
  static StringRef input(StringRef scalar, void* ctxt, memplan::cli::YamlDevice& v) {
    auto& context = ContextOf(ctxt);
    v.present = true;
    v.text = scalar.str();
    v.where = context.Where();
    const std::optional<int64_t> bytes =
        memplan::cli::DevicePresetBytes(std::string_view(scalar.data(), scalar.size()));
    if (!bytes) {
      context.error = memplan::StrCat("unknown device '", v.text, "'; expected one of ",
                                      memplan::cli::DevicePresetNames(),
                                      ", or give device_memory instead");
      return context.error;
    }
    v.bytes = *bytes;
    return {};
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <>
struct ScalarTraits<memplan::cli::YamlDeviceMemory> {
  static void output(const memplan::cli::YamlDeviceMemory& v, void*, raw_ostream& os) {
    os << v.text;
  }
  static StringRef input(StringRef scalar, void* ctxt, memplan::cli::YamlDeviceMemory& v) {
    v.present = true;
    v.text = scalar.str();
    v.where = ContextOf(ctxt).Where();
    const std::optional<int64_t> bytes =
        memplan::cli::ParseByteCount(std::string_view(scalar.data(), scalar.size()));
    if (!bytes || *bytes <= 0) return "expected the device's memory as a byte count (80GiB)";
    v.bytes = *bytes;
    return {};
  }
  static QuotingType mustQuote(StringRef) { return QuotingType::None; }
};

template <>
struct MappingTraits<memplan::cli::YamlModule> {
  static void mapping(IO& io, memplan::cli::YamlModule& m) {
    m.where = ContextOf(io.getContext()).Where();
    for (memplan::cli::Metric metric : memplan::cli::kAllMetrics) {
      const std::string key(memplan::cli::MetricKey(metric));
      io.mapOptional(key.c_str(), m.limits[static_cast<int>(metric)]);
    }
    io.mapOptional("regression", m.regression);
    io.mapOptional("device", m.device);
    io.mapOptional("device_memory", m.device_memory);
  }
};

template <>
struct CustomMappingTraits<memplan::cli::YamlBudgets> {
  static void inputOne(IO& io, StringRef key, memplan::cli::YamlBudgets& budgets) {
    budgets.modules.emplace_back(key.str(), memplan::cli::YamlModule{});
    const std::string name = key.str();
    io.mapRequired(name.c_str(), budgets.modules.back().second);
  }
  static void output(IO& io, memplan::cli::YamlBudgets& budgets) {
    for (auto& [key, module] : budgets.modules) io.mapRequired(key.c_str(), module);
  }
};

}  // namespace llvm::yaml

namespace memplan::cli {
namespace {

void CollectDiagnostic(const llvm::SMDiagnostic& diagnostic, void* context) {
  std::string& out = *static_cast<std::string*>(context);
  llvm::raw_string_ostream os(out);
  diagnostic.print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
}

std::string TrimNewlines(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

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

 private:
  llvm::SourceMgr sources_;
  std::string file_name_;
};

// LLVM 14's YAML input keeps the last of two equal keys silently; find
// them first. Syntax errors are left for yaml::Input to report.
absl::Status CheckDuplicateKeys(const BudgetSource& source) {
  llvm::SourceMgr quiet;
  quiet.setDiagHandler([](const llvm::SMDiagnostic&, void*) {}, nullptr);
  llvm::yaml::Stream stream(source.Buffer(), quiet);
  absl::Status status;
  std::function<void(llvm::yaml::Node*)> walk = [&](llvm::yaml::Node* node) {
    if (!status.ok() || node == nullptr) return;
    if (auto* map = llvm::dyn_cast<llvm::yaml::MappingNode>(node)) {
      std::set<std::string> keys;
      for (llvm::yaml::KeyValueNode& kv : *map) {
        if (auto* key = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(kv.getKey())) {
          llvm::SmallString<32> storage;
          const std::string text = key->getValue(storage).str();
          if (!keys.insert(text).second && status.ok()) {
            status = source.Error(key->getSourceRange().Start.getPointer(),
                                  StrCat("duplicate key '", text, "'"));
          }
        }
        walk(kv.getValue());
      }
    } else if (auto* seq = llvm::dyn_cast<llvm::yaml::SequenceNode>(node)) {
      for (llvm::yaml::Node& child : *seq) walk(&child);
    }
  };
  for (llvm::yaml::Document& document : stream) walk(document.getRoot());
  return stream.failed() ? absl::OkStatus() : status;
}

}  // namespace

absl::StatusOr<BudgetFile> ParseBudgets(std::string_view text, const std::string& file_name) {
  BudgetSource source(text, file_name);
  RETURN_IF_ERROR(CheckDuplicateKeys(source));
  YamlContext context;
  std::string diagnostics;
  YamlBudgets parsed;
  {
    llvm::yaml::Input yin(source.Buffer(), &context, CollectDiagnostic, &diagnostics);
    context.input = &yin;
    yin >> parsed;
    if (yin.error()) {
      return absl::InvalidArgumentError(
          diagnostics.empty() ? StrCat(file_name, ": error: invalid budget file")
                              : TrimNewlines(diagnostics));
    }
  }
  if (parsed.modules.empty()) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: no budgets: expected a mapping of module names (or \"*\") "
                          "to limits, e.g. '\"*\": {peak: 60GiB}' (see docs/ci.md)"));
  }
  // The traits see keys in hash order; put the entries back in file order.
  std::stable_sort(parsed.modules.begin(), parsed.modules.end(),
                   [](const auto& a, const auto& b) {
                     return std::less<const char*>()(a.second.where, b.second.where);
                   });

  const YamlModule* fallback = nullptr;
  for (const auto& [key, m] : parsed.modules) {
    if (key == "*") fallback = &m;
  }
  BudgetFile file;
  file.path = file_name;
  for (const auto& [key, m] : parsed.modules) {
    if (m.device.present && m.device_memory.present) {
      return source.Error(m.device_memory.where,
                          "give either device or device_memory, not both");
    }
    ModuleBudget budget;
    budget.key = key;
    budget.location = source.Location(m.where);
    if (m.device_memory.present) {
      budget.device_memory = m.device_memory.bytes;
      budget.device = m.device_memory.text;
    } else if (m.device.present) {
      budget.device_memory = m.device.bytes;
      budget.device = m.device.text;
    }
    if (m.regression.present) {
      budget.regression_percent = m.regression.percent;
      budget.regression_location = source.Location(m.regression.where);
    }
    const bool device_known = budget.device_memory.has_value() ||
                              (fallback != nullptr && (fallback->device.present ||
                                                       fallback->device_memory.present));
    for (int i = 0; i < kNumMetrics; ++i) {
      const YamlLimit& y = m.limits[i];
      if (!y.present) continue;
      if (y.device_fraction && !device_known) {
        return source.Error(y.where,
                            StrCat("'", y.text, "' is a fraction of the device's memory, but ",
                                   key == "*" ? "this entry gives" : "neither this entry nor \"*\" gives",
                                   " 'device: H100-80GB' or 'device_memory: 80GiB'"));
      }
      Limit limit;
      limit.text = y.text;
      limit.location = source.Location(y.where);
      limit.bytes = y.bytes;
      limit.device_fraction = y.device_fraction;
      budget.limits[i] = std::move(limit);
    }
    file.modules.push_back(std::move(budget));
  }
  return file;
}

absl::StatusOr<BudgetFile> LoadBudgets(const std::string& path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    return absl::InvalidArgumentError(
        StrCat(path, ": cannot read the budget file: ", buffer.getError().message()));
  }
  const llvm::StringRef text = (*buffer)->getBuffer();
  return ParseBudgets(std::string_view(text.data(), text.size()), path);
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
  for (int i = 0; i < kNumMetrics; ++i) {
    const std::optional<Limit>* limit = &first->limits[i];
    if (!limit->has_value() && fallback != nullptr) limit = &fallback->limits[i];
    if (!limit->has_value()) continue;
    const Limit& l = **limit;
    r.limit_text[i] = l.text;
    if (l.bytes) {
      r.limit_bytes[i] = l.bytes;
    } else if (l.device_fraction && r.device_memory) {
      r.limit_bytes[i] = static_cast<int64_t>(
          std::floor(*l.device_fraction * static_cast<double>(*r.device_memory)));
    }
  }
  return r;
}

}  // namespace memplan::cli
