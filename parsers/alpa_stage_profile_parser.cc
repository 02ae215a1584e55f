#include "parsers/alpa_stage_profile_parser.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/json_reader.h"

namespace memplan::parsers {
namespace {

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

class AlpaReader {
 public:
  explicit AlpaReader(const SourceText& source) : source_(source), text_(source.text()) {}

  absl::StatusOr<ir::AlpaStageDocument> Run() {
    ir::AlpaStageDocument doc;
    doc.source_name = source_.name();
    RETURN_IF_ERROR(ReadConfigs(doc));
    RETURN_IF_ERROR(ReadJaxprs(doc));
    RETURN_IF_ERROR(ReadCompileOutputs(doc));
    RETURN_IF_ERROR(ReadProfiles(doc));
    if (doc.profiles.empty() && doc.configs.empty() && doc.jaxprs.empty()) {
      return source_.ErrorAt(text_.data(),
                             "expected Alpa's StageProfileResult(...), StageConfig(...) or "
                             "NAME:merged_jaxpr: { lambda ... }");
    }
    return doc;
  }

 private:
  absl::Status ErrorAt(size_t at, std::string_view expected) const {
    return source_.ErrorAt(text_.data() + std::min(at, text_.size()), expected);
  }
  int64_t LineOf(size_t at) const { return source_.Locate(at).line; }

  // Occurrences of `word` followed by '(' and not preceded by a name
  // character ("CompileOutput(" but not "ModuleCompileOutput(").
  std::vector<size_t> FindCalls(std::string_view word, size_t from, size_t to) const {
    std::vector<size_t> out;
    const std::string needle = StrCat(word, "(");
    for (size_t at = text_.find(needle, from); at != std::string_view::npos && at < to;
         at = text_.find(needle, at + 1)) {
      if (at > 0 && IsIdentChar(text_[at - 1])) continue;
      out.push_back(at);
    }
    return out;
  }

