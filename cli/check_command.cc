// `memplan check`: the budget file (LLVM's YAML I/O), the checks, and the
// text and JUnit reports. Compiled with -fno-rtti (it instantiates
// llvm::yaml templates, and LLVM is built without RTTI); includes no
// protobuf header.
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

std::string_view MetricKey(Metric metric) {
  switch (metric) {
    case Metric::kPeak:
      return "peak";
    case Metric::kTemp:
      return "temp";
    case Metric::kArgument:
      return "argument";
    case Metric::kOutput:
      return "output";
    case Metric::kDeviceFootprint:
      return "device_footprint";
    case Metric::kTotalAllocation:
      return "total_allocation";
  }
  return "unknown";
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

// ---------------------------------------------------------------------------
// Metrics: from a program, or from `memplan analyze --format=json`.

ModuleMetrics MetricsOf(const ir::Program& program, const analyzer::Analysis& analysis) {
  ModuleMetrics m;
  m.module = program.module_name;
  m.source = program.source_files.empty() ? "" : program.source_files.front();
  const analyzer::MemoryStats& s = analysis.stats;
  if (analysis.peak) m.bytes[static_cast<int>(Metric::kPeak)] = analysis.peak->bytes;
  m.bytes[static_cast<int>(Metric::kTemp)] = s.temp_bytes;
  m.bytes[static_cast<int>(Metric::kArgument)] = s.argument_bytes;
  m.bytes[static_cast<int>(Metric::kOutput)] = s.output_bytes;
  m.bytes[static_cast<int>(Metric::kDeviceFootprint)] = s.device_footprint_bytes;
  m.bytes[static_cast<int>(Metric::kTotalAllocation)] = s.total_allocation_bytes;
  return m;
}

bool LooksLikeAnalyzeJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.substr(0, 4096).find("\"schema_version\"") != std::string_view::npos;
}

absl::StatusOr<ModuleMetrics> MetricsFromAnalyzeJson(std::string_view text,
                                                     const std::string& file_name) {
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse(llvm::StringRef(text.data(), text.size()));
  if (!parsed) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: invalid JSON: ", llvm::toString(parsed.takeError())));
  }
  const llvm::json::Object* root = parsed->getAsObject();
  if (root == nullptr) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: expected a JSON object from 'memplan analyze --format=json'"));
  }
  auto missing = [&](std::string_view key) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": error: expected key '", key,
               "' (an integer) of 'memplan analyze --format=json' (docs/json-schema.md)"));
  };
  ModuleMetrics m;
  m.source = file_name;
  if (llvm::Optional<llvm::StringRef> module = root->getString("module")) {
    m.module = module->str();
  } else {
    return missing("module");
  }
  static constexpr struct {
    Metric metric;
    const char* key;
  } kKeys[] = {{Metric::kTemp, "temp_bytes"},
               {Metric::kArgument, "argument_bytes"},
               {Metric::kOutput, "output_bytes"},
               {Metric::kDeviceFootprint, "device_footprint_bytes"},
               {Metric::kTotalAllocation, "total_allocation_bytes"}};
  for (const auto& k : kKeys) {
    const llvm::Optional<int64_t> bytes = root->getInteger(k.key);
    if (!bytes) return missing(k.key);
    m.bytes[static_cast<int>(k.metric)] = *bytes;
  }
  const llvm::json::Value* peak = root->get("live_peak");
  if (peak == nullptr) return missing("live_peak");
  if (const llvm::json::Object* p = peak->getAsObject()) {
    const llvm::Optional<int64_t> bytes = p->getInteger("bytes");
    if (!bytes) return missing("live_peak.bytes");
    m.bytes[static_cast<int>(Metric::kPeak)] = *bytes;
  }
  return m;
}

