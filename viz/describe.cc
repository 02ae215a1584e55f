#include "viz/describe.h"

#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "analyzer/source_resolution.h"
#include "ir/strings.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

int64_t Number(const ir::Note& note, size_t i) {
  return i < note.numbers.size() ? note.numbers[i] : 0;
}
std::string_view Text(const ir::Note& note, size_t i) {
  return i < note.texts.size() ? std::string_view(note.texts[i]) : std::string_view();
}

// "the schedule" and the like, for a kInputEndsEarly keyword.
std::string_view PartWords(std::string_view part) {
  if (part == "allocations") return "the allocation list";
  if (part == "total") return "'Total bytes used'";
  if (part == "used-values") return "'Used values'";
  if (part == "live-range") return "the HloLiveRange header";
  if (part == "schedule") return "the schedule (InstructionSequence)";
  if (part == "buffer-live-ranges") return "the live ranges (BufferLiveRange)";
  if (part == "peak-list") return "the peak list ('Live ranges at N (peak)')";
  if (part == "stack-trace") return "the stack trace breakdown";
  if (part == "partial-line") return "the rest of its last line";
  return "the start";
}

std::string DescribeEndsEarly(const ir::Note& note) {
  std::string s = StrCat("the input stops early, at ", Text(note, 0), " in ",
                         PartWords(Text(note, 1)), "; missing:");
  for (size_t i = 2; i < note.texts.size(); ++i) {
    const std::string_view m = note.texts[i];
    StrAppend(&s, i == 2 ? " " : "; ");
    if (m == "partial-line") {
      StrAppend(&s, "the end of its last line (dropped)");
    } else if (m == "allocations") {
      StrAppend(&s, "every allocation after 'BufferAssignment:'");
    } else if (m == "total") {
      StrAppend(&s, "'Total bytes used' after the allocations (allocations may be missing)");
    } else if (m == "used-values") {
      StrAppend(&s, "'Used values' records (", Number(note, 1), " of ", Number(note, 0),
                " values)");
    } else if (m == "schedule") {
      StrAppend(&s, "schedule steps (", Number(note, 2), " of ", Number(note, 3), " listed)");
    } else if (m == "buffer-live-ranges") {
      StrAppend(&s, "live ranges (", Number(note, 4), " values have none)");
    } else if (m == "peak-list") {
      StrAppend(&s, "peak-list entries (", Number(note, 5), " listed, ", Number(note, 6),
                " ranges live at that step)");
    } else {
      StrAppend(&s, m);
    }
  }
  StrAppend(&s, ". Its numbers (the live peak above all) cannot be trusted");
  return s;
}

std::string DescribeCleaned(const ir::Note& note) {
  std::vector<std::string> done;
  if (Number(note, 0) != 0) done.push_back("a byte-order mark removed");
  if (Number(note, 1) > 0) done.push_back(StrCat(Number(note, 1), " CRLF line ends read as LF"));
  if (Number(note, 2) > 0) done.push_back(StrCat(Number(note, 2), " CR line ends read as LF"));
  if (Number(note, 3) > 0) done.push_back(StrCat(Number(note, 3), " colour codes removed"));
  if (Number(note, 4) > 0) {
    done.push_back(StrCat("a ", Text(note, 1), " log prefix removed from ", Number(note, 4),
                          " lines"));
  }
  if (Number(note, 5) > 0) {
    done.push_back(Number(note, 6) > 0
                       ? StrCat(Number(note, 5), " lines wrapped at ", Number(note, 6),
                                " columns joined")
                       : StrCat(Number(note, 5), " broken lines joined"));
  }
  return StrCat(Text(note, 0), " was read after cleaning: ", absl::StrJoin(done, ", "),
                " (locations point into the file as it is)");
}

