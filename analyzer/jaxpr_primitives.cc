#include "analyzer/jaxpr_primitives.h"

#include <algorithm>
#include <array>

namespace memplan::analyzer {
namespace {

constexpr std::string_view kElementwise[] = {
    "abs", "add", "add_any", "and", "ceil", "clamp", "clz", "complex", "conj", "div", "eq",
    "floor", "ge", "gt", "imag", "integer_pow", "is_finite", "le", "lt", "max", "min", "mul",
    "ne", "neg", "nextafter", "not", "or", "population_count", "real", "reduce_precision",
    "rem", "round", "select_n", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "square", "sub", "xor",
};
constexpr std::string_view kTranscendental[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "bessel_i0e", "bessel_i1e",
    "cbrt", "cos", "cosh", "digamma", "erf", "erf_inv", "erfc", "exp", "exp2", "expm1",
    "igamma", "igammac", "lgamma", "log", "log1p", "logistic", "pow", "rsqrt", "sin", "sinh",
    "sqrt", "tan", "tanh",
};
constexpr std::string_view kReduction[] = {
    "argmax", "argmin", "reduce_and", "reduce_max", "reduce_min", "reduce_or",
    "reduce_prod", "reduce_sum", "reduce_xor",
};
constexpr std::string_view kCumulative[] = {
    "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum",
};
constexpr std::string_view kDataMovement[] = {
    "bitcast_convert_type", "broadcast_in_dim", "concatenate", "convert_element_type", "copy",
    "copy_p", "device_put", "dynamic_slice", "dynamic_update_slice", "expand_dims", "gather",
    "iota", "optimization_barrier", "pad", "reshape", "rev", "sharding_constraint", "slice",
    "split", "squeeze", "stop_gradient", "transpose",
};

template <size_t N>
bool In(const std::string_view (&table)[N], std::string_view name) {
  return std::find(std::begin(table), std::end(table), name) != std::end(table);
}

}  // namespace

ir::JaxprId CalledJaxpr(const ir::JaxprEqn& eqn, std::string_view role) {
  for (const ir::JaxprEqn::Called& c : eqn.called) {
    if (c.role == role) return c.jaxpr;
  }
  return ir::JaxprId();
}

std::optional<int64_t> IntParam(const ir::JaxprEqn& eqn, std::string_view name) {
  const ir::JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsInt();
}

std::optional<ir::JaxprId> CalleeOf(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  for (std::string_view role : {"jaxpr", "call_jaxpr", "fun_jaxpr"}) {
    const ir::JaxprId callee = CalledJaxpr(eqn, role);
    if (!callee.valid()) continue;
    const ir::Jaxpr& j = module.jaxpr(callee);
    if (j.invars.size() == eqn.invars.size() && j.outvars.size() == eqn.outvars.size()) {
      return callee;
    }
  }
  return std::nullopt;
}

JaxprPrimitiveKind PrimitiveKind(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  const std::string_view name = eqn.primitive;
  if (name == "scan") return JaxprPrimitiveKind::kScan;
  if (name == "while") return JaxprPrimitiveKind::kWhile;
  if (name == "cond") return JaxprPrimitiveKind::kCond;
  if (name == "dot_general") return JaxprPrimitiveKind::kDotGeneral;
  if (name == "conv_general_dilated") return JaxprPrimitiveKind::kConvolution;
  if (CalleeOf(module, eqn)) return JaxprPrimitiveKind::kCall;
  if (In(kElementwise, name)) return JaxprPrimitiveKind::kElementwise;
  if (In(kTranscendental, name)) return JaxprPrimitiveKind::kTranscendental;
  if (In(kReduction, name)) return JaxprPrimitiveKind::kReduction;
  if (In(kCumulative, name)) return JaxprPrimitiveKind::kCumulative;
  if (In(kDataMovement, name)) return JaxprPrimitiveKind::kDataMovement;
  return JaxprPrimitiveKind::kOther;
}

}  // namespace memplan::analyzer