  // The offset of the ')' matching the '(' at `open`, skipping quoted text
  // and "//" comments; npos when unbalanced.
  size_t MatchParen(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '\'' || c == '"') {
        for (++i; i < text_.size() && text_[i] != c; ++i) {
          if (text_[i] == '\\') ++i;
        }
        continue;
      }
      if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
        while (i < text_.size() && text_[i] != '\n') ++i;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) return i;
      }
    }
    return std::string_view::npos;
  }

  // Where "key=" starts its value inside [from, to); npos when absent.
  size_t FindField(std::string_view key, size_t from, size_t to) const {
    const std::string needle = StrCat(key, "=");
    for (size_t at = text_.find(needle, from); at != std::string_view::npos && at < to;
         at = text_.find(needle, at + 1)) {
      if (at > 0 && IsIdentChar(text_[at - 1])) continue;
      return at + needle.size();
    }
    return std::string_view::npos;
  }

  void SkipSpace(size_t& at) const {
    for (;;) {
      while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\n' || text_[at] == '\t' || text_[at] == '\r')) ++at;
      if (at + 1 < text_.size() && text_[at] == '/' && text_[at + 1] == '/') {
        while (at < text_.size() && text_[at] != '\n') ++at;
        continue;
      }
      return;
    }
  }

  absl::StatusOr<int64_t> Int(size_t at, std::string_view what) const {
    SkipSpace(at);
    size_t end = at;
    if (end < text_.size() && text_[end] == '-') ++end;
    while (end < text_.size() && text_[end] >= '0' && text_[end] <= '9') ++end;
    int64_t v = 0;
    if (!ParseDecimalScaled(text_.substr(at, end - at), 0, &v)) return ErrorAt(at, StrCat("expected ", what, " (an integer)"));
    return v;
  }

  // The items of a "( ... )" or "[ ... ]" at `at`, split at top-level commas.
  absl::StatusOr<std::vector<std::string_view>> Items(size_t at, std::string_view what) const {
    SkipSpace(at);
    if (at >= text_.size() || (text_[at] != '(' && text_[at] != '[')) {
      return ErrorAt(at, StrCat("expected ", what, " in parentheses or brackets"));
    }
    const size_t close = MatchParen(at);
    if (close == std::string_view::npos) return ErrorAt(at, StrCat("expected ", what, " to be closed"));
    std::vector<std::string_view> items;
    size_t start = at + 1;
    int depth = 0;
    for (size_t i = at + 1; i <= close; ++i) {
      const char c = text_[i];
      if (c == '\'' || c == '"') {
        for (++i; i < close && text_[i] != c; ++i) {
          if (text_[i] == '\\') ++i;
        }
        continue;
      }
      if (c == '/' && text_[i + 1] == '/') {
        while (i < close && text_[i] != '\n') ++i;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if ((c == ',' && depth == 0) || i == close) {
        size_t b = start, e = i;
        SkipSpace(b);
        while (e > b && (text_[e - 1] == ' ' || text_[e - 1] == '\n' || text_[e - 1] == '\r')) --e;
        if (e > b) items.push_back(text_.substr(b, e - b));
        start = i + 1;
      }
    }
    return items;
  }

  absl::StatusOr<std::vector<int64_t>> Ints(size_t at, std::string_view what) const {
    ASSIGN_OR_RETURN(const std::vector<std::string_view> items, Items(at, what));
    std::vector<int64_t> out;
    for (std::string_view item : items) {
      int64_t v = 0;
      if (!ParseDecimalScaled(item, 0, &v)) {
        return ErrorAt(static_cast<size_t>(item.data() - text_.data()), StrCat("expected an integer in ", what));
      }
      out.push_back(v);
    }
    return out;
  }

  absl::StatusOr<std::vector<bool>> Bools(size_t at, std::string_view what) const {
    ASSIGN_OR_RETURN(const std::vector<std::string_view> items, Items(at, what));
    std::vector<bool> out;
    for (std::string_view item : items) {
      if (item != "True" && item != "False") {
        return ErrorAt(static_cast<size_t>(item.data() - text_.data()), StrCat("expected True or False in ", what));
      }
      out.push_back(item == "True");
    }
    return out;
  }

  absl::StatusOr<std::vector<std::string>> Strings(size_t at, std::string_view what) const {
    ASSIGN_OR_RETURN(const std::vector<std::string_view> items, Items(at, what));
    std::vector<std::string> out;
    for (std::string_view item : items) {
      if (item.size() < 2 || (item.front() != '\'' && item.front() != '"') || item.back() != item.front()) {
        return ErrorAt(static_cast<size_t>(item.data() - text_.data()), StrCat("expected a quoted name in ", what));
      }
      out.emplace_back(item.substr(1, item.size() - 2));
    }
    return out;
  }

  // A bytes literal b'...' (escapes \xNN \n \t \r \\ \' \"); a line break
  // pasted into it, with the indentation after it, is not part of it.
  absl::StatusOr<std::string> Bytes(std::string_view item) const {
    const size_t at = static_cast<size_t>(item.data() - text_.data());
    if (item.size() < 3 || item[0] != 'b' || (item[1] != '\'' && item[1] != '"') || item.back() != item[1]) {
      return ErrorAt(at, "expected a bytes literal b'...'");
    }
    std::string out;
    for (size_t i = 2; i + 1 < item.size(); ++i) {
      const char c = item[i];
      if (c == '\n' || c == '\r') {
        while (i + 2 < item.size() && (item[i + 1] == ' ' || item[i + 1] == '\n' || item[i + 1] == '\r')) ++i;
        continue;
      }
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (i + 2 >= item.size()) return ErrorAt(at + i, "expected an escape after '\\'");
      const char e = item[++i];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '\\': out.push_back('\\'); break;
        case '\'': out.push_back('\''); break;
        case '"': out.push_back('"'); break;
        case 'x': {
          if (i + 2 >= item.size()) return ErrorAt(at + i, "expected two hex digits after \\x");
          int v = 0;
          for (int k = 1; k <= 2; ++k) {
            const char h = item[i + k];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= h - '0';
            else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
            else return ErrorAt(at + i + k, "expected a hex digit");
          }
          out.push_back(static_cast<char>(v));
          i += 2;
          break;
        }
        default:
          return ErrorAt(at + i - 1, "expected a bytes escape (\\xNN, \\n, \\t, \\r, \\\\, \\', \\\")");
      }
    }
    return out;
  }

  absl::StatusOr<ir::OpShardingProto> Sharding(std::string_view item) const {
    ASSIGN_OR_RETURN(const std::string bytes, Bytes(item));
    absl::StatusOr<ir::OpShardingProto> proto = DecodeOpSharding(bytes);
    if (!proto.ok()) {
      return ErrorAt(static_cast<size_t>(item.data() - text_.data()),
                     StrCat("expected a serialized OpSharding: ", proto.status().message()));
    }
    return proto;
  }

  // "(0, 1, 1, 0)" or "[0,1,1,0]" shortly before `at`.
  std::vector<int64_t> IndexBefore(size_t at) const {
    const size_t from = at > 600 ? at - 600 : 0;
    for (size_t close = at; close-- > from;) {
      const char c = text_[close];
      if (c != ')' && c != ']') continue;
      const char open_char = c == ')' ? '(' : '[';
      const size_t open = text_.rfind(open_char, close);
      if (open == std::string_view::npos || open < from) continue;
      std::vector<int64_t> out;
      bool ok = true;
      size_t i = open + 1;
      while (ok && i < close) {
        while (i < close && (text_[i] == ' ' || text_[i] == ',')) ++i;
        size_t e = i;
        while (e < close && text_[e] >= '0' && text_[e] <= '9') ++e;
        if (e == i) {
          ok = i >= close;
          break;
        }
        int64_t index = 0;  // std::stoll would throw past INT64_MAX
        if (std::from_chars(text_.data() + i, text_.data() + e, index).ec != std::errc()) {
          ok = false;
          break;
        }
        out.push_back(index);
        i = e;
      }
      if (ok && out.size() == 4) return out;
    }
    return {};
  }

  absl::Status ReadConfigs(ir::AlpaStageDocument& doc) const {
    for (size_t at : FindCalls("StageConfig", 0, text_.size())) {
      const size_t close = MatchParen(at + std::string_view("StageConfig").size());
      if (close == std::string_view::npos) return ErrorAt(at, "expected StageConfig(...) to be closed");
      ir::AlpaStageConfig config;
      config.input_line = LineOf(at);
      config.stage_index = IndexBefore(at);
      if (size_t f = FindField("names", at, close); f != std::string_view::npos) {
        ASSIGN_OR_RETURN(config.module_names, Strings(f, "names"));
      }
      if (size_t f = FindField("module_donate_invars", at, close); f != std::string_view::npos) {
        ASSIGN_OR_RETURN(const std::vector<std::string_view> tuples, Items(f, "module_donate_invars"));
        for (std::string_view t : tuples) {
          ASSIGN_OR_RETURN(std::vector<bool> donated,
                           Bools(static_cast<size_t>(t.data() - text_.data()), "module_donate_invars"));
          config.module_donate_invars.push_back(std::move(donated));
        }
      }
      doc.configs.push_back(std::move(config));
    }
    return absl::OkStatus();
  }

  absl::Status ReadJaxprs(ir::AlpaStageDocument& doc) const {
    constexpr std::string_view kMarker = ":merged_jaxpr:";
    for (size_t at = text_.find(kMarker); at != std::string_view::npos; at = text_.find(kMarker, at + 1)) {
      size_t name_start = at;
      while (name_start > 0 && IsIdentChar(text_[name_start - 1])) --name_start;
      size_t open = at + kMarker.size();
      SkipSpace(open);
      if (open >= text_.size() || text_[open] != '{') return ErrorAt(open, "expected '{ lambda' after merged_jaxpr:");
      ir::AlpaMergedJaxpr merged;
      merged.name = std::string(text_.substr(name_start, at - name_start));
      merged.input_line = LineOf(at);
      size_t end = 0;
      ASSIGN_OR_RETURN(merged.jaxpr, ParseJaxprAt(source_, open, &end));
      doc.jaxprs.push_back(std::move(merged));
      at = end;
    }
    return absl::OkStatus();
  }

  absl::Status ReadCompileOutputs(ir::AlpaStageDocument& doc) const {
    for (size_t at : FindCalls("CompileOutput", 0, text_.size())) {
      const size_t close = MatchParen(at + std::string_view("CompileOutput").size());
      if (close == std::string_view::npos) return ErrorAt(at, "expected CompileOutput(...) to be closed");
      ir::AlpaCompileOutput output;
      output.input_line = LineOf(at);
      for (size_t m : FindCalls("ModuleCompileOutput", at, close)) {
        const size_t m_close = MatchParen(m + std::string_view("ModuleCompileOutput").size());
        if (m_close == std::string_view::npos) return ErrorAt(m, "expected ModuleCompileOutput(...) to be closed");
        ir::AlpaCompiledModule module;
        if (size_t f = FindField("input_sharding_protos", m, m_close); f != std::string_view::npos) {
          ASSIGN_OR_RETURN(const std::vector<std::string_view> items, Items(f, "input_sharding_protos"));
          for (std::string_view item : items) {
            ASSIGN_OR_RETURN(ir::OpShardingProto proto, Sharding(item));
            module.input_shardings.push_back(std::move(proto));
          }
        }
        if (size_t f = FindField("output_sharding_proto", m, m_close); f != std::string_view::npos) {
          // The literal runs to the ')' or ',' that follows its closing quote.
          size_t b = f;
          SkipSpace(b);
          const size_t quote = b + 1;
          if (quote >= text_.size()) return ErrorAt(b, "expected a bytes literal");
          size_t e = quote + 1;
          while (e < text_.size() && text_[e] != text_[quote]) {
            if (text_[e] == '\\') ++e;
            ++e;
          }
          if (e >= text_.size()) return ErrorAt(b, "expected the bytes literal to close");
          ASSIGN_OR_RETURN(module.output_sharding, Sharding(text_.substr(b, e + 1 - b)));
        }
        output.modules.push_back(std::move(module));
      }
      doc.compiled.push_back(std::move(output));
    }
    return absl::OkStatus();
  }

  absl::Status ReadProfiles(ir::AlpaStageDocument& doc) const {
    for (size_t at : FindCalls("StageProfileResult", 0, text_.size())) {
      const size_t close = MatchParen(at + std::string_view("StageProfileResult").size());
      if (close == std::string_view::npos) return ErrorAt(at, "expected StageProfileResult(...) to be closed");
      ir::AlpaStageProfile profile;
      profile.input_line = LineOf(at);
      profile.stage_index = IndexBefore(at);
      for (size_t m : FindCalls("ModuleProfileResult", at, close)) {
        const size_t m_close = MatchParen(m + std::string_view("ModuleProfileResult").size());
        if (m_close == std::string_view::npos) return ErrorAt(m, "expected ModuleProfileResult(...) to be closed");
        ir::AlpaModuleProfile module;
        module.input_line = LineOf(m);
        auto field = [&](std::string_view key) -> absl::StatusOr<size_t> {
          const size_t f = FindField(key, m, m_close);
          if (f == std::string_view::npos) return ErrorAt(m, StrCat("expected ", key, "= in ModuleProfileResult"));
          return f;
        };
        ASSIGN_OR_RETURN(size_t f, field("peak_memory"));
        ASSIGN_OR_RETURN(module.peak_memory, Int(f, "peak_memory"));
        ASSIGN_OR_RETURN(f, field("temp_buffer_size"));
        ASSIGN_OR_RETURN(module.temp_buffer_size, Int(f, "temp_buffer_size"));
        ASSIGN_OR_RETURN(f, field("invar_sizes"));
        ASSIGN_OR_RETURN(module.invar_sizes, Ints(f, "invar_sizes"));
        ASSIGN_OR_RETURN(f, field("outvar_sizes"));
        ASSIGN_OR_RETURN(module.outvar_sizes, Ints(f, "outvar_sizes"));
        ASSIGN_OR_RETURN(f, field("donated_invars"));
        ASSIGN_OR_RETURN(module.donated_invars, Bools(f, "donated_invars"));
        if (size_t g = FindField("invar_names", m, m_close); g != std::string_view::npos) {
          ASSIGN_OR_RETURN(module.invar_names, Strings(g, "invar_names"));
        }
        if (size_t g = FindField("outvar_names", m, m_close); g != std::string_view::npos) {
          ASSIGN_OR_RETURN(module.outvar_names, Strings(g, "outvar_names"));
        }
        if (size_t g = FindField("compute_cost", m, m_close); g != std::string_view::npos) {
          int64_t nano = 0;
          size_t e = g;
          while (e < m_close && text_[e] != ',' && text_[e] != '\n') ++e;
          if (ParseDecimalScaled(text_.substr(g, e - g), 9, &nano)) module.compute_cost = static_cast<double>(nano) / 1e9;
        }
        if (module.donated_invars.size() != module.invar_sizes.size()) {
          return ErrorAt(m, StrCat("expected as many donated_invars as invar_sizes (", module.donated_invars.size(),
                                   " and ", module.invar_sizes.size(), ")"));
        }
        profile.modules.push_back(std::move(module));
      }
      doc.profiles.push_back(std::move(profile));
    }
    return absl::OkStatus();
  }

  const SourceText& source_;
  std::string_view text_;
};