namespace {

absl::StatusOr<std::string> ReadHead(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat(path, ": cannot open"));
  std::string head(limit, '\0');
  in.read(head.data(), static_cast<std::streamsize>(limit));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

// Every module at `path` (all of a dump directory, or only `module`), loaded
// and analyzed.
absl::StatusOr<std::vector<ModuleMetrics>> LoadModules(
    const std::string& path, const std::string& module,
    std::vector<std::pair<std::string, std::string>>* names_and_stems) {
  parsers::LoadOptions options;
  options.module = module;
  ASSIGN_OR_RETURN(parsers::LoadedProgram first, parsers::LoadProgram(path, options));
  std::vector<ModuleMetrics> out;
  auto add = [&](const parsers::LoadedProgram& loaded, const std::string& stem) {
    const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded.program, {});
    out.push_back(MetricsOf(loaded.program, analysis));
    if (names_and_stems) names_and_stems->emplace_back(loaded.program.module_name, stem);
  };
  if (!module.empty() || first.modules.size() <= 1) {
    add(first, first.modules.size() == 1 ? first.modules.front().stem : "");
    return out;
  }
  for (const parsers::DumpModule& m : first.modules) {
    options.module = m.stem;
    ASSIGN_OR_RETURN(parsers::LoadedProgram loaded, parsers::LoadProgram(path, options));
    add(loaded, m.stem);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ModuleMetrics>> LoadBaseline(const std::string& path,
                                                        const std::string& module) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    ASSIGN_OR_RETURN(std::string head, ReadHead(path, 4096));
    if (LooksLikeAnalyzeJson(head)) {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
          llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
      if (!buffer) {
        return absl::InvalidArgumentError(
            StrCat(path, ": cannot read: ", buffer.getError().message()));
      }
      const llvm::StringRef text = (*buffer)->getBuffer();
      ASSIGN_OR_RETURN(ModuleMetrics m,
                       MetricsFromAnalyzeJson(std::string_view(text.data(), text.size()), path));
      return std::vector<ModuleMetrics>{std::move(m)};
    }
  }
  return LoadModules(path, module, nullptr);
}

// ---------------------------------------------------------------------------
// The checks.

namespace {

std::string OnePlace(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%+.1f%%", percent);
  return buffer;
}

std::string PercentAllowed(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g%%", percent);
  return buffer;
}

std::string Bytes(int64_t bytes) {
  return StrCat(viz::HumanBytes(bytes), " (", viz::GroupedBytes(bytes), " bytes)");
}

CheckOutcome BudgetOutcome(Metric metric, const ModuleMetrics& current,
                           const ResolvedBudget& budget) {
  const int i = static_cast<int>(metric);
  const std::string key(MetricKey(metric));
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kBudget;
  o.name = key;
  const std::optional<int64_t>& value = current.bytes[i];
  const int64_t limit = *budget.limit_bytes[i];
  const std::string limit_text =
      ParseByteCount(budget.limit_text[i]) ? Bytes(limit)
                                           : StrCat(budget.limit_text[i], " = ", Bytes(limit));
  if (!value) {
    o.result = CheckOutcome::Result::kError;
    o.message = StrCat(key, " is unknown: the input has no live ranges (use a buffer-assignment "
                            "dump with its HloLiveRange), so the budget of ",
                       viz::HumanBytes(limit), " cannot be checked");
    return o;
  }
  if (*value <= limit) {
    o.result = CheckOutcome::Result::kPass;
    o.message = StrCat(key, " is ", Bytes(*value), ", within its budget of ", limit_text);
    return o;
  }
  o.result = CheckOutcome::Result::kFail;
  o.message = StrCat(key, " is ", Bytes(*value), ", over its budget of ", limit_text, " by ",
                     viz::HumanBytes(*value - limit));
  if (limit > 0) {
    StrAppend(&o.message, " (",
              OnePlace(100.0 * static_cast<double>(*value - limit) / static_cast<double>(limit)),
              ")");
  }
  return o;
}

CheckOutcome RegressionOutcome(Metric metric, const ModuleMetrics& current,
                               const ModuleMetrics& baseline, double allowed) {
  const int i = static_cast<int>(metric);
  const std::string key(MetricKey(metric));
  CheckOutcome o;
  o.metric = metric;
  o.kind = CheckOutcome::Kind::kRegression;
  o.name = StrCat(key, " vs baseline");
  if (!current.bytes[i] || !baseline.bytes[i]) {
    o.result = CheckOutcome::Result::kSkipped;
    o.message = StrCat(key, " is unknown in the ", !current.bytes[i] ? "input" : "baseline",
                       " (no live ranges): not compared");
    return o;
  }
  const int64_t before = *baseline.bytes[i];
  const int64_t after = *current.bytes[i];
  const std::string allowed_text = PercentAllowed(allowed);
  if (after == before) {
    o.message = StrCat(key, " is unchanged at ", viz::HumanBytes(after));
    return o;
  }
  const bool grew = after > before;
  std::string change = StrCat(key, grew ? " grew" : " shrank", " from ", viz::HumanBytes(before),
                              " to ", viz::HumanBytes(after));
  if (before == 0) {
    StrAppend(&change, " (from nothing)");
    o.result = grew ? CheckOutcome::Result::kFail : CheckOutcome::Result::kPass;
    o.message = grew ? StrCat(change, ", over the ", allowed_text, " allowed") : change;
    return o;
  }
  const double percent =
      100.0 * static_cast<double>(after - before) / static_cast<double>(before);
  StrAppend(&change, " (", OnePlace(percent), ")");
  // A hair of slack so that "5%" allows exactly 5% despite rounding.
  if (grew && percent > allowed + 1e-9) {
    o.result = CheckOutcome::Result::kFail;
    o.message = StrCat(change, ", over the ", allowed_text, " allowed");
  } else {
    o.message = grew ? StrCat(change, ", within the ", allowed_text, " allowed") : change;
  }
  return o;
}

}  // namespace