// Notes about the input as a whole; "unknown note" for a code of another family.
std::string DescribeInputNote(const ir::Note& note) {
  using C = ir::NoteCode;
  switch (note.code) {
    case C::kQuotedFromInput:
      return std::string(Text(note, 0));
    case C::kProtoHasNoLiveRanges:
      return "an HloProto carries no HloLiveRange: the live peak needs the text dump's live "
             "ranges";
    case C::kNoModuleText:
      return StrCat("the module text beside the dump (", Text(note, 0), ") could not be read (",
                    Text(note, 1), "): instructions are known only by the names the dump gives");
    case C::kModuleWithoutBufferAssignment:
      return "an HLO module without its buffer assignment: the graph, but no allocations, "
             "schedule or live ranges (dump with --xla_dump_hlo_as_text after optimizations "
             "for the buffer assignment)";
    case C::kInputCleaned:
      return DescribeCleaned(note);
    case C::kInputEndsEarly:
      return DescribeEndsEarly(note);
    case C::kInputListsNothing:
      return StrCat(Text(note, 0), " lists no allocations and no values: there is nothing to "
                    "measure");
    default:
      break;
  }
  return "unknown note";
}

// Notes on out-of-memory messages; "unknown note" for a code of another family.
std::string DescribeOomNote(const ir::Note& note) {
  using C = ir::NoteCode;
  switch (note.code) {
    case C::kOomAllocationFailed:
      return StrCat("the runtime ran out of memory trying to allocate ", Number(note, 0),
                    " bytes");
    case C::kOomCategoriesRounded:
      return StrCat("category totals are rounded as the message prints them (e.g. '",
                    Text(note, 0), "', within 0.5%)");
    case C::kOomAliasUnknown: {
      std::string s =
          "alias bytes unknown: the message does not say which arguments are donated, so "
          "alias reads 0";
      if (Number(note, 0) > 0) {
        StrAppend(&s, "; argument + constant + output + temp exceed the total by about ",
                  Number(note, 0), " bytes, which suggests that many are donated");
      }
      return s;
    }
    case C::kOomNoStatedTotal:
      return "the TPU message states no total allocation: total = argument + output - alias + "
             "temp";
    case C::kOomValuesAreListedBuffers:
      return StrCat("values are XLA's '",
                    Number(note, 0) != 0 ? "Peak buffers" : "Largest program allocations",
                    "': the largest buffers live at the peak, largest first; the message lists "
                    "no allocations, schedule or live ranges");
    case C::kOomRoundedBufferSizes:
      return StrCat(Number(note, 0),
                    " buffer sizes are rounded as printed (no shape gives them exactly)");
    case C::kOomAllocationTypes: {
      std::string types;
      for (size_t i = 0; i < note.texts.size(); ++i) {
        StrAppend(&types, i == 0 ? "" : ", ", note.texts[i], " x", Number(note, i));
      }
      return StrCat("allocation types of the listed buffers: ", types);
    }
    case C::kOomSizeNotStated:
      return StrCat("the message does not know the ", Text(note, 0),
                    " size ('unknown size'): it is not stated, not 0");
    default:
      break;
  }
  return "unknown note";
}

// Notes on memory-usage reports; "unknown note" for a code of another family.
std::string DescribeReportNote(const ir::Note& note) {
  using C = ir::NoteCode;
  switch (note.code) {
    case C::kReportRoundedAllocationSizes:
      return StrCat(Number(note, 0), " of ", Number(note, 1),
                    " allocation sizes are rounded as the report prints them (e.g. '",
                    Text(note, 0),
                    "', within 0.5%); the others are exact. Totals over allocations are "
                    "approximate");
    case C::kReportNoAllocationHeaders:
      return "this memory-usage report (newer XLA) prints no allocation headers: each table "
             "is taken as one allocation, numbered in the order printed and sized by the end "
             "of its last row; categories (argument/output/temp) are not in this report, so "
             "they are not stated";
    case C::kReportBytesOutsideRows:
      return StrCat(Number(note, 0),
                    " bytes of the stated total lie in no listed row: allocations the report "
                    "leaves out (it stops after 50 once the rest are small) or space after an "
                    "allocation's last row");
    case C::kReportValuesAreRows:
      return "values are the report's table rows: one per offset of an allocation, sized by "
             "the largest of its shapes (the row's used_by_n_values values share that "
             "memory); allocations listed without a table hold one value, which the report "
             "does not name";
    case C::kReportOmitsAllocations:
      return StrCat("the report leaves out ", Number(note, 0), " small allocations");
    case C::kReportOmitsRows:
      return StrCat("the report leaves out ", Number(note, 0), " table rows (each less than ",
                    Number(note, 1), "% of its allocation): their values are missing");
    case C::kReportRoundedValueSizes:
      return StrCat(Number(note, 0),
                    " value sizes are rounded as printed: their shapes do not give the "
                    "printed size");
    default:
      break;
  }
  return "unknown note";
}

}  // namespace

