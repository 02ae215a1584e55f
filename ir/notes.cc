#include "ir/notes.h"

namespace memplan::ir {

std::string_view NoteCodeName(NoteCode code) {
  switch (code) {
    case NoteCode::kQuotedFromInput:
      return "quoted-from-input";
    case NoteCode::kProtoHasNoLiveRanges:
      return "proto-has-no-live-ranges";
    case NoteCode::kNoModuleText:
      return "no-module-text";
    case NoteCode::kModuleWithoutBufferAssignment:
      return "module-without-buffer-assignment";
    case NoteCode::kOomAllocationFailed:
      return "oom-allocation-failed";
    case NoteCode::kOomCategoriesRounded:
      return "oom-categories-rounded";
    case NoteCode::kOomAliasUnknown:
      return "oom-alias-unknown";
    case NoteCode::kOomNoStatedTotal:
      return "oom-no-stated-total";
    case NoteCode::kOomValuesAreListedBuffers:
      return "oom-values-are-listed-buffers";
    case NoteCode::kOomRoundedBufferSizes:
      return "oom-rounded-buffer-sizes";
    case NoteCode::kOomAllocationTypes:
      return "oom-allocation-types";
    case NoteCode::kInputCleaned:
      return "input-cleaned";
    case NoteCode::kInputEndsEarly:
      return "input-ends-early";
    case NoteCode::kInputListsNothing:
      return "input-lists-nothing";
    case NoteCode::kOomSizeNotStated:
      return "oom-size-not-stated";
    case NoteCode::kReportRoundedAllocationSizes:
      return "report-rounded-allocation-sizes";
    case NoteCode::kReportNoAllocationHeaders:
      return "report-no-allocation-headers";
    case NoteCode::kReportBytesOutsideRows:
      return "report-bytes-outside-rows";
    case NoteCode::kReportValuesAreRows:
      return "report-values-are-rows";
    case NoteCode::kReportOmitsAllocations:
      return "report-omits-allocations";
    case NoteCode::kReportOmitsRows:
      return "report-omits-rows";
    case NoteCode::kReportRoundedValueSizes:
      return "report-rounded-value-sizes";
  }
  return "unknown";
}

}  // namespace memplan::ir
