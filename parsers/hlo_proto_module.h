// Builds an ir::Module from the HloModuleProto of an XLA HloProto
// (`*.hlo.pb`): the same graph the module's text gives
// (parsers/hlo_text_parser.h), from XLA's own ids.
#ifndef MEMPLAN_PARSERS_HLO_PROTO_MODULE_H_
#define MEMPLAN_PARSERS_HLO_PROTO_MODULE_H_

#include "absl/status/status.h"
#include "ir/diagnostics.h"
#include "ir/module.h"

namespace memplan::xla_subset {
class HloModuleProto;
}

namespace memplan::parsers {

// Fills `module`, which must be empty, from `proto`. Text fields are views
// into `proto`, which the caller keeps alive (and unchanged) as long as the
// module is used; text the proto does not hold as such (a layout's tiling
// "T(8,128)(2,1)", frontend attributes) is rendered as XLA prints it and
// kept by the module (ir::Module::Intern).
//
// Computations keep the proto's order; a computation the schedule orders
// lists its instructions in schedule order (as the text prints them), else
// in the proto's order. Instruction::unique_id and Computation::unique_id
// are the proto's ids. Called computations get their role from the opcode
// and position (while: body then condition; conditional: branches;
// select-and-scatter: select then scatter; sort: comparator; fusion: fused;
// reduce, all-reduce, map, scatter, reduce-window, reduce-scatter, call:
// to_apply; others: called). Unknown opcodes are counted in `diagnostics`.
//
// InvalidArgument, naming the computation and instruction, when an id
// refers to nothing, an id is used twice, or the graph breaks the checks of
// parsers/hlo_graph_checks.h.
absl::Status ModuleFromProto(const xla_subset::HloModuleProto& proto, ir::Module* module,
                             ir::Diagnostics* diagnostics);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_HLO_PROTO_MODULE_H_