std::vector<CheckOutcome> CheckModule(const ModuleMetrics& current, const ResolvedBudget& budget,
                                      const ModuleMetrics* baseline) {
  std::vector<CheckOutcome> outcomes;
  for (Metric metric : kAllMetrics) {
    if (budget.limit_bytes[static_cast<int>(metric)]) {
      outcomes.push_back(BudgetOutcome(metric, current, budget));
    }
  }
  if (baseline != nullptr) {
    const double allowed = budget.regression_percent.value_or(0.0);
    for (Metric metric : kAllMetrics) {
      outcomes.push_back(RegressionOutcome(metric, current, *baseline, allowed));
    }
  }
  return outcomes;
}

// ---------------------------------------------------------------------------
// Reports.

namespace {

const char* ResultWord(CheckOutcome::Result r) {
  switch (r) {
    case CheckOutcome::Result::kPass:
      return "pass";
    case CheckOutcome::Result::kFail:
      return "FAIL";
    case CheckOutcome::Result::kError:
      return "ERROR";
    case CheckOutcome::Result::kSkipped:
      return "skip";
  }
  return "?";
}

}  // namespace

std::string RenderCheckText(const std::vector<ModuleReport>& reports) {
  std::string out;
  int64_t checks = 0;
  int64_t failed = 0;
  int64_t errors = 0;
  size_t name_width = 0;
  for (const ModuleReport& r : reports) {
    for (const CheckOutcome& o : r.outcomes) name_width = std::max(name_width, o.name.size());
  }
  for (const ModuleReport& r : reports) {
    StrAppend(&out, "module ", r.module, " (", r.source, ")\n");
    if (r.budget_key.empty()) {
      StrAppend(&out, "  skipped: no budget for it (neither its name nor \"*\")\n");
    } else {
      StrAppend(&out, "  budget \"", r.budget_key, "\"");
      if (!r.baseline.empty()) StrAppend(&out, ", baseline ", r.baseline);
      out += "\n";
    }
    for (const std::string& note : r.notes) StrAppend(&out, "  note: ", note, "\n");
    for (const CheckOutcome& o : r.outcomes) {
      ++checks;
      if (o.result == CheckOutcome::Result::kFail) ++failed;
      if (o.result == CheckOutcome::Result::kError) ++errors;
      StrAppend(&out, "  ", ResultWord(o.result), std::string(6 - std::strlen(ResultWord(o.result)), ' '),
                o.name, std::string(name_width - o.name.size() + 2, ' '), o.message, "\n");
    }
  }
  out += "\n";
  if (checks == 0) {
    out += "no checks ran\n";
  } else if (failed == 0 && errors == 0) {
    StrAppend(&out, "all ", checks, " checks passed\n");
  } else {
    StrAppend(&out, failed, " of ", checks, " checks failed");
    if (errors > 0) StrAppend(&out, ", ", errors, " could not be checked");
    out += "\n";
  }
  return out;
}

