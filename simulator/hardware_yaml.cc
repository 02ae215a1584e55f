// Hardware files, read with LLVM's YAML parser (llvm::yaml::Stream, which
// keeps each node's position for file:line:col errors). Compiled with
// -fno-rtti, like LLVM.
#include "simulator/hardware_yaml.h"

#include <charconv>
#include <functional>
#include <memory>
#include <set>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include "simulator/units.h"

namespace memplan::simulator {
namespace {

namespace yaml = llvm::yaml;

std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file_name) : file_name_(file_name) {
    sources_.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size()),
                                             file_name),
        llvm::SMLoc());
    sources_.setDiagHandler(
        [](const llvm::SMDiagnostic& d, void* context) {
          auto* first = static_cast<std::string*>(context);
          if (!first->empty()) return;
          llvm::raw_string_ostream os(*first);
          d.print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
        },
        &syntax_error_);
  }

  absl::StatusOr<HardwareOverlay> Read() {
    const llvm::MemoryBufferRef buffer =
        sources_.getMemoryBuffer(sources_.getMainFileID())->getMemBufferRef();
    // YAML is Unicode; names read from here are written back out.
    size_t bad = 0;
    if (!llvm::json::isUTF8(buffer.getBuffer(), &bad)) {
      return ErrorAtPointer(buffer.getBufferStart() + bad, "expected UTF-8 text");
    }
    yaml::Stream stream(buffer, sources_);
    absl::Status status = absl::OkStatus();
    int documents = 0;
    for (yaml::Document& document : stream) {
      if (++documents > 1) {
        status = Error(document.getRoot(), "expected one YAML document");
        break;
      }
      status = Top(document.getRoot());
      if (!status.ok()) break;
    }
    if (!syntax_error_.empty()) return absl::InvalidArgumentError(Trimmed(syntax_error_));
    RETURN_IF_ERROR(status);
    if (documents == 0) {
      return absl::InvalidArgumentError(
          StrCat(file_name_, ":1:1: error: expected a hardware description (a YAML mapping)"));
    }
    return std::move(out_);
  }

 private:
  absl::Status Error(const yaml::Node* node, std::string_view message) {
    if (!syntax_error_.empty()) return absl::InvalidArgumentError(Trimmed(syntax_error_));
    return ErrorAtPointer(node != nullptr ? node->getSourceRange().Start.getPointer() : nullptr,
                          message);
  }

  absl::Status ErrorAtPointer(const char* at, std::string_view message) {
    if (at == nullptr) {
      return absl::InvalidArgumentError(StrCat(file_name_, ":1:1: error: ", message));
    }
    // Rendered here, not through PrintMessage: that would go to the handler
    // that collects the parser's own errors.
    std::string rendered;
    llvm::raw_string_ostream os(rendered);
    sources_
        .GetMessage(llvm::SMLoc::getFromPointer(at), llvm::SourceMgr::DK_Error,
                    llvm::StringRef(message.data(), message.size()))
        .print(/*ProgName=*/nullptr, os, /*ShowColors=*/false);
    os.flush();
    return absl::InvalidArgumentError(Trimmed(rendered));
  }

  std::string Location(const yaml::Node* node) const {
    const char* at = node->getSourceRange().Start.getPointer();
    const auto [line, column] =
        sources_.getLineAndColumn(llvm::SMLoc::getFromPointer(at), sources_.getMainFileID());
    return StrCat(file_name_, ":", line, ":", column);
  }

  absl::StatusOr<std::string> Scalar(yaml::Node* node, std::string_view expected) {
    auto* scalar = llvm::dyn_cast_or_null<yaml::ScalarNode>(node);
    if (scalar == nullptr) return Error(node, StrCat("expected ", expected));
    llvm::SmallString<64> storage;
    return scalar->getValue(storage).str();
  }

  template <typename T>
  absl::StatusOr<T> QuantityAt(yaml::Node* node, Quantity kind) {
    ASSIGN_OR_RETURN(const std::string text, Scalar(node, QuantityExpectation(kind)));
    absl::StatusOr<double> value = ParseQuantity(text, kind);
    if (!value.ok()) return Error(node, FromAbsl(value.status().message()));
    return static_cast<T>(*value);
  }

  // Calls `fn` for each key of the mapping `node` (a location for errors is
  // `what`), refusing keys not in `known` (when given) and repeated keys.
  absl::Status ForEach(yaml::Node* node, std::string_view what,
                       const std::vector<std::string_view>& known,
                       const std::function<absl::Status(const std::string&, yaml::Node* key,
                                                        yaml::Node* value)>& fn) {
    auto* map = llvm::dyn_cast_or_null<yaml::MappingNode>(node);
    if (map == nullptr) return Error(node, StrCat("expected a mapping (", what, ")"));
    std::set<std::string> seen;
    for (yaml::KeyValueNode& kv : *map) {
      yaml::Node* key_node = kv.getKey();
      ASSIGN_OR_RETURN(const std::string key, Scalar(key_node, "a key"));
      if (!known.empty() &&
          std::find(known.begin(), known.end(), std::string_view(key)) == known.end()) {
        std::string list;
        for (std::string_view k : known) StrAppend(&list, list.empty() ? "" : ", ", k);
        return Error(key_node, StrCat("unknown key '", key, "' in ", what, "; expected one of ",
                                      list));
      }
      if (!seen.insert(key).second) return Error(key_node, StrCat("duplicate key '", key, "'"));
      RETURN_IF_ERROR(fn(key, key_node, kv.getValue()));
    }
    return absl::OkStatus();
  }

  absl::Status Top(yaml::Node* root) {
    // A document the parser gave up on has no root (its error is reported).
    if (root == nullptr) return Error(nullptr, "expected a hardware description (a YAML mapping)");
    if (llvm::isa<yaml::NullNode>(root)) {
      return Error(root, "expected a hardware description (a YAML mapping)");
    }
    return ForEach(
        root, "a hardware file",
        {"name", "description", "extends", "device_names", "device", "node", "links",
         "collectives", "efficiency"},
        [&](const std::string& key, yaml::Node*, yaml::Node* value) -> absl::Status {
          if (key == "name") {
            ASSIGN_OR_RETURN(out_.name, Scalar(value, "a name"));
            if (out_.name->empty()) return Error(value, "expected a non-empty name");
          } else if (key == "description") {
            ASSIGN_OR_RETURN(out_.description, Scalar(value, "a one-line description"));
          } else if (key == "extends") {
            ASSIGN_OR_RETURN(out_.extends, Scalar(value, "a preset name or a file"));
            out_.extends_location = Location(value);
          } else if (key == "device_names") {
            return DeviceNames(value);
          } else if (key == "device") {
            return Device(value);
          } else if (key == "node") {
            return ForEach(value, "node", {"gpus_per_node"},
                           [&](const std::string&, yaml::Node*, yaml::Node* v) -> absl::Status {
                             ASSIGN_OR_RETURN(out_.gpus_per_node,
                                              QuantityAt<int64_t>(v, Quantity::kCount));
                             return absl::OkStatus();
                           });
          } else if (key == "links") {
            return Links(value);
          } else if (key == "collectives") {
            return Collectives(value);
          } else if (key == "efficiency") {
            return EfficiencyOf(value);
          }
          return absl::OkStatus();
        });
  }

  absl::Status DeviceNames(yaml::Node* node) {
    auto* sequence = llvm::dyn_cast_or_null<yaml::SequenceNode>(node);
    if (sequence == nullptr) {
      return Error(node, "expected a list of device names, e.g. [\"NVIDIA H100 80GB HBM3\"]");
    }
    std::vector<std::string> names;
    for (yaml::Node& item : *sequence) {
      ASSIGN_OR_RETURN(std::string name, Scalar(&item, "a device name"));
      names.push_back(std::move(name));
    }
    out_.device_names = std::move(names);
    return absl::OkStatus();
  }

  absl::Status Device(yaml::Node* node) {
    return ForEach(
        node, "device", {"hbm_bytes", "hbm_bandwidth", "peak_flops"},
        [&](const std::string& key, yaml::Node*, yaml::Node* value) -> absl::Status {
          if (key == "hbm_bytes") {
            ASSIGN_OR_RETURN(out_.hbm_bytes, QuantityAt<int64_t>(value, Quantity::kBytes));
            if (*out_.hbm_bytes <= 0) return Error(value, "expected a positive byte count");
          } else if (key == "hbm_bandwidth") {
            ASSIGN_OR_RETURN(out_.hbm_bandwidth, QuantityAt<double>(value, Quantity::kBandwidth));
          } else {
            std::vector<std::string_view> names;
            for (Precision p : kAllPrecisions) names.push_back(PrecisionName(p));
            return ForEach(value, "device.peak_flops", names,
                           [&](const std::string& name, yaml::Node*, yaml::Node* v) -> absl::Status {
                             const Precision p = *PrecisionFromName(name);
                             ASSIGN_OR_RETURN(out_.peak_flops[static_cast<int>(p)],
                                              QuantityAt<double>(v, Quantity::kFlopRate));
                             return absl::OkStatus();
                           });
          }
          return absl::OkStatus();
        });
  }

  absl::Status Links(yaml::Node* node) {
    return ForEach(node, "links", {"nvlink", "network"},
                   [&](const std::string& link, yaml::Node*, yaml::Node* value) -> absl::Status {
                     const bool nvlink = link == "nvlink";
                     return ForEach(
                         value, StrCat("links.", link), {"bandwidth", "latency"},
                         [&](const std::string& key, yaml::Node*, yaml::Node* v) -> absl::Status {
                           if (key == "bandwidth") {
                             ASSIGN_OR_RETURN(double b, QuantityAt<double>(v, Quantity::kBandwidth));
                             (nvlink ? out_.nvlink_bandwidth : out_.network_bandwidth) = b;
                           } else {
                             ASSIGN_OR_RETURN(double l, QuantityAt<double>(v, Quantity::kDuration));
                             (nvlink ? out_.nvlink_latency : out_.network_latency) = l;
                           }
                           return absl::OkStatus();
                         });
                   });
  }

  absl::Status EfficiencyOf(yaml::Node* node) {
    return ForEach(node, "efficiency", {"matmul", "vector", "memory"},
                   [&](const std::string& key, yaml::Node*, yaml::Node* v) -> absl::Status {
                     ASSIGN_OR_RETURN(const std::string text,
                                      Scalar(v, "a fraction of the peak in (0, 1]"));
                     double value = 0;
                     const auto [end, ec] =
                         std::from_chars(text.data(), text.data() + text.size(), value);
                     if (ec != std::errc() || end != text.data() + text.size() ||
                         !(value > 0 && value <= 1)) {
                       return Error(v, "expected a fraction of the peak in (0, 1], e.g. 0.7");
                     }
                     (key == "matmul" ? out_.matmul_efficiency
                      : key == "vector" ? out_.vector_efficiency
                                        : out_.memory_efficiency) = value;
                     return absl::OkStatus();
                   });
  }

  absl::Status Collectives(yaml::Node* node) {
    std::vector<std::string_view> collective_names;
    for (ir::CollectiveKind kind : ir::kAllCollectiveKinds) {
      collective_names.push_back(ir::CollectiveName(kind));
    }
    return ForEach(
        node, "collectives", {"nvlink", "network"},
        [&](const std::string& link_name, yaml::Node*, yaml::Node* per_link) -> absl::Status {
          const Link link = *LinkFromName(link_name);
          return ForEach(
              per_link, StrCat("collectives.", link_name), collective_names,
              [&](const std::string& name, yaml::Node* key, yaml::Node* fit) -> absl::Status {
                const ir::CollectiveKind kind = *ir::CollectiveFromName(name);
                std::optional<double> alpha, bandwidth;
                RETURN_IF_ERROR(ForEach(
                    fit, StrCat("collectives.", link_name, ".", name), {"alpha", "bandwidth"},
                    [&](const std::string& k, yaml::Node*, yaml::Node* v) -> absl::Status {
                      if (k == "alpha") {
                        ASSIGN_OR_RETURN(alpha, QuantityAt<double>(v, Quantity::kDuration));
                      } else {
                        ASSIGN_OR_RETURN(bandwidth, QuantityAt<double>(v, Quantity::kBandwidth));
                      }
                      return absl::OkStatus();
                    }));
                if (!alpha || !bandwidth) {
                  return Error(key, StrCat("expected both alpha and bandwidth for ", name,
                                           " on ", link_name));
                }
                out_.collectives[{link, kind}] = {*alpha, *bandwidth};
                return absl::OkStatus();
              });
        });
  }

  std::string file_name_;
  llvm::SourceMgr sources_;
  std::string syntax_error_;
  HardwareOverlay out_;
};