std::string DescribeNote(const ir::Note& note) {
  using C = ir::NoteCode;
  // Every code is listed here, so a new code without wording draws a
  // -Wswitch warning.
  switch (note.code) {
    case C::kQuotedFromInput:
    case C::kProtoHasNoLiveRanges:
    case C::kNoModuleText:
    case C::kModuleWithoutBufferAssignment:
    case C::kInputCleaned:
    case C::kInputEndsEarly:
    case C::kInputListsNothing:
      return DescribeInputNote(note);
    case C::kOomAllocationFailed:
    case C::kOomCategoriesRounded:
    case C::kOomAliasUnknown:
    case C::kOomNoStatedTotal:
    case C::kOomValuesAreListedBuffers:
    case C::kOomRoundedBufferSizes:
    case C::kOomAllocationTypes:
    case C::kOomSizeNotStated:
      return DescribeOomNote(note);
    case C::kReportRoundedAllocationSizes:
    case C::kReportNoAllocationHeaders:
    case C::kReportBytesOutsideRows:
    case C::kReportValuesAreRows:
    case C::kReportOmitsAllocations:
    case C::kReportOmitsRows:
    case C::kReportRoundedValueSizes:
      return DescribeReportNote(note);
  }
  return "unknown note";
}

std::string XlaPeakRule() {
  return "HloLiveRange's rule, as in the dump's peak list: the sizes of the live values added";
}

std::string DescribeSharedAtXlaPeak(int64_t xla_bytes, int64_t occupied_bytes,
                                    int64_t total_allocation_bytes) {
  std::string text = StrCat("the live values occupy ", GroupedBytes(occupied_bytes), " bytes there: ",
                            GroupedBytes(xla_bytes - occupied_bytes),
                            " bytes count twice, a value and its in-place successor "
                            "sharing one slice of an allocation");
  if (xla_bytes > total_allocation_bytes) {
    StrAppend(&text, "; so it exceeds the total allocation");
  }
  return text;
}

std::string DescribeStatedPeakMismatch(const analyzer::StatedPeakComparison& cmp,
                                       const analyzer::LivePeak& peak) {
  using M = analyzer::StatedPeakMismatch;
  switch (cmp.mismatch) {
    case M::kNone:
      return "";
    case M::kListNotReproduced:
      return StrCat("the dump lists ", cmp.stated_values, " values (", cmp.stated_bytes,
                    " bytes) at step ", cmp.stated_step, " where its live ranges hold ",
                    cmp.values_at_stated_step, " values (", cmp.bytes_at_stated_step, " bytes)");
    case M::kListSizesWholeShapes:
      return StrCat(
          "the list sizes each value by its defining instruction's whole shape (older XLA), "
          "so a tuple element reads as the tuple's pointer table: ",
          cmp.stated_bytes, " listed bytes for ", cmp.bytes_at_stated_step, " bytes live");
    case M::kXlaPeakRule:
      return StrCat(
          "XLA picks its peak step sizing each value by its defining instruction's whole "
          "shape (a tuple element counts as the tuple's pointer table) and adding a step's "
          "starts before its ends; that rule gives step ",
          cmp.xla_moment ? StrCat(*cmp.xla_moment) : std::string("?"),
          ", while the most bytes are live at step ", peak.step, " (", peak.bytes, " bytes)");
  }
  return "";
}