std::string RenderCheckJUnit(const std::vector<ModuleReport>& reports) {
  std::vector<viz::JUnitSuite> suites;
  std::map<std::string, int> seen;
  for (const ModuleReport& r : reports) {
    viz::JUnitSuite suite;
    suite.name = r.module;
    if (seen[r.module]++ > 0) suite.name = StrCat(r.module, " (", r.source, ")");
    suite.properties.emplace_back("source", r.source);
    if (!r.budget_key.empty()) suite.properties.emplace_back("budget", r.budget_key);
    if (!r.baseline.empty()) suite.properties.emplace_back("baseline", r.baseline);
    const std::string classname = StrCat("memplan.check.", r.module);
    if (r.budget_key.empty()) {
      suite.cases.push_back({"budget", classname, viz::JUnitCase::Outcome::kSkipped,
                             "no budget for this module (neither its name nor \"*\")", ""});
    }
    for (const CheckOutcome& o : r.outcomes) {
      viz::JUnitCase c;
      c.name = o.name;
      c.classname = classname;
      switch (o.result) {
        case CheckOutcome::Result::kPass:
          c.outcome = viz::JUnitCase::Outcome::kPass;
          break;
        case CheckOutcome::Result::kFail:
          c.outcome = viz::JUnitCase::Outcome::kFailure;
          c.message = o.message;
          c.details = StrCat(r.module, ": ", o.message);
          break;
        case CheckOutcome::Result::kError:
          c.outcome = viz::JUnitCase::Outcome::kError;
          c.message = o.message;
          break;
        case CheckOutcome::Result::kSkipped:
          c.outcome = viz::JUnitCase::Outcome::kSkipped;
          c.message = o.message;
          break;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  return viz::RenderJUnit("memplan check", suites);
}

// ---------------------------------------------------------------------------
// The command.

namespace {

void ReportError(const absl::Status& status) {
  std::fprintf(stderr, "memplan: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
}

// The baseline module for the `index`th current module: the one with its
// name (the k-th of that name for the k-th, when a dump compiled one name
// several times); or, when each side has just one module, that one whatever
// its name.
const ModuleMetrics* MatchBaseline(const std::vector<ModuleMetrics>& current, size_t index,
                                   const std::vector<ModuleMetrics>& baseline) {
  const std::string& name = current[index].module;
  size_t occurrence = 0;
  for (size_t i = 0; i < index; ++i) occurrence += current[i].module == name ? 1 : 0;
  for (const ModuleMetrics& b : baseline) {
    if (b.module != name) continue;
    if (occurrence == 0) return &b;
    --occurrence;
  }
  if (current.size() == 1 && baseline.size() == 1) return &baseline.front();
  return nullptr;
}

}  // namespace

int RunCheck(const CheckFlags& flags) {
  absl::StatusOr<BudgetFile> budgets = LoadBudgets(flags.budget);
  if (!budgets.ok()) {
    ReportError(budgets.status());
    return kExitBadInput;
  }
  std::vector<std::pair<std::string, std::string>> names;
  absl::StatusOr<std::vector<ModuleMetrics>> current = LoadModules(flags.path, flags.module, &names);
  if (!current.ok()) {
    ReportError(current.status());
    return kExitBadInput;
  }
  std::vector<ModuleMetrics> baseline;
  if (!flags.baseline.empty()) {
    absl::StatusOr<std::vector<ModuleMetrics>> loaded = LoadBaseline(flags.baseline, flags.module);
    if (!loaded.ok()) {
      ReportError(loaded.status());
      return kExitBadInput;
    }
    baseline = *std::move(loaded);
  }

  std::vector<ModuleReport> reports;
  bool any_checked = false;
  bool any_failed = false;
  bool any_error = false;
  for (size_t i = 0; i < current->size(); ++i) {
    const ModuleMetrics& m = (*current)[i];
    ModuleReport report;
    report.module = m.module;
    report.source = m.source;
    const std::optional<ResolvedBudget> budget = ResolveBudget(*budgets, m.module, names[i].second);
    if (budget) {
      report.budget_key = budget->key;
      const ModuleMetrics* base = nullptr;
      if (!flags.baseline.empty()) {
        base = MatchBaseline(*current, i, baseline);
        if (base != nullptr) {
          report.baseline = base->source;
          if (base->module != m.module) {
            report.notes.push_back(StrCat("the baseline's module is ", base->module,
                                          "; compared as the only module on each side"));
          }
        } else {
          report.notes.push_back(
              StrCat("no module ", m.module, " in the baseline: no regression checks"));
        }
      }
      report.outcomes = CheckModule(m, *budget, base);
      if (report.outcomes.empty()) {
        report.notes.push_back(StrCat("budget \"", budget->key, "\" sets no limit"));
      }
      any_checked = any_checked || !report.outcomes.empty();
      for (const CheckOutcome& o : report.outcomes) {
        any_failed = any_failed || o.result == CheckOutcome::Result::kFail;
        any_error = any_error || o.result == CheckOutcome::Result::kError;
      }
    }
    reports.push_back(std::move(report));
  }

  const std::string text = RenderCheckText(reports);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!any_checked) {
    std::fprintf(stderr,
                 "memplan: nothing was checked: %s names no module found in %s, has no \"*\", "
                 "or sets no limit\n",
                 flags.budget.c_str(), flags.path.c_str());
    return kExitBadInput;
  }
  if (!flags.junit.empty()) {
    if (absl::Status written = WriteOutput(flags.junit, RenderCheckJUnit(reports)); !written.ok()) {
      ReportError(written);
      return kExitBadInput;
    }
  }
  if (any_error) return kExitBadInput;
  if (any_failed) {
    std::fprintf(stderr, "memplan: check failed (budgets: %s)\n", flags.budget.c_str());
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace memplan::cli
