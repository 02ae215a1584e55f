// Reads Alpa's pipeline-stage profiling output as printed and pasted into a
// log (seed 003): StageConfig(...) reprs, "NAME:merged_jaxpr: { lambda ...}",
// CompileOutput(...) with serialized OpSharding protos (bytes literals, even
// when a line break was pasted into one), and StageProfileResult(...) with
// its ModuleProfileResults. Text around these (prompts, notes, hand-written
// "//" and "#" annotations) is skipped. Fields memplan needs that are
// malformed are errors naming file:line:col.
#ifndef MEMPLAN_PARSERS_ALPA_STAGE_PROFILE_PARSER_H_
#define MEMPLAN_PARSERS_ALPA_STAGE_PROFILE_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "ir/alpa_stage_profile.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

absl::StatusOr<ir::AlpaStageDocument> ParseAlpaStageProfile(const SourceText& source);

// Sniff rule: the text mentions StageProfileResult( or ModuleProfileResult(.
bool LooksLikeAlpaStageProfile(std::string_view head);

// Decodes serialized xla.OpSharding bytes (the subset Alpa writes).
absl::StatusOr<ir::OpShardingProto> DecodeOpSharding(std::string_view bytes);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_ALPA_STAGE_PROFILE_PARSER_H_
