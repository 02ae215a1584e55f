#include "ir/jaxpr_lowering.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

struct Mapping {
  std::string_view primitive;
  Opcode opcode;
  std::string_view direction = {};  // compare
};

constexpr Mapping kOpcodes[] = {
    {"abs", Opcode::kAbs},          {"add", Opcode::kAdd},
    {"add_any", Opcode::kAdd},      {"and", Opcode::kAnd},
    {"atan2", Opcode::kAtan2},      {"cbrt", Opcode::kCbrt},
    {"ceil", Opcode::kCeil},        {"clamp", Opcode::kClamp},
    {"concatenate", Opcode::kConcatenate},
    {"convert_element_type", Opcode::kConvert},
    {"cos", Opcode::kCos},          {"div", Opcode::kDivide},
    {"dynamic_slice", Opcode::kDynamicSlice},
    {"dynamic_update_slice", Opcode::kDynamicUpdateSlice},
    {"eq", Opcode::kCompare, "EQ"}, {"erf", Opcode::kErf},
    {"exp", Opcode::kExp},          {"expm1", Opcode::kExpm1},
    {"floor", Opcode::kFloor},      {"gather", Opcode::kGather},
    {"ge", Opcode::kCompare, "GE"}, {"gt", Opcode::kCompare, "GT"},
    {"integer_pow", Opcode::kMultiply},
    {"iota", Opcode::kIota},        {"is_finite", Opcode::kIsFinite},
    {"le", Opcode::kCompare, "LE"}, {"log", Opcode::kLog},
    {"log1p", Opcode::kLog1p},
    {"lt", Opcode::kCompare, "LT"}, {"max", Opcode::kMaximum},
    {"min", Opcode::kMinimum},      {"mul", Opcode::kMultiply},
    {"ne", Opcode::kCompare, "NE"}, {"neg", Opcode::kNegate},
    {"not", Opcode::kNot},          {"or", Opcode::kOr},
    {"pad", Opcode::kPad},          {"pow", Opcode::kPower},
    {"reduce_and", Opcode::kReduce}, {"reduce_max", Opcode::kReduce},
    {"reduce_min", Opcode::kReduce}, {"reduce_or", Opcode::kReduce},
    {"reduce_precision", Opcode::kReducePrecision},
    {"reduce_prod", Opcode::kReduce}, {"reduce_sum", Opcode::kReduce},
    {"rem", Opcode::kRemainder},    {"rev", Opcode::kReverse},
    {"rsqrt", Opcode::kRsqrt},      {"scatter", Opcode::kScatter},
    {"scatter-add", Opcode::kScatter}, {"select_n", Opcode::kSelect},
    {"sign", Opcode::kSign},        {"sin", Opcode::kSin},
    {"slice", Opcode::kSlice},      {"sort", Opcode::kSort},
    {"sqrt", Opcode::kSqrt},        {"square", Opcode::kMultiply},
    {"sub", Opcode::kSubtract},     {"tan", Opcode::kTan},
    {"tanh", Opcode::kTanh},        {"xor", Opcode::kXor},
    {"broadcast_in_dim", Opcode::kBroadcast},
    {"transpose", Opcode::kTranspose},
    {"reshape", Opcode::kReshape},  {"squeeze", Opcode::kReshape},
    {"expand_dims", Opcode::kReshape},
    {"dot_general", Opcode::kDot},  {"conv_general_dilated", Opcode::kConvolution},
    {"copy", Opcode::kCopy},        {"copy_p", Opcode::kCopy},
    {"optimization_barrier", Opcode::kOptimizationBarrier},
};

const Mapping* MappingFor(std::string_view primitive) {
  for (const Mapping& m : kOpcodes) {
    if (m.primitive == primitive) return &m;
  }
  return nullptr;
}

Shape ShapeOf(const JaxprAval& aval) {
  Shape s;
  s.dtype = aval.dtype;
  for (int64_t d : aval.dims) s.dims.push_back(d < 0 ? 0 : d);
  return s;
}

std::optional<std::vector<int64_t>> IntListParam(const JaxprEqn& eqn, std::string_view name) {
  const JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsIntList();
}

