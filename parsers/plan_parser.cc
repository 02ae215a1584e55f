// Plan files read with LLVM's YAML parser through YamlReader (located
// errors, bounded nesting). Compiled with -fno-rtti, like LLVM. Specs are lowered by parsers/plan_spec.cc;
// matching to a program is parsers/plan_resolve.cc.
#include "parsers/plan_parser.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include "parsers/jax_sharding_parser.h"
#include "parsers/plan_spec.h"
#include "parsers/yaml_reader.h"

namespace memplan::parsers {
namespace {

namespace yaml = llvm::yaml;

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

class Reader {
 public:
  explicit Reader(std::shared_ptr<const SourceText> source)
      : source_(source), yaml_(std::move(source), kMaxPlanDepth) {}

  absl::StatusOr<PlanFile> Read() {
    out_.source = source_;
    RETURN_IF_ERROR(yaml_.Read("a plan (a mapping with `mesh` and `arguments`)",
                               [&](yaml::Node* root) { return Top(root); }));
    RETURN_IF_ERROR(Finish());
    return std::move(out_);
  }

 private:
  size_t Offset(const yaml::Node* node) const { return yaml_.Offset(node); }
  absl::Status At(size_t offset, std::string_view message) const { return yaml_.At(offset, message); }
  absl::Status Error(const yaml::Node* node, std::string_view message) const {
    return yaml_.Error(node, message);
  }
  absl::Status SyntaxError() const { return yaml_.SyntaxError(); }
  absl::StatusOr<std::string> Scalar(yaml::Node* node, std::string_view expected,
                                     bool* quoted = nullptr) const {
    return yaml_.Scalar(node, expected, quoted);
  }
  absl::StatusOr<int64_t> Integer(yaml::Node* node, std::string_view expected) const {
    return yaml_.Integer(node, expected);
  }
  absl::Status ForEach(yaml::Node* node, std::string_view what,
                       const std::vector<std::string_view>& known,
                       const YamlReader::MemberFn& fn) const {
    return yaml_.ForEach(node, what, known, fn);
  }
  static bool IsNull(yaml::Node* node) { return YamlReader::IsNull(node); }

  absl::Status Top(yaml::Node* root) {
    return ForEach(root, "the plan", {"mesh", "devices", "arguments", "outputs", "donate"},
                   [&](const std::string& key, yaml::Node* key_node, yaml::Node* value) {
                     if (key == "mesh") {
                       mesh_offset_ = Offset(key_node);
                       return Mesh(value);
                     }
                     if (key == "devices") return Devices(value);
                     if (key == "arguments") {
                       has_arguments_ = true;
                       return Arguments(value);
                     }
                     if (key == "outputs") return Outputs(value);
                     return Donate(value);
                   });
  }

  absl::Status Mesh(yaml::Node* node) {
    has_mesh_ = true;
    if (auto* scalar = llvm::dyn_cast_or_null<yaml::ScalarNode>(node)) {
      // "dp=2,tp=4" or a JAX / PyTorch mesh repr.
      ASSIGN_OR_RETURN(const EmbeddedText text, Embedded(scalar));
      absl::StatusOr<ParsedMesh> parsed =
          ParseMeshText(*SourceText::FromString(std::string(kEmbeddedName), text.value));
      if (!parsed.ok()) return Relocate(parsed.status(), text);
      out_.mesh = std::move(parsed->mesh);
      return absl::OkStatus();
    }
    return ForEach(node, "mesh", {}, [&](const std::string& axis, yaml::Node* key, yaml::Node* value) {
      if (!IsIdentifier(axis)) {
        return Error(key, StrCat("expected a mesh axis name (an identifier), found '", axis, "'"));
      }
      ASSIGN_OR_RETURN(const int64_t size, Integer(value, "a positive integer axis size"));
      if (size < 1 || size > (int64_t{1} << 31)) {
        return Error(value, "expected a positive integer axis size");
      }
      out_.mesh.axes.push_back({axis, size});
      return absl::OkStatus();
    });
  }

