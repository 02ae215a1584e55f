// The attributes of an allocation header, as XLA's BufferAllocation::ToString
// and ToShortString print them after the size:
//   ", color 1, parameter 0, shape |f32[8]| at ShapeIndex {}, maybe-live-out"
// Shared by the buffer-assignment parser and the memory-usage-report parser
// (whose headers carry the same attributes after a human-readable size).
#ifndef MEMPLAN_PARSERS_ALLOCATION_ATTRIBUTES_H_
#define MEMPLAN_PARSERS_ALLOCATION_ATTRIBUTES_H_

#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "ir/program.h"
#include "parsers/cursor.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// Counts a recoverable problem of `kind` at `at` (a pointer into the text).
using WarnAt = absl::FunctionRef<void(std::string_view kind, const char* at)>;

// Reads every ", <attribute>" of `attributes` (the header between the size
// and the closing ':') into `allocation`. Known attributes that are malformed
// are errors naming the column in `source`; unknown attributes are warned
// about and skipped.
absl::Status ParseAllocationAttributes(Cursor attributes, const SourceText& source,
                                       ir::Allocation& allocation, WarnAt warn);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_ALLOCATION_ATTRIBUTES_H_