bool ReadVarint(std::string_view bytes, size_t& at, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= bytes.size()) return false;
    const uint8_t b = static_cast<uint8_t>(bytes[at++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// A repeated int64 field, one varint (wire 0) or packed (wire 2), at `at`.
absl::Status ReadInts(std::string_view bytes, size_t& at, uint64_t wire, std::vector<int64_t>* out) {
  uint64_t v = 0;
  if (wire == 0) {
    if (!ReadVarint(bytes, at, &v)) return absl::InvalidArgumentError("truncated varint");
    out->push_back(static_cast<int64_t>(v));
    return absl::OkStatus();
  }
  uint64_t length = 0;
  if (wire != 2 || !ReadVarint(bytes, at, &length) || length > bytes.size() - at) {
    return absl::InvalidArgumentError("bad packed field");
  }
  const size_t end = at + length;
  while (at < end) {
    if (!ReadVarint(bytes, at, &v) || at > end) return absl::InvalidArgumentError("bad packed varint");
    out->push_back(static_cast<int64_t>(v));
  }
  return absl::OkStatus();
}

// Skips the value of a field memplan does not use.
absl::Status SkipField(std::string_view bytes, size_t& at, uint64_t wire) {
  uint64_t v = 0;
  uint64_t length = 0;
  if (wire == 0) {
    if (!ReadVarint(bytes, at, &v)) return absl::InvalidArgumentError("truncated varint");
  } else if (wire == 1 || wire == 5) {
    length = wire == 1 ? 8 : 4;
    if (length > bytes.size() - at) return absl::InvalidArgumentError("truncated fixed field");
    at += length;
  } else if (wire == 2) {
    if (!ReadVarint(bytes, at, &length) || length > bytes.size() - at) {
      return absl::InvalidArgumentError("truncated field");
    }
    at += length;
  } else {
    return absl::InvalidArgumentError(StrCat("unknown wire type ", wire));
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::OpShardingProto> Decode(std::string_view bytes, int depth) {
  if (depth > 16) return absl::InvalidArgumentError("tuple shardings nested more than 16 deep");
  ir::OpShardingProto proto;
  size_t at = 0;
  while (at < bytes.size()) {
    uint64_t key = 0;
    if (!ReadVarint(bytes, at, &key)) return absl::InvalidArgumentError("truncated field key");
    const uint64_t field = key >> 3, wire = key & 7;
    uint64_t v = 0;
    switch (field) {
      case 1:
        if (wire != 0 || !ReadVarint(bytes, at, &v)) return absl::InvalidArgumentError("bad type");
        proto.type = static_cast<int64_t>(v);
        break;
      case 3:
        RETURN_IF_ERROR(ReadInts(bytes, at, wire, &proto.tile_assignment_dimensions));
        break;
      case 4:
        RETURN_IF_ERROR(ReadInts(bytes, at, wire, &proto.tile_assignment_devices));
        break;
      case 8:
        RETURN_IF_ERROR(ReadInts(bytes, at, wire, &proto.last_tile_dims));
        break;
      case 6:
        if (wire != 0 || !ReadVarint(bytes, at, &v)) return absl::InvalidArgumentError("bad bool");
        proto.replicate_on_last_tile_dim = v != 0;
        break;
      case 5: {
        uint64_t length = 0;
        if (wire != 2 || !ReadVarint(bytes, at, &length) || length > bytes.size() - at) {
          return absl::InvalidArgumentError("bad tuple sharding");
        }
        ASSIGN_OR_RETURN(ir::OpShardingProto element, Decode(bytes.substr(at, length), depth + 1));
        proto.tuple_shardings.push_back(std::move(element));
        at += length;
        break;
      }
      default:
        RETURN_IF_ERROR(SkipField(bytes, at, wire));
    }
  }
  return proto;
}

}  // namespace

absl::StatusOr<ir::OpShardingProto> DecodeOpSharding(std::string_view bytes) { return Decode(bytes, 0); }

bool LooksLikeAlpaStageProfile(std::string_view head) {
  return head.find("StageProfileResult(") != std::string_view::npos ||
         head.find("ModuleProfileResult(") != std::string_view::npos ||
         head.find(":merged_jaxpr:") != std::string_view::npos;
}

absl::StatusOr<ir::AlpaStageDocument> ParseAlpaStageProfile(const SourceText& source) {
  AlpaReader reader(source);
  return reader.Run();
}

}  // namespace memplan::parsers
