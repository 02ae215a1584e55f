// The "HloModule name, key=value, ..." header and the stack-frame tables
// (FileNames, FunctionNames, FileLocations, StackFrames) that newer XLA
// prints between the header and the first computation.
#include <algorithm>
#include <string>

#include "ir/strings.h"
#include "parsers/hlo_text_internal.h"

namespace memplan::parsers::hlo_text {
namespace {

// Header attributes XLA prints that memplan keeps as text (header.other)
// without a warning. Sorted.
constexpr std::string_view kUntypedHeaderAttributes[] = {
    "alias_passthrough_params",
    "allow_spmd_sharding_propagation_to_output",
    "allow_spmd_sharding_propagation_to_parameters",
    "frontend_attributes",
    "spmd_output_sharding",
    "spmd_parameters_shardings",
    "use_auto_spmd_partitioning",
};

bool ParseShapeIndex(Scanner& s, ir::ShapeIndex* index) {
  std::vector<int64_t> values;
  if (!ParseIntList(s, &values)) return false;
  index->assign(values.begin(), values.end());
  return true;
}

// entry_computation_layout={(f32[8]{0}, ...)->f32[8]{0}}.
// The parameter shapes are interned in `module`.
bool ParseEntryLayout(Scanner& s, ir::Module* module) {
  ir::ModuleHeader* header = &module->header;
  if (!s.Next('{') || !s.Next('(')) {
    return s.Fail("expected entry_computation_layout={(parameter shapes)->result shape}");
  }
  s.Skip();
  if (!s.ConsumeChar(')')) {
    while (true) {
      s.Skip();
      ir::Shape shape;
      if (!ParseShapeAt(s, &shape)) return false;
      header->entry_parameter_shapes.push_back(module->InternShape(shape));
      s.Skip();
      if (s.ConsumeChar(')')) break;
      if (!s.ConsumeChar(',')) return s.Fail("expected ',' or ')' between parameter shapes");
    }
  }
  s.Skip();
  if (!s.Consume("->")) return s.Fail("expected '->' before the result shape");
  s.Skip();
  if (!ParseShapeAt(s, &header->entry_result_shape.emplace())) return false;
  if (!s.Next('}')) return s.Fail("expected '}' closing entry_computation_layout");
  return true;
}

// input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}) }.
bool ParseInputOutputAlias(Scanner& s, ir::ModuleHeader* header) {
  if (!s.Next('{')) return s.Fail("expected '{' starting input_output_alias");
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!header->input_output_aliases.empty() && !s.ConsumeChar(',')) {
      return s.Fail("expected ',' or '}' between aliases");
    }
    s.Skip();
    ir::InputOutputAlias alias;
    if (!ParseShapeIndex(s, &alias.output_index)) return false;
    if (!s.Next(':') || !s.Next('(')) return s.Fail("expected ': (' after the output index");
    s.Skip();
    if (!s.ConsumeInt(&alias.parameter_number) || !s.Next(',')) {
      return s.Fail("expected a parameter number and ','");
    }
    s.Skip();
    if (!ParseShapeIndex(s, &alias.parameter_index)) return false;
    if (s.Next(',')) {
      s.Skip();
      if (s.ConsumeWord("must-alias")) {
        alias.must_alias = true;
      } else if (!s.ConsumeWord("may-alias")) {
        return s.Fail("expected may-alias or must-alias");
      }
    }
    if (!s.Next(')')) return s.Fail("expected ')' closing an alias");
    header->input_output_aliases.push_back(std::move(alias));
  }
}

// buffer_donor={ (0, {}), (1, {0}) }.
bool ParseBufferDonors(Scanner& s, ir::ModuleHeader* header) {
  if (!s.Next('{')) return s.Fail("expected '{' starting buffer_donor");
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!header->buffer_donors.empty() && !s.ConsumeChar(',')) {
      return s.Fail("expected ',' or '}' between buffer donors");
    }
    ir::BufferDonor donor;
    if (!s.Next('(')) return s.Fail("expected '(' starting a buffer donor");
    s.Skip();
    if (!s.ConsumeInt(&donor.parameter_number) || !s.Next(',')) {
      return s.Fail("expected a parameter number and ','");
    }
    s.Skip();
    if (!ParseShapeIndex(s, &donor.parameter_index)) return false;
    if (!s.Next(')')) return s.Fail("expected ')' closing a buffer donor");
    header->buffer_donors.push_back(std::move(donor));
  }
}