std::string ShortestDecimal(double v) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return ec == std::errc() ? std::string(buffer, end) : StrCat(v);
}

void Line(std::string& out, std::string_view indent, std::string_view key,
          std::string_view value, std::string_view comment = "") {
  StrAppend(&out, indent, key, ": ", value);
  if (!comment.empty()) StrAppend(&out, "  # ", comment);
  out += '\n';
}

// True for bytes that start a character YAML does not allow unescaped: C0
// controls, DEL, and the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F).
bool NonPrintableAt(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c == 0x7f) return true;
  return c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9f;
}

// Quoted for YAML when it would not read back as the same plain scalar in
// block context; non-printable characters escaped.
std::string YamlString(std::string_view s) {
  bool plain = !s.empty() && s.front() != ' ' && s.back() != ' ' &&
               std::string_view("-?:,[]{}#&*!|>'\"%@`").find(s.front()) == std::string_view::npos &&
               s.find(": ") == std::string_view::npos && s.find(" #") == std::string_view::npos &&
               s.back() != ':';
  for (size_t i = 0; i < s.size(); ++i) plain &= !NonPrintableAt(s, i);
  if (plain) return std::string(s);
  constexpr char kHex[] = "0123456789abcdef";
  std::string quoted = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (c == 0xc2 && NonPrintableAt(s, i)) {
      const unsigned char next = static_cast<unsigned char>(s[++i]);
      quoted += "\\u00";
      quoted += kHex[next >> 4];
      quoted += kHex[next & 0xf];
    } else if (NonPrintableAt(s, i)) {
      quoted += "\\x";
      quoted += kHex[c >> 4];
      quoted += kHex[c & 0xf];
    } else {
      quoted += static_cast<char>(c);
    }
  }
  quoted += '"';
  return quoted;
}

}  // namespace