std::string_view CategoryWord(analyzer::ValueCategory category) {
  using C = analyzer::ValueCategory;
  switch (category) {
    case C::kParameter:
      return "argument";
    case C::kOutput:
      return "output";
    case C::kTemporary:
      return "temp";
    case C::kConstant:
      return "constant";
    case C::kThreadLocal:
      return "thread-local";
  }
  return "unknown";
}

std::string_view AttributionScopeName(analyzer::Analysis::AttributionScope scope) {
  return scope == analyzer::Analysis::AttributionScope::kLivePeak ? "live peak" : "all values";
}

std::string SourceLabel(const ir::Module& module, const ir::OpMetadata* metadata) {
  if (metadata == nullptr) return "";
  const analyzer::SourceLocation source = analyzer::SourceLocationOf(module, *metadata);
  if (source.file.empty()) return "";
  return source.line > 0 ? StrCat(source.file, ":", source.line) : std::string(source.file);
}

ValueLabels LabelsOf(const ir::Program& program, const analyzer::Analysis& analysis,
                     const ir::Value& value) {
  ValueLabels labels;
  labels.name = program.ValueName(value);
  if (program.module.contains(value.instruction)) {
    labels.opcode = program.DefiningInstruction(value).opcode_text;
  }
  const analyzer::ValueOrigin& origin = analysis.OriginOf(program, value);
  if (origin.op != nullptr) {
    labels.op_type = origin.op->op_type;
    labels.op_name = origin.op->op_name;
  }
  labels.source = SourceLabel(program.module, origin.source);
  return labels;
}

std::string DescribeInstructionCount(const parsers::DumpModule& module) {
  using B = parsers::InstructionCountBasis;
  switch (module.instruction_count_basis) {
    case B::kModuleText:
      return StrCat(module.instruction_count, " instructions");
    case B::kSchedule:
      return StrCat(module.instruction_count, " scheduled instructions");
    case B::kValues:
      return StrCat(module.instruction_count, " values (no module text or schedule)");
    case B::kNone:
      return "instructions not known";
  }
  return "";
}

std::string DescribeModuleChoice(const parsers::LoadedProgram& loaded) {
  if (!loaded.choice || loaded.modules.empty()) return "";  // a single file
  const parsers::DumpModule& chosen = loaded.modules[loaded.choice->index];
  const auto label = [](const parsers::DumpModule& m) {
    return m.number ? StrCat(m.name, " (module ", *m.number, ")") : m.name;
  };
  std::string out = StrCat("reading module ", label(chosen));
  switch (loaded.choice->reason) {
    case parsers::ModuleChoiceReason::kOnlyModule:
      return "";  // nothing to choose
    case parsers::ModuleChoiceReason::kNamed:
      StrAppend(&out, ", as named, one of ", loaded.modules.size(), " in the dump");
      break;
    case parsers::ModuleChoiceReason::kMostInstructions:
      StrAppend(&out, ", the program with the most HLO instructions (",
                DescribeInstructionCount(chosen), ") of ", loaded.modules.size(),
                " in the dump");
      break;
  }
  std::string others;
  for (size_t i = 0; i < loaded.modules.size(); ++i) {
    if (i == loaded.choice->index) continue;
    const parsers::DumpModule& m = loaded.modules[i];
    StrAppend(&others, others.empty() ? "" : ", ", label(m), ": ", DescribeInstructionCount(m));
  }
  return StrCat(out, "; the others: ", others);
}

std::string_view InstructionLabel(const ir::Program& program, ir::InstructionId id) {
  return program.InstructionName(id);
}

}  // namespace memplan::viz