bool ParseHeaderAttribute(Scanner& s, Warner& warner, std::string_view key, const char* key_at,
                          ir::Module* module) {
  ir::ModuleHeader* header = &module->header;
  if (key == "is_scheduled") {
    if (!s.ConsumeBool(&header->is_scheduled)) return s.Fail("expected true or false");
    return true;
  }
  if (key == "entry_computation_layout") return ParseEntryLayout(s, module);
  if (key == "input_output_alias") return ParseInputOutputAlias(s, header);
  if (key == "buffer_donor") return ParseBufferDonors(s, header);
  if (key == "replica_count" || key == "num_partitions") {
    int64_t* out = key == "replica_count" ? &header->replica_count : &header->num_partitions;
    if (!s.ConsumeInt(out) || *out < 1) return s.Fail(StrCat("expected a positive ", key));
    return true;
  }
  std::string_view value;
  if (!ConsumeValueText(s, &value)) return false;
  header->other.push_back({key, value});
  if (!std::binary_search(std::begin(kUntypedHeaderAttributes), std::end(kUntypedHeaderAttributes),
                          key)) {
    warner.Warn(StrCat("unknown HloModule attribute '", key, "' (kept as text)"), key_at);
  }
  return true;
}

enum class Table { kFileNames, kFunctionNames, kFileLocations, kStackFrames };

struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t column = 0;
};

struct RawFrame {
  int64_t file_location_id = 0;
  int64_t parent = 0;  // as printed
};

struct Tables {
  std::vector<std::string_view> file_names;
  std::vector<std::string_view> function_names;
  std::vector<FileLocation> locations;
  std::vector<RawFrame> frames;
};

// "{key=N key=N ...}", calling field(key, value).
template <typename Field>
bool ParseBracedInts(Scanner& s, Field field) {
  if (!s.Next('{')) return s.Fail("expected '{key=N ...}' in a stack-frame table row");
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    const std::string_view key = s.ConsumeName();
    int64_t value = 0;
    if (key.empty() || !s.Next('=') || (s.Skip(), !s.ConsumeInt(&value))) {
      return s.Fail("expected key=N or '}' in a stack-frame table row");
    }
    field(key, value);
  }
}

bool ParseRow(Scanner& s, Table table, int64_t expected_id, Tables& t) {
  int64_t id = 0;
  const char* at = s.pos();
  s.ConsumeInt(&id);
  if (id != expected_id) return s.Fail(at, StrCat("expected row ", expected_id, " of the table"));
  s.Skip();
  switch (table) {
    case Table::kFileNames:
    case Table::kFunctionNames: {
      std::string_view name;
      if (!s.ConsumeQuoted(&name)) return s.Fail("expected a quoted name");
      (table == Table::kFileNames ? t.file_names : t.function_names).push_back(name);
      return true;
    }
    case Table::kFileLocations: {
      FileLocation& loc = t.locations.emplace_back();
      return ParseBracedInts(s, [&](std::string_view key, int64_t v) {
        if (key == "file_name_id") loc.file_name_id = v;
        if (key == "function_name_id") loc.function_name_id = v;
        if (key == "line") loc.line = v;
        if (key == "column") loc.column = v;
      });
    }
    case Table::kStackFrames: {
      RawFrame& frame = t.frames.emplace_back();
      return ParseBracedInts(s, [&](std::string_view key, int64_t v) {
        if (key == "file_location_id") frame.file_location_id = v;
        if (key == "parent_frame_id") frame.parent = v;
      });
    }
  }
  return false;
}

std::string_view NameAt(const std::vector<std::string_view>& names, int64_t id) {
  return id >= 1 && id <= static_cast<int64_t>(names.size()) ? names[id - 1] : std::string_view();
}

}  // namespace