class Lowering {
 public:
  explicit Lowering(const JaxprModule& jaxpr) : jaxpr_(jaxpr) {}

  absl::StatusOr<Module> Run() {
    if (!jaxpr_.top.valid()) return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ": no jaxpr"));
    module_.name = module_.Intern(jaxpr_.source_name);
    // Computations first, so that calls can name any of them.
    for (const Jaxpr& j : jaxpr_.jaxprs) {
      Computation c;
      c.name = module_.Intern(j.shared_name.empty() ? StrCat("jaxpr.", j.id.value()) : j.shared_name);
      module_.AddComputation(std::move(c));
    }
    for (const Jaxpr& j : jaxpr_.jaxprs) Body(j);
    module_.entry = ComputationId(jaxpr_.top.value());
    module_.gaps.push_back(GraphGap::kAttributes);
    return std::move(module_);
  }

 private:
  InstructionId Add(ComputationId c, std::string_view name, Opcode opcode, std::string_view text, Shape shape,
                    std::vector<InstructionId> operands) {
    Instruction i;
    i.computation = c;
    i.name = module_.Intern(std::string(name));
    i.opcode = opcode;
    i.opcode_text = module_.Intern(std::string(text));
    i.shape = std::move(shape);
    i.operands = std::move(operands);
    const InstructionId id = module_.AddInstruction(std::move(i));
    module_.mutable_computation(c).instructions.push_back(id);
    return id;
  }

  void Body(const Jaxpr& j) {
    const ComputationId c(j.id.value());
    absl::flat_hash_map<int64_t, InstructionId> env;
    std::vector<JaxprVarId> params(j.constvars);
    params.insert(params.end(), j.invars.begin(), j.invars.end());
    for (JaxprVarId v : params) {
      const InstructionId p = Add(c, jaxpr_.var(v).name, Opcode::kParameter, "parameter",
                                  ShapeOf(jaxpr_.var(v).aval), {});
      module_.mutable_computation(c).parameters.push_back(p);
      env[v.value()] = p;
    }
    for (JaxprEqnId e : j.eqns) Equation(c, jaxpr_.eqn(e), env);
    std::vector<InstructionId> outs;
    for (const JaxprAtom& a : j.outvars) outs.push_back(Operand(c, a, env));
    InstructionId root;
    if (outs.size() == 1) {
      root = outs[0];
    } else {
      Shape tuple;
      tuple.dtype = DType::kTuple;
      for (InstructionId o : outs) tuple.tuple_elements.push_back(module_.instruction(o).shape);
      root = Add(c, StrCat("root.", j.id.value()), Opcode::kTuple, "tuple", std::move(tuple), outs);
    }
    module_.mutable_instruction(root).is_root = true;
    module_.mutable_computation(c).root = root;
  }

  InstructionId Operand(ComputationId c, const JaxprAtom& a,
                        absl::flat_hash_map<int64_t, InstructionId>& env) {
    if (!a.IsLiteral()) {
      auto it = env.find(a.var.value());
      if (it != env.end()) return it->second;
    }
    return Add(c, StrCat("constant.", module_.instruction_count()), Opcode::kConstant, "constant",
               ShapeOf(a.IsLiteral() ? a.literal_aval : jaxpr_.var(a.var).aval), {});
  }

  void Equation(ComputationId c, const JaxprEqn& eqn, absl::flat_hash_map<int64_t, InstructionId>& env) {
    std::vector<InstructionId> operands;
    for (const JaxprAtom& a : eqn.invars) operands.push_back(Operand(c, a, env));
    Opcode opcode = Opcode::kUnknown;
    const Mapping* mapping = MappingFor(eqn.primitive);
    std::vector<CalledComputation> calls;
    auto call = [&](std::string_view role, CallRole as) {
      for (const JaxprEqn::Called& k : eqn.called) {
        if (k.role == role) calls.push_back({ComputationId(k.jaxpr.value()), as});
      }
    };
    if (mapping != nullptr) {
      opcode = mapping->opcode;
    } else if (eqn.primitive == "scan" || eqn.primitive == "while") {
      opcode = Opcode::kWhile;
      call(eqn.primitive == "scan" ? "jaxpr" : "body_jaxpr", CallRole::kWhileBody);
      call("cond_jaxpr", CallRole::kWhileCondition);
    } else if (eqn.primitive == "cond") {
      opcode = Opcode::kConditional;
      for (const JaxprEqn::Called& k : eqn.called) calls.push_back({ComputationId(k.jaxpr.value()), CallRole::kBranch});
    } else {
      for (std::string_view role : {"jaxpr", "call_jaxpr", "fun_jaxpr"}) {
        if (calls.empty()) call(role, CallRole::kToApply);
      }
      if (!calls.empty()) opcode = Opcode::kCall;
    }
    const std::string_view text = opcode == Opcode::kUnknown ? std::string_view(eqn.primitive) : OpcodeName(opcode);
    Shape shape;
    std::vector<JaxprVarId> outs = eqn.outvars;
    if (outs.size() == 1) {
      shape = ShapeOf(jaxpr_.var(outs[0]).aval);
    } else {
      shape.dtype = DType::kTuple;
      for (JaxprVarId v : outs) shape.tuple_elements.push_back(ShapeOf(jaxpr_.var(v).aval));
    }
    const std::string name = outs.size() == 1 ? jaxpr_.var(outs[0]).name : StrCat(eqn.primitive, ".", eqn.id.value());
    const InstructionId id = Add(c, name, opcode, text, std::move(shape), std::move(operands));
    module_.mutable_instruction(id).calls = std::move(calls);
    Attributes(eqn, id, mapping);
    if (outs.size() == 1) {
      env[outs[0].value()] = id;
      return;
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      const InstructionId gte = Add(c, jaxpr_.var(outs[k]).name, Opcode::kGetTupleElement, "get-tuple-element",
                                    ShapeOf(jaxpr_.var(outs[k]).aval), {id});
      module_.mutable_attributes(gte).tuple_index = static_cast<int64_t>(k);
      env[outs[k].value()] = gte;
    }
  }

  void Attributes(const JaxprEqn& eqn, InstructionId id, const Mapping* mapping) {
    const Opcode opcode = module_.instruction(id).opcode;
    if (opcode == Opcode::kDot) {
      if (auto d = DotGeneralDimensions(eqn)) module_.mutable_attributes(id).dot = *d;
    } else if (opcode == Opcode::kConvolution) {
      const auto d = ConvGeneralDimensions(eqn);
      if (!d) return;
      HloAttributes& a = module_.mutable_attributes(id);
      a.convolution = *d;
      const Instruction& i = module_.instruction(id);
      if (i.operands.size() == 2) {
        const Shape& rhs = module_.instruction(i.operands[1]).shape;
        std::vector<int64_t> sizes;
        for (int64_t s : d->kernel_spatial) sizes.push_back(s >= 0 && s < static_cast<int64_t>(rhs.dims.size()) ? rhs.dims[s] : 1);
        if (auto w = ConvGeneralWindow(eqn, sizes)) a.window = *w;
      }
      const JaxprParam* f = eqn.FindParam("feature_group_count");
      const JaxprParam* b = eqn.FindParam("batch_group_count");
      if (f != nullptr && f->value.AsInt()) a.feature_group_count = *f->value.AsInt();
      if (b != nullptr && b->value.AsInt()) a.batch_group_count = *b->value.AsInt();
    } else if (opcode == Opcode::kReduce) {
      if (auto axes = IntListParam(eqn, "axes")) module_.mutable_attributes(id).dimensions = *axes;
    } else if (opcode == Opcode::kBroadcast) {
      if (auto dims = IntListParam(eqn, "broadcast_dimensions")) module_.mutable_attributes(id).dimensions = *dims;
    } else if (opcode == Opcode::kTranspose) {
      if (auto perm = IntListParam(eqn, "permutation")) module_.mutable_attributes(id).dimensions = *perm;
    } else if (opcode == Opcode::kCompare && mapping != nullptr) {
      module_.mutable_attributes(id).comparison_direction = mapping->direction;
    }
  }

  const JaxprModule& jaxpr_;
  Module module_;
};

}  // namespace

absl::StatusOr<Module> LowerJaxpr(const JaxprModule& jaxpr) { return Lowering(jaxpr).Run(); }

}  // namespace memplan::ir