absl::StatusOr<HardwareOverlay> ParseHardwareYaml(std::string_view text,
                                                  const std::string& file_name) {
  return Reader(text, file_name).Read();
}

Hardware ApplyOverlay(Hardware base, const HardwareOverlay& o) {
  if (o.name) base.name = *o.name;
  if (o.description) base.description = *o.description;
  if (o.device_names) base.device_names = *o.device_names;
  if (o.hbm_bytes) base.hbm_bytes = *o.hbm_bytes;
  if (o.hbm_bandwidth) base.hbm_bandwidth = *o.hbm_bandwidth;
  for (int i = 0; i < kNumPrecisions; ++i) {
    if (o.peak_flops[i]) base.peak_flops[i] = *o.peak_flops[i];
  }
  if (o.gpus_per_node) base.gpus_per_node = *o.gpus_per_node;
  if (o.nvlink_bandwidth) base.nvlink.bandwidth = *o.nvlink_bandwidth;
  if (o.nvlink_latency) base.nvlink.latency = *o.nvlink_latency;
  if (o.network_bandwidth) base.network.bandwidth = *o.network_bandwidth;
  if (o.network_latency) base.network.latency = *o.network_latency;
  for (const auto& [key, fit] : o.collectives) base.collectives[key] = fit;
  if (o.matmul_efficiency) base.efficiency.matmul = *o.matmul_efficiency;
  if (o.vector_efficiency) base.efficiency.vector = *o.vector_efficiency;
  if (o.memory_efficiency) base.efficiency.memory = *o.memory_efficiency;
  return base;
}

