// What memplan knows of each jaxpr primitive: whether it calls a jaxpr, is
// a loop or a branch, a matmul, elementwise arithmetic, a reduction or data
// movement. Shared by the schedule, the flop count and shard propagation,
// so that one table says what each name means.
#ifndef MEMPLAN_ANALYZER_JAXPR_PRIMITIVES_H_
#define MEMPLAN_ANALYZER_JAXPR_PRIMITIVES_H_

#include <optional>
#include <string_view>

#include "ir/jaxpr.h"

namespace memplan::analyzer {

enum class JaxprPrimitiveKind : uint8_t {
  kCall,            // pjit/jit, closed_call, named_call, custom_jvp/vjp, remat, shard_map, ...
  kScan,
  kWhile,
  kCond,
  kDotGeneral,
  kConvolution,
  kElementwise,     // one flop per output element
  kTranscendental,  // one transcendental per output element
  kReduction,       // reduce_sum, reduce_max, argmax, ...: `axes` leave the output
  kCumulative,      // cumsum, cumprod, ...: same shape, one flop per element
  kDataMovement,    // broadcast, reshape, transpose, slices, gathers, converts, ...
  kOther,           // anything else (sort, scatter, top_k, custom calls, ...)
};

// The kind of `eqn`. A primitive that carries a callee under "jaxpr",
// "call_jaxpr" or "fun_jaxpr" and takes as many operands as the callee has
// inputs is a call, whatever its name.
JaxprPrimitiveKind PrimitiveKind(const ir::JaxprModule& module, const ir::JaxprEqn& eqn);

// The jaxpr a call equation runs, when its operands are the callee's inputs
// one for one; nullopt otherwise.
std::optional<ir::JaxprId> CalleeOf(const ir::JaxprModule& module, const ir::JaxprEqn& eqn);

// The jaxpr called under `role` ("jaxpr", "body_jaxpr", "branches[0]"), or
// an invalid id.
ir::JaxprId CalledJaxpr(const ir::JaxprEqn& eqn, std::string_view role);

// An integer param ("length=4", "num_consts=0"), or nullopt.
std::optional<int64_t> IntParam(const ir::JaxprEqn& eqn, std::string_view name);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_PRIMITIVES_H_