  absl::Status Devices(yaml::Node* node) {
    auto* list = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
    if (list == nullptr) return Error(node, "expected a list of device ids (devices)");
    devices_offset_ = Offset(node);
    has_devices_ = true;
    for (yaml::Node& element : *list) {
      RETURN_IF_ERROR(SyntaxError());
      ASSIGN_OR_RETURN(const int64_t id, Integer(&element, "a device id (an integer)"));
      devices_.push_back(id);
    }
    return SyntaxError();
  }

  absl::StatusOr<PlanKey> Key(yaml::Node* node, std::string_view what) {
    bool quoted = false;
    ASSIGN_OR_RETURN(std::string text, Scalar(node, what, &quoted));
    PlanKey key;
    key.offset = Offset(node);
    if (text.empty()) return Error(node, StrCat("expected ", what, ", found an empty string"));
    if (std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      if (!absl::SimpleAtoi(text, &key.number)) return Error(node, "expected a parameter number");
      key.kind = PlanKey::Kind::kNumber;
    } else if (ir::IsGlob(text)) {
      key.kind = PlanKey::Kind::kGlob;
    } else {
      key.kind = PlanKey::Kind::kName;
    }
    key.text = std::move(text);
    return key;
  }

  absl::Status Arguments(yaml::Node* node) {
    return ForEach(node, "arguments", {}, [&](const std::string&, yaml::Node* key_node, yaml::Node* value) {
      PlanArgumentEntry entry;
      ASSIGN_OR_RETURN(entry.key, Key(key_node, "an argument name, glob or parameter number"));
      ASSIGN_OR_RETURN(entry.spec, Spec(value));
      out_.arguments.push_back(std::move(entry));
      return absl::OkStatus();
    });
  }

  absl::Status Outputs(yaml::Node* node) {
    return ForEach(node, "outputs", {}, [&](const std::string&, yaml::Node* key_node, yaml::Node* value) {
      PlanOutputEntry entry;
      entry.offset = Offset(key_node);
      ASSIGN_OR_RETURN(entry.index, Integer(key_node, "an output index (an integer)"));
      if (entry.index < 0) return Error(key_node, "expected an output index (0 or more)");
      for (const PlanOutputEntry& other : out_.outputs) {
        if (other.index == entry.index) {
          return Error(key_node, StrCat("duplicate output index ", entry.index));
        }
      }
      ASSIGN_OR_RETURN(entry.spec, Spec(value));
      out_.outputs.push_back(std::move(entry));
      return absl::OkStatus();
    });
  }

  absl::Status Donate(yaml::Node* node) {
    auto* list = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
    if (list == nullptr) return Error(node, "expected a list of argument keys (donate)");
    for (yaml::Node& element : *list) {
      RETURN_IF_ERROR(SyntaxError());
      ASSIGN_OR_RETURN(PlanKey key, Key(&element, "an argument name, glob or parameter number"));
      out_.donate.push_back(std::move(key));
    }
    return SyntaxError();
  }

  // A scalar's text and where it stands: `exact` when offsets into the value
  // are offsets from `base` in the file (no escapes, one line).
  absl::StatusOr<EmbeddedText> Embedded(yaml::ScalarNode* scalar) {
    EmbeddedText text;
    llvm::SmallString<64> storage;
    text.value = scalar->getValue(storage).str();
    text.base = Offset(scalar);
    llvm::StringRef raw = scalar->getRawValue();
    if (raw.startswith("\"") || raw.startswith("'")) {
      raw = raw.drop_front().drop_back();
      ++text.base;
    }
    text.exact = raw == text.value && text.value.find('\n') == std::string::npos;
    text.source = source_.get();
    return text;
  }

  absl::StatusOr<PlanSpec> Spec(yaml::Node* node) {
    PlanSpec spec;
    spec.offset = Offset(node);
    if (auto* scalar = llvm::dyn_cast_or_null<yaml::ScalarNode>(node)) {
      ASSIGN_OR_RETURN(const EmbeddedText text, Embedded(scalar));
      RETURN_IF_ERROR(ParseSpecText(text, &spec));
      return spec;
    }
    auto* list = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
    if (list == nullptr) {
      return Error(node, "expected a spec: a list such as [dp, null], a PartitionSpec repr or an "
                         "HloSharding in quotes");
    }
    for (yaml::Node& element : *list) {
      RETURN_IF_ERROR(SyntaxError());
      spec.dim_offsets.push_back(Offset(&element));
      ir::SpecDim dim;
      std::vector<size_t> offsets;
      if (auto* axes = llvm::dyn_cast<yaml::SequenceNode>(&element)) {
        dim.kind = ir::SpecDim::Kind::kAxes;
        dim.tuple = true;
        for (yaml::Node& axis : *axes) {
          RETURN_IF_ERROR(SyntaxError());
          ASSIGN_OR_RETURN(std::string name, AxisName(&axis));
          dim.axes.push_back(std::move(name));
          offsets.push_back(Offset(&axis));
        }
        RETURN_IF_ERROR(SyntaxError());
        if (dim.axes.empty()) dim.kind = ir::SpecDim::Kind::kNone;
      } else if (!IsNull(&element)) {
        ASSIGN_OR_RETURN(std::string name, AxisName(&element));
        dim.kind = ir::SpecDim::Kind::kAxes;
        dim.axes.push_back(std::move(name));
        offsets.push_back(Offset(&element));
      }
      spec.spec.dims.push_back(std::move(dim));
      spec.axis_offsets.push_back(std::move(offsets));
    }
    RETURN_IF_ERROR(SyntaxError());
    spec.end_offset = static_cast<size_t>(
        std::max<ptrdiff_t>(0, list->getSourceRange().End.getPointer() - source_->text().data() - 1));
    return spec;
  }

  absl::StatusOr<std::string> AxisName(yaml::Node* node) {
    if (IsNull(node)) return Error(node, "expected a mesh axis name in a list of axes, found null");
    ASSIGN_OR_RETURN(std::string name, Scalar(node, "a mesh axis name, a list of them, or null"));
    return name;
  }

  // Checks that need the whole file: the mesh, its devices, the specs' axes.
  absl::Status Finish() {
    if (!has_mesh_) return At(0, "expected a `mesh` key in the plan");
    if (!has_arguments_) return At(0, "expected an `arguments` key in the plan (`{}` for none)");
    if (absl::Status valid = out_.mesh.Validate(); !valid.ok()) {
      return At(mesh_offset_, StrCat("expected a valid mesh: ", FromAbsl(valid.message())));
    }
    if (has_devices_) {
      const int64_t n = out_.mesh.device_count();
      std::vector<bool> seen(static_cast<size_t>(n), false);
      bool permutation = static_cast<int64_t>(devices_.size()) == n;
      for (int64_t id : devices_) {
        if (!permutation) break;
        if (id < 0 || id >= n || seen[id]) permutation = false;
        else seen[id] = true;
      }
      if (!permutation) {
        return At(devices_offset_, StrCat("expected `devices` to list each of 0..", n - 1,
                                          " exactly once (the mesh ", out_.mesh.ToString(),
                                          " has ", n, " devices)"));
      }
      out_.mesh.order = ir::Mesh::DeviceOrder::kList;
      out_.mesh.device_list = devices_;
    }
    for (PlanArgumentEntry& entry : out_.arguments) {
      RETURN_IF_ERROR(CheckSpecAxes(*source_, out_.mesh, entry.spec));
    }
    for (PlanOutputEntry& entry : out_.outputs) {
      RETURN_IF_ERROR(CheckSpecAxes(*source_, out_.mesh, entry.spec));
    }
    return absl::OkStatus();
  }

  std::shared_ptr<const SourceText> source_;
  YamlReader yaml_;
  PlanFile out_;
  bool has_mesh_ = false, has_arguments_ = false, has_devices_ = false;
  size_t mesh_offset_ = 0, devices_offset_ = 0;
  std::vector<int64_t> devices_;
};

}  // namespace

absl::StatusOr<PlanFile> ParsePlan(std::shared_ptr<const SourceText> source) {
  Reader reader(std::move(source));
  return reader.Read();
}

}  // namespace memplan::parsers
