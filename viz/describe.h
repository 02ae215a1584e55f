// The words and labels every view uses for the same facts: a note's
// sentence, why the dump's own peak differs from ours, a value's name,
// op_type, op_name and source. One function per fact, so text, JSON, HTML,
// DOT and the Chrome trace never disagree.
#ifndef MEMPLAN_VIZ_DESCRIBE_H_
#define MEMPLAN_VIZ_DESCRIBE_H_

#include <string>
#include <string_view>

#include "analyzer/analysis.h"
#include "ir/notes.h"
#include "ir/program.h"
#include "parsers/load_program.h"

namespace memplan::viz {

// A sentence for `note`.
std::string DescribeNote(const ir::Note& note);

// Why the dump's own peak list is not our live peak ("" when it is).
std::string DescribeStatedPeakMismatch(const analyzer::StatedPeakComparison& stated,
                                       const analyzer::LivePeak& peak);

// The rule of XLA's live peak, as a phrase.
std::string XlaPeakRule();
// Why XLA's live peak (`xla_bytes` at its step, where live values occupy
// `occupied_bytes`) is above the headline peak.
std::string DescribeSharedAtXlaPeak(int64_t xla_bytes, int64_t occupied_bytes,
                                    int64_t total_allocation_bytes);

// The word for a category in every view a person reads: "argument",
// "output", "temp", "constant", "thread-local" (JSON keys keep
// analyzer::CategoryName's, its schema).
std::string_view CategoryWord(analyzer::ValueCategory category);

// "live peak" or "all values".
std::string_view AttributionScopeName(analyzer::Analysis::AttributionScope scope);

// What a view shows of one value: its name ("fusion.3{1}"), defining
// opcode, op_type, op_name and source location ("file:line"), the last three
// from source resolution (analyzer/source_resolution.h). Empty strings where
// unknown.
struct ValueLabels {
  std::string name;
  std::string_view opcode;
  std::string_view op_type;
  std::string_view op_name;
  std::string source;
};
ValueLabels LabelsOf(const ir::Program& program, const analyzer::Analysis& analysis,
                     const ir::Value& value);

// "file:line" for `metadata` (file alone without a line); "" when it says
// nothing of the source, or for null.
std::string SourceLabel(const ir::Module& module, const ir::OpMetadata* metadata);

// Which module of a dump directory was read and why, and the others it
// holds; "" for a single file or a dump of one module.
std::string DescribeModuleChoice(const parsers::LoadedProgram& loaded);

// "1,234 instructions (module text)" and the like, for a module listing.
std::string DescribeInstructionCount(const parsers::DumpModule& module);

// The name of an instruction, "" for an invalid id.
std::string_view InstructionLabel(const ir::Program& program, ir::InstructionId id);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_DESCRIBE_H_
