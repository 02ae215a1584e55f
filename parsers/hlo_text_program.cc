#include "parsers/hlo_text_program.h"

#include "ir/status_macros.h"
#include "parsers/hlo_text_parser.h"

namespace memplan::parsers {

absl::Status ReadModuleText(std::shared_ptr<const SourceText> source, ir::Program& program) {
  RETURN_IF_ERROR(ParseHloModuleText(*source, &program.module, &program.diagnostics));
  if (program.module_name.empty()) program.module_name = std::string(program.module.name);
  program.source_files.push_back(source->name());
  program.KeepAlive(std::move(source));
  return absl::OkStatus();
}

absl::StatusOr<ir::Program> ParseHloTextProgram(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program) {
  if (files.size() != 1) return absl::InvalidArgumentError("an HLO module text is one file");
  program.input_format = "hlo-text";
  program.assignment_source = ir::AssignmentSource::kNone;
  RETURN_IF_ERROR(ReadModuleText(files.front(), program));
  program.notes.push_back({ir::NoteCode::kModuleWithoutBufferAssignment, {}, {}});
  return program;
}

bool LooksLikeHloTextProgram(std::string_view head, std::string_view) {
  return LooksLikeHloModuleText(head);
}

}  // namespace memplan::parsers