std::string HardwareToYaml(const Hardware& hw) {
  std::string out;
  Line(out, "", "name", YamlString(hw.name));
  if (!hw.description.empty()) Line(out, "", "description", YamlString(hw.description));
  if (!hw.device_names.empty()) {
    out += "device_names:\n";
    for (const std::string& n : hw.device_names) StrAppend(&out, "  - ", YamlString(n), "\n");
  }
  out += "device:\n";
  Line(out, "  ", "hbm_bytes", FormatQuantity(static_cast<double>(hw.hbm_bytes), Quantity::kBytes));
  Line(out, "  ", "hbm_bandwidth", FormatQuantity(hw.hbm_bandwidth, Quantity::kBandwidth));
  out += "  peak_flops:\n";
  for (Precision p : kAllPrecisions) {
    const double v = hw.peak_flops[static_cast<int>(p)];
    if (v > 0) Line(out, "    ", PrecisionName(p), FormatQuantity(v, Quantity::kFlopRate));
  }
  out += "node:\n";
  Line(out, "  ", "gpus_per_node", StrCat(hw.gpus_per_node));
  out += "links:\n";
  for (Link l : kAllLinks) {
    StrAppend(&out, "  ", LinkName(l), ":\n");
    Line(out, "    ", "bandwidth", FormatQuantity(hw.link(l).bandwidth, Quantity::kBandwidth));
    Line(out, "    ", "latency", FormatQuantity(hw.link(l).latency, Quantity::kDuration));
  }
  out += "efficiency:\n";
  Line(out, "  ", "matmul", ShortestDecimal(hw.efficiency.matmul));
  Line(out, "  ", "vector", ShortestDecimal(hw.efficiency.vector));
  Line(out, "  ", "memory", ShortestDecimal(hw.efficiency.memory));
  if (!hw.collectives.empty()) {
    out += "collectives:\n";
    std::optional<Link> current;
    for (const auto& [key, fit] : hw.collectives) {
      if (current != key.first) {
        StrAppend(&out, "  ", LinkName(key.first), ":\n");
        current = key.first;
      }
      StrAppend(&out, "    ", ir::CollectiveName(key.second), ": {alpha: ",
                FormatQuantity(fit.alpha, Quantity::kDuration),
                ", bandwidth: ", FormatQuantity(fit.bandwidth, Quantity::kBandwidth), "}\n");
    }
  }
  return out;
}

}  // namespace memplan::simulator
