#include "parsers/hlo_stack_frames.h"

#include <cstring>
#include <string_view>

#include "ir/status_macros.h"
#include "parsers/cursor.h"
#include "parsers/line_position.h"

namespace memplan::parsers {
namespace {

enum class Table { kNone, kFileNames, kFunctionNames, kFileLocations, kStackFrames };

struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t column = 0;
};

struct RawFrame {
  int64_t file_location_id = 0;
  int64_t printed_parent = 0;
};

struct Tables {
  std::vector<std::string_view> file_names;
  std::vector<std::string_view> function_names;
  std::vector<FileLocation> locations;
  std::vector<RawFrame> frames;
};

// "12 {key=1 key=2 ...}": calls `field(key, value)` for each pair.
template <typename Field>
bool ParseBraced(Cursor c, Field field) {
  if (!c.ConsumeChar('{')) return false;
  while (!c.AtEnd() && !c.ConsumeChar('}')) {
    c.SkipSpaces();
    const std::string_view key = c.ConsumeUntil('=');
    int64_t value = 0;
    if (!c.ConsumeChar('=') || !c.ConsumeInt(&value)) return false;
    field(key, value);
  }
  return true;
}

// One table row; `id` must be the next in sequence.
absl::Status ParseRow(const SourceText& source, Table table, std::string_view line, Tables& t) {
  Cursor c(line);
  int64_t id = 0;
  if (!c.ConsumeInt(&id) || !c.ConsumeChar(' ')) {
    return source.ErrorAt(c.position(), "expected 'N ' starting a stack-frame table row");
  }
  if (table == Table::kFileNames || table == Table::kFunctionNames) {
    if (!c.ConsumeChar('"') || c.rest().empty() || c.rest().back() != '"') {
      return source.ErrorAt(c.position(), "expected a quoted name");
    }
    const std::string_view name = c.rest().substr(0, c.rest().size() - 1);
    (table == Table::kFileNames ? t.file_names : t.function_names).push_back(name);
    return absl::OkStatus();
  }
  bool ok = false;
  if (table == Table::kFileLocations) {
    FileLocation loc;
    ok = ParseBraced(c, [&](std::string_view key, int64_t v) {
      if (key == "file_name_id") loc.file_name_id = v;
      if (key == "function_name_id") loc.function_name_id = v;
      if (key == "line") loc.line = v;
      if (key == "column") loc.column = v;
    });
    t.locations.push_back(loc);
  } else {
    RawFrame frame;
    ok = ParseBraced(c, [&](std::string_view key, int64_t v) {
      if (key == "file_location_id") frame.file_location_id = v;
      if (key == "parent_frame_id") frame.printed_parent = v;
    });
    t.frames.push_back(frame);
  }
  return ok ? absl::OkStatus()
            : source.ErrorAt(c.position(), "expected '{key=N ...}' in a stack-frame table row");
}

std::string_view NameAt(const std::vector<std::string_view>& names, int64_t id) {
  return id >= 1 && id <= static_cast<int64_t>(names.size()) ? names[id - 1] : std::string_view();
}

}  // namespace

absl::Status ParseHloStackFrames(const SourceText& source, std::vector<ir::SourceFrame>* frames) {
  Tables t;
  Table table = Table::kNone;
  std::string_view text = source.text();
  LinePosition position{&source};
  std::string_view line;
  while (position.NextLine(text, &line)) {
    if (line.empty()) {
      table = Table::kNone;
      continue;
    }
    if (line.starts_with("%") || line.starts_with("ENTRY") || line.starts_with("ROOT")) break;
    if (line == "FileNames") table = Table::kFileNames;
    else if (line == "FunctionNames") table = Table::kFunctionNames;
    else if (line == "FileLocations") table = Table::kFileLocations;
    else if (line == "StackFrames") table = Table::kStackFrames;
    else if (table != Table::kNone) RETURN_IF_ERROR(ParseRow(source, table, line, t));
  }
  for (const RawFrame& raw : t.frames) {
    ir::SourceFrame frame;
    if (raw.file_location_id >= 1 && raw.file_location_id <= static_cast<int64_t>(t.locations.size())) {
      const FileLocation& loc = t.locations[raw.file_location_id - 1];
      frame.file = NameAt(t.file_names, loc.file_name_id);
      frame.function = NameAt(t.function_names, loc.function_name_id);
      frame.line = loc.line;
      frame.column = loc.column;
    }
    frame.parent_id = raw.printed_parent > 0 ? raw.printed_parent - 1 : 0;
    frames->push_back(frame);
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers
