// Jaxprs as JAX prints them (`jax.make_jaxpr(f)(...)`, old and new
// versions): typed binders, equations with parameters, nested jaxprs in
// parameters (pjit/jit, named_call, custom_jvp_call, custom_vjp_call, scan,
// while, cond branches, remat, shard_map, ...), and shared jaxprs printed
// once as "let name = { lambda ... } in".
//
// One JaxprModule holds every jaxpr of a printed document with dense ids:
// jaxprs, variables and equations each index their own vector. Names are
// resolved by the parser: each jaxpr has its own scope (jaxprs are closed),
// so an equation's operands are variable ids, never names.
#ifndef MEMPLAN_IR_JAXPR_H_
#define MEMPLAN_IR_JAXPR_H_

#include "ir/hlo_attributes.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/ids.h"

namespace memplan::ir {

using JaxprId = StrongId<struct JaxprIdTag>;
using JaxprVarId = StrongId<struct JaxprVarIdTag>;
using JaxprEqnId = StrongId<struct JaxprEqnIdTag>;

// An abstract value: "f32[2048,8192]", "bool[]", "bf16[3]{V:x}",
// "f32<host>[4]", "f32[4@x,4]". Untyped binders of old jaxprs have none.
struct JaxprAval {
  bool known = false;
  std::string dtype_name;     // as printed: "f32", "bool", "key<fry>", "float0"
  DType dtype = DType::kInvalid;  // kInvalid when memplan does not know the name
  std::vector<int64_t> dims;  // -1 for a symbolic dimension
  std::string text;           // the whole aval as printed

  // Elements; -1 when a dimension is symbolic or the aval is unknown.
  int64_t ElementCount() const;
  // Bytes of a dense array (elements x bytes per element, 1 for bool and
  // sub-byte types, as numpy stores them); 0 for float0; -1 when unknown.
  int64_t ByteSize() const;
};

// JAX's short dtype names ("f32", "i8", "u4", "bool", "bf16", "c64",
// "f8_e4m3fn") and numpy's long ones ("float32", "bfloat16"); kInvalid for
// others.
DType JaxDTypeFromName(std::string_view name);

struct JaxprVar {
  enum class Kind : uint8_t { kConst, kInput, kEqnOutput, kDrop };
  JaxprVarId id;
  std::string name;  // "a", "bq", "_"
  JaxprAval aval;
  Kind kind = Kind::kInput;
  JaxprId jaxpr;          // where it is bound
  JaxprEqnId defined_by;  // kEqnOutput and kDrop
};

// An operand: a variable, or a literal ("1.0:f32[]", "True", "nan:f32[]").
struct JaxprAtom {
  JaxprVarId var;       // invalid for a literal
  std::string literal;  // the literal as printed, without its type
  JaxprAval literal_aval;
  bool IsLiteral() const { return !var.valid(); }
};

// A parameter value, as JAX prints it (mostly Python reprs), read into a
// small tree: enough to get numbers, tuples and nested jaxprs out of it.
struct JaxprParamValue {
  enum class Kind : uint8_t {
    kJaxpr,   // { lambda ... }, or a shared jaxpr's name
    kNumber,  // 1, -2.5, 1e-05
    kString,  // 'x' (unquoted in `text`)
    kName,    // None, True, float32, GatherScatterMode.FILL_OR_DROP
    kTuple,   // ( ... )
    kList,    // [ ... ]
    kBraces,  // { ... } (sets, dicts, "{replicated}")
    kCall,    // Name( ... ): NamedSharding(...), P('x', None)
    kOpaque,  // <function f at 0x...> and anything else, as text
  };
  Kind kind = Kind::kOpaque;
  std::string text;    // as printed (trimmed); the callee for kCall
  JaxprId jaxpr;       // kJaxpr
  std::vector<JaxprParamValue> elements;
  std::vector<std::string> keys;  // per element: "k" of "k=v" / "'k': v", else ""

  // The integer of a kNumber without fraction or exponent, or of a NumPy
  // integer scalar printed as its constructor ("np.int64(2)").
  std::optional<int64_t> AsInt() const;
  // A tuple or list of integers: "(1, 0)", "[1]", "()".
  std::optional<std::vector<int64_t>> AsIntList() const;
};

struct JaxprParam {
  std::string name;
  JaxprParamValue value;
};

struct JaxprSourceLocation {
  std::string file;  // empty when the jaxpr was printed without source info
  int64_t line = 0;
  int64_t column = 0;
  std::string function;
};

struct JaxprEqn {
  JaxprEqnId id;
  JaxprId jaxpr;  // the jaxpr whose body holds it
  std::string primitive;
  std::vector<JaxprVarId> outvars;
  std::vector<JaxprAtom> invars;
  std::vector<JaxprParam> params;  // in printed order
  // Jaxprs in the params, in printed order, with the param naming each
  // ("jaxpr", "call_jaxpr", "branches[1]", "body_jaxpr").
  struct Called {
    std::string role;
    JaxprId jaxpr;
  };
  std::vector<Called> called;
  JaxprSourceLocation source;  // from a "# file:line:col (fn)" annotation
  std::string name_stack;      // from a "# [jit(f)/...]" annotation
  int64_t input_line = 0;

  const JaxprParam* FindParam(std::string_view name) const;
};

struct Jaxpr {
  JaxprId id;
  std::vector<JaxprVarId> constvars;
  std::vector<JaxprVarId> invars;
  std::vector<JaxprEqnId> eqns;
  std::vector<JaxprAtom> outvars;
  std::string effects;      // " : { ... }" when printed with effects
  std::string shared_name;  // for "let name = { ... } in"
  JaxprEqnId parent;        // the equation whose params hold it; invalid at top level
  int64_t input_line = 0;
};

struct JaxprModule {
  std::string source_name;
  std::vector<Jaxpr> jaxprs;
  std::vector<JaxprVar> vars;
  std::vector<JaxprEqn> eqns;
  JaxprId top;  // the document's main jaxpr (after any shared ones)

  const Jaxpr& jaxpr(JaxprId id) const { return jaxprs[static_cast<size_t>(id.value())]; }
  const JaxprVar& var(JaxprVarId id) const { return vars[static_cast<size_t>(id.value())]; }
  const JaxprEqn& eqn(JaxprEqnId id) const { return eqns[static_cast<size_t>(id.value())]; }
};

// dot_general's dimension_numbers=((lhs_contracting, rhs_contracting),
// (lhs_batch, rhs_batch)), printed as tuples (old) or lists (new), as the
// same DotDimensionNumbers an HLO dot carries. Nullopt when `eqn` has no
// readable dimension_numbers.
std::optional<DotDimensionNumbers> DotGeneralDimensions(const JaxprEqn& eqn);

// conv_general_dilated's dimension_numbers=ConvDimensionNumbers(lhs_spec=
// (batch, feature, spatial...), rhs_spec=(out feature, in feature,
// spatial...), out_spec=(batch, feature, spatial...)) as XLA's dimension
// numbers. Nullopt when absent or unreadable.
std::optional<ConvolutionDimensionNumbers> ConvGeneralDimensions(const JaxprEqn& eqn);

// conv_general_dilated's window: per spatial dimension the kernel size (from
// `kernel_spatial_sizes`), window_strides, padding=((lo, hi), ...),
// lhs_dilation (base) and rhs_dilation (window). Nullopt when a param is
// missing, unreadable (e.g. padding='SAME') or of another rank.
std::optional<Window> ConvGeneralWindow(const JaxprEqn& eqn,
                                        const std::vector<int64_t>& kernel_spatial_sizes);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_H_
