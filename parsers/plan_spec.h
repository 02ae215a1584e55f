// Specs inside a plan file (parsers/plan_parser.h): the text notations a
// scalar may hold (PartitionSpec reprs, HloSharding text), the checks of a
// spec against the mesh, and its lowering to an HloSharding for one array.
// Internal to the plan parser.
#ifndef MEMPLAN_PARSERS_PLAN_SPEC_H_
#define MEMPLAN_PARSERS_PLAN_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/mesh.h"
#include "ir/shape.h"
#include "ir/sharding.h"
#include "parsers/plan_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {

// The name an embedded text's own errors carry before Relocate rewrites them.
inline constexpr std::string_view kEmbeddedName = "<plan value>";

// A scalar's value and where it stands in the plan.
struct EmbeddedText {
  const SourceText* source = nullptr;  // the plan
  std::string value;                   // unescaped
  size_t base = 0;                     // offset of the value's first character
  bool exact = false;                  // value[i] is at base + i (no escapes, one line)
};

// An error from parsing `text.value` as its own SourceText (named
// kEmbeddedName) turned into one located in the plan: at the same character
// when the text is exact, else at the scalar's start.
absl::Status Relocate(const absl::Status& error, const EmbeddedText& text);

// Fills `spec` from a scalar: HloSharding text (starting with '{' or
// "sharding=") or a PartitionSpec / NamedSharding repr ("P('dp', None)",
// "PartitionSpec(...)", "('dp', None)"). Located errors.
absl::Status ParseSpecText(const EmbeddedText& text, PlanSpec* spec);

// Checks `spec` against the mesh: every axis in it, none twice, no
// UNCONSTRAINED entry, an HloSharding over the mesh's device count.
absl::Status CheckSpecAxes(const SourceText& source, const ir::Mesh& mesh, const PlanSpec& spec);

// The HloSharding `spec` gives an array of `shape` on `mesh` (JAX's, for
// PartitionSpecs), checking its rank (a list: equal; a repr: at most) and
// that every sharded dimension divides by its ways. `what` names the array
// in messages ("argument 3 (params[1][0], f32[512,2048])").
absl::StatusOr<ir::HloSharding> LowerSpec(const SourceText& source, const ir::Mesh& mesh,
                                          const PlanSpec& spec, const ir::Shape& shape,
                                          std::string_view what);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_PLAN_SPEC_H_