bool ParseModuleHeader(Scanner& s, Warner& warner, ir::Module* module) {
  if (!s.ConsumeWord("HloModule")) return s.Fail("expected 'HloModule' starting the module");
  s.SkipBlanks();
  const char* name_start = s.pos();
  const char* p = name_start;
  while (p < s.end() && *p != ',' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t') ++p;
  if (p == name_start) return s.Fail("expected the module name after 'HloModule'");
  module->name = std::string_view(name_start, static_cast<size_t>(p - name_start));
  s.set_pos(p);
  std::vector<std::string_view> typed_seen;  // typed keys read, to reject repeats
  while (true) {
    const char* before = s.pos();
    s.SkipBlanks();
    if (!s.ConsumeChar(',')) {
      s.set_pos(before);
      return true;
    }
    s.Skip();
    const char* key_at = s.pos();
    const std::string_view key = s.ConsumeName();
    if (key.empty()) return s.Fail("expected a header attribute name");
    if (!s.Next('=')) return s.Fail(StrCat("expected '=' after '", key, "'"));
    s.Skip();
    if (key == "is_scheduled" || key == "entry_computation_layout" || key == "input_output_alias" ||
        key == "buffer_donor" || key == "replica_count" || key == "num_partitions") {
      if (std::find(typed_seen.begin(), typed_seen.end(), key) != typed_seen.end()) {
        return s.Fail(key_at, StrCat("expected each attribute once, but '", key, "' is repeated"));
      }
      typed_seen.push_back(key);
    }
    if (!ParseHeaderAttribute(s, warner, key, key_at, module)) return false;
  }
}

bool ParseStackFrameTables(Scanner& s, Warner& warner, ir::Module* module) {
  Tables t;
  const char* frames_at = nullptr;
  bool any = false;
  while (true) {
    s.Skip();
    Table table;
    if (s.ConsumeWord("FileNames")) {
      table = Table::kFileNames;
    } else if (s.ConsumeWord("FunctionNames")) {
      table = Table::kFunctionNames;
    } else if (s.ConsumeWord("FileLocations")) {
      table = Table::kFileLocations;
    } else if (s.ConsumeWord("StackFrames")) {
      table = Table::kStackFrames;
      frames_at = s.pos() - 11;
    } else {
      break;
    }
    any = true;
    for (int64_t row = 1;; ++row) {
      s.Skip();
      if (!IsDigit(s.Peek())) break;
      if (!ParseRow(s, table, row, t)) return false;
    }
  }
  if (!any) return true;
  // XLA prints each parent_frame_id one above the id the HloProto stores
  // (the proto's "no parent", 0, prints as 1). A table with a printed 0
  // must come from a printer without that offset; read it as stored.
  const bool offset =
      std::none_of(t.frames.begin(), t.frames.end(), [](const RawFrame& f) { return f.parent == 0; });
  module->stack_frames.reserve(t.frames.size());
  for (const RawFrame& raw : t.frames) {
    ir::SourceFrame frame;
    if (raw.file_location_id >= 1 &&
        raw.file_location_id <= static_cast<int64_t>(t.locations.size())) {
      const FileLocation& loc = t.locations[raw.file_location_id - 1];
      frame.file = NameAt(t.file_names, loc.file_name_id);
      frame.function = NameAt(t.function_names, loc.function_name_id);
      frame.line = loc.line;
      frame.column = loc.column;
    }
    frame.parent_id = offset && raw.parent > 0 ? raw.parent - 1 : raw.parent;
    // XLA adds a caller's frame before its callees': a parent at or after
    // the frame itself (which would make a cycle) is dropped.
    const int64_t id = static_cast<int64_t>(module->stack_frames.size()) + 1;
    if (frame.parent_id < 0 || frame.parent_id >= id) {
      warner.Warn("stack frame whose parent_frame_id is not below its own id (parent dropped)",
                  frames_at);
      frame.parent_id = 0;
    }
    module->stack_frames.push_back(frame);
  }
  return true;
}

}  // namespace memplan::parsers::hlo_text
