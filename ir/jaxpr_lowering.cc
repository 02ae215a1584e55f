#include "ir/jaxpr_lowering.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/jaxpr_lowering_ops.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::ir {
namespace {

using Env = absl::flat_hash_map<int64_t, InstructionId>;
using Ids = std::vector<InstructionId>;

Shape ShapeOf(const JaxprAval& aval) {
  Shape s;
  s.dtype = aval.dtype;
  for (int64_t d : aval.dims) s.dims.push_back(d < 0 ? 0 : d);
  return s;
}

Shape Scalar(DType dtype) {
  Shape s;
  s.dtype = dtype;
  return s;
}

std::optional<int64_t> IntParam(const JaxprEqn& eqn, std::string_view name) {
  const JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsInt();
}

// The jaxpr a call-like equation runs: its first `jaxpr`, `call_jaxpr` or
// `fun_jaxpr` parameter.
const JaxprEqn::Called* CalleeOf(const JaxprEqn& eqn, std::string_view role = {}) {
  for (std::string_view r : {std::string_view("jaxpr"), std::string_view("call_jaxpr"),
                             std::string_view("fun_jaxpr")}) {
    if (!role.empty() && r != role) continue;
    for (const JaxprEqn::Called& k : eqn.called) {
      if (k.role == r) return &k;
    }
  }
  return nullptr;
}

const JaxprEqn::Called* CalledAs(const JaxprEqn& eqn, std::string_view role) {
  for (const JaxprEqn::Called& k : eqn.called) {
    if (k.role == role) return &k;
  }
  return nullptr;
}

bool AllDropped(const JaxprModule& jaxpr, const JaxprEqn& eqn) {
  if (eqn.outvars.empty()) return false;
  for (JaxprVarId v : eqn.outvars) {
    if (jaxpr.var(v).kind != JaxprVar::Kind::kDrop) return false;
  }
  return true;
}

class Lowering {
 public:
  Lowering(const JaxprModule& jaxpr, const JaxprLoweringOptions& options)
      : jaxpr_(jaxpr), options_(options) {}

  absl::StatusOr<Module> Run() {
    if (!jaxpr_.top.valid()) return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ": no jaxpr"));
    module_.name = module_.Intern(jaxpr_.source_name);
    const Jaxpr& top = jaxpr_.jaxpr(jaxpr_.top);
    const ComputationId entry = NewComputation("main");
    Env env;
    for (JaxprVarId v : top.constvars) {
      env[v.value()] = Add(entry, jaxpr_.var(v).name, Opcode::kConstant, ShapeOf(jaxpr_.var(v).aval), {});
    }
    for (size_t k = 0; k < top.invars.size(); ++k) {
      const JaxprVar& var = jaxpr_.var(top.invars[k]);
      const InstructionId p = Parameter(entry, var.name, ShapeOf(var.aval), static_cast<int64_t>(k));
      ir::OpMetadata metadata;
      metadata.op_name = module_.instruction(p).name;
      module_.mutable_instruction(p).metadata = module_.StoreMetadata(metadata);
      env[top.invars[k].value()] = p;
    }
    ASSIGN_OR_RETURN(Ids outs, Body(entry, top, env, 0));
    SetRoot(entry, outs, "root");
    module_.entry = entry;
    module_.gaps.push_back(GraphGap::kAttributes);
    return std::move(module_);
  }

 private:
  ComputationId NewComputation(std::string name) {
    Computation c;
    c.name = module_.Intern(std::move(name));
    return module_.AddComputation(std::move(c));
  }

  InstructionId Add(ComputationId c, std::string_view name, Opcode opcode, Shape shape, Ids operands,
                    std::string_view text = {}) {
    Instruction i;
    i.computation = c;
    i.name = module_.Intern(std::string(name));
    i.opcode = opcode;
    i.opcode_text = text.empty() ? OpcodeName(opcode) : module_.Intern(std::string(text));
    i.shape = module_.InternShape(shape);
    i.operands = std::move(operands);
    if (eqn_ != nullptr) {
      OpMetadata metadata;
      metadata.op_type = module_.Intern(eqn_->primitive);
      if (!eqn_->name_stack.empty()) metadata.op_name = module_.Intern(eqn_->name_stack);
      if (!eqn_->source.file.empty()) {
        metadata.source_file = module_.Intern(eqn_->source.file);
        metadata.source_line = eqn_->source.line;
      }
      i.metadata = module_.StoreMetadata(metadata);
    }
    const InstructionId id = module_.AddInstruction(std::move(i));
    module_.mutable_computation(c).instructions.push_back(id);
    return id;
  }

  InstructionId Parameter(ComputationId c, std::string_view name, Shape shape, int64_t number) {
    const InstructionId p = Add(c, name, Opcode::kParameter, std::move(shape), {});
    module_.mutable_attributes(p).parameter_number = number;
    module_.mutable_computation(c).parameters.push_back(p);
    return p;
  }

  InstructionId Constant(ComputationId c, Shape shape) {
    return Add(c, StrCat("constant.", module_.instruction_count()), Opcode::kConstant, std::move(shape), {});
  }

  InstructionId Tuple(ComputationId c, std::string_view name, const Ids& elements) {
    Shape shape;
    shape.dtype = DType::kTuple;
    for (InstructionId e : elements) shape.tuple_elements.push_back(module_.instruction(e).shape);
    return Add(c, name, Opcode::kTuple, std::move(shape), elements);
  }

  InstructionId Element(ComputationId c, InstructionId tuple, int64_t k, std::string_view name = {}) {
    const Shape& shape = module_.instruction(tuple).shape;
    Shape element = k < static_cast<int64_t>(shape.tuple_elements.size())
                        ? shape.tuple_elements[static_cast<size_t>(k)]
                        : Shape{};
    const InstructionId g = Add(c, name.empty() ? StrCat("get-tuple-element.", module_.instruction_count()) : name,
                                Opcode::kGetTupleElement, std::move(element), {tuple});
    module_.mutable_attributes(g).tuple_index = k;
    return g;
  }

  // Computation `c` returns `outs`: the only one, or their tuple.
  void SetRoot(ComputationId c, const Ids& outs, std::string_view name) {
    InstructionId root;
    if (outs.size() == 1) {
      root = outs[0];
    } else {
      root = Tuple(c, StrCat(name, ".", c.value()), outs);
    }
    module_.mutable_instruction(root).is_root = true;
    module_.mutable_computation(c).root = root;
  }

  // A new computation taking one tuple of `shape`, and its elements.
  std::pair<ComputationId, Ids> TupleComputation(std::string name, Shape shape) {
    const ComputationId c = NewComputation(std::move(name));
    const InstructionId p = Parameter(c, StrCat("param.", c.value()), shape, 0);
    Ids elements;
    for (size_t k = 0; k < shape.tuple_elements.size(); ++k) {
      elements.push_back(Element(c, p, static_cast<int64_t>(k)));
    }
    return {c, std::move(elements)};
  }

  absl::Status Check(int32_t depth) const {
    if (static_cast<int64_t>(module_.instruction_count()) > options_.max_instructions) {
      return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ": lowering the jaxpr takes more than ",
                                               options_.max_instructions, " instructions"));
    }
    if (depth > options_.max_depth) {
      return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ": calls and loops nest deeper than ",
                                               options_.max_depth));
    }
    return absl::OkStatus();
  }

  // Lowers `j`'s equations into `c`, its inputs bound in `env`; returns its
  // outputs.
  absl::StatusOr<Ids> Body(ComputationId c, const Jaxpr& j, Env& env, int32_t depth) {
    for (JaxprEqnId e : j.eqns) RETURN_IF_ERROR(Equation(c, jaxpr_.eqn(e), env, depth));
    Ids outs;
    for (const JaxprAtom& a : j.outvars) outs.push_back(Operand(c, a, env));
    return outs;
  }

  // `j` inlined into `c` with `args` for its inputs.
  absl::StatusOr<Ids> Inline(ComputationId c, JaxprId id, const Ids& args, int32_t depth) {
    RETURN_IF_ERROR(Check(depth));
    const Jaxpr& j = jaxpr_.jaxpr(id);
    Env env;
    for (JaxprVarId v : j.constvars) env[v.value()] = Constant(c, ShapeOf(jaxpr_.var(v).aval));
    for (size_t k = 0; k < j.invars.size() && k < args.size(); ++k) env[j.invars[k].value()] = args[k];
    return Body(c, j, env, depth);
  }

  bool Takes(JaxprId id, size_t operands) const {
    return id.valid() && jaxpr_.jaxpr(id).invars.size() == operands;
  }

  InstructionId Operand(ComputationId c, const JaxprAtom& a, const Env& env) {
    if (!a.IsLiteral()) {
      auto it = env.find(a.var.value());
      if (it != env.end()) return it->second;
    }
    return Constant(c, ShapeOf(a.IsLiteral() ? a.literal_aval : jaxpr_.var(a.var).aval));
  }

  void Bind(const JaxprEqn& eqn, const Ids& outs, Env& env) {
    for (size_t k = 0; k < eqn.outvars.size() && k < outs.size(); ++k) env[eqn.outvars[k].value()] = outs[k];
  }

  absl::Status Equation(ComputationId c, const JaxprEqn& eqn, Env& env, int32_t depth) {
    if (AllDropped(jaxpr_, eqn)) return absl::OkStatus();
    RETURN_IF_ERROR(Check(depth));
    const JaxprEqn* saved = eqn_;
    eqn_ = &eqn;
    absl::Status status = Lower(c, eqn, env, depth);
    eqn_ = saved;
    return status;
  }

  absl::Status Lower(ComputationId c, const JaxprEqn& eqn, Env& env, int32_t depth) {
    Ids operands;
    for (const JaxprAtom& a : eqn.invars) operands.push_back(Operand(c, a, env));
    if (IsJaxprIdentity(eqn.primitive) && operands.size() == eqn.outvars.size()) {
      Bind(eqn, operands, env);
      return absl::OkStatus();
    }
    const JaxprOpMapping* mapping = JaxprOpFor(eqn.primitive);
    if (mapping == nullptr) {
      if (eqn.primitive == "scan") return Scan(c, eqn, operands, env, depth);
      if (eqn.primitive == "while") return While(c, eqn, operands, env, depth);
      if (eqn.primitive == "cond") return Cond(c, eqn, operands, env, depth);
      const JaxprEqn::Called* callee = CalleeOf(eqn);
      if (callee != nullptr && Takes(callee->jaxpr, operands.size())) {
        ASSIGN_OR_RETURN(Ids outs, Inline(c, callee->jaxpr, operands, depth + 1));
        Bind(eqn, outs, env);
        return absl::OkStatus();
      }
    }
    Plain(c, eqn, mapping, std::move(operands), env);
    return absl::OkStatus();
  }

  // One instruction for the equation (kUnknown without a mapping).
  void Plain(ComputationId c, const JaxprEqn& eqn, const JaxprOpMapping* mapping, Ids operands, Env& env) {
    const Opcode opcode = mapping != nullptr ? mapping->opcode : Opcode::kUnknown;
    Shape shape;
    if (eqn.outvars.size() == 1) {
      shape = ShapeOf(jaxpr_.var(eqn.outvars[0]).aval);
    } else {
      shape.dtype = DType::kTuple;
      for (JaxprVarId v : eqn.outvars) shape.tuple_elements.push_back(ShapeOf(jaxpr_.var(v).aval));
    }
    const std::string name = eqn.outvars.size() == 1 ? jaxpr_.var(eqn.outvars[0]).name
                                                     : StrCat(eqn.primitive, ".", eqn.id.value());
    const InstructionId id = Add(c, name, opcode, std::move(shape), std::move(operands),
                                 opcode == Opcode::kUnknown ? std::string_view(eqn.primitive) : std::string_view());
    SetJaxprAttributes(eqn, mapping, &module_, id);
    if (eqn.outvars.size() == 1) {
      env[eqn.outvars[0].value()] = id;
      return;
    }
    Ids outs;
    for (size_t k = 0; k < eqn.outvars.size(); ++k) {
      outs.push_back(Element(c, id, static_cast<int64_t>(k), jaxpr_.var(eqn.outvars[k]).name));
    }
    Bind(eqn, outs, env);
  }

  // The outputs of loop `w` at tuple positions first, first + 1, ...
  void BindElements(ComputationId c, const JaxprEqn& eqn, InstructionId w, size_t first, size_t count,
                    size_t var_offset, Env& env) {
    for (size_t k = 0; k < count && var_offset + k < eqn.outvars.size(); ++k) {
      const JaxprVar& var = jaxpr_.var(eqn.outvars[var_offset + k]);
      if (var.kind == JaxprVar::Kind::kDrop) continue;
      env[var.id.value()] = Element(c, w, static_cast<int64_t>(first + k), var.name);
    }
  }

  InstructionId Loop(ComputationId c, const JaxprEqn& eqn, InstructionId init, ComputationId body,
                     ComputationId condition) {
    const InstructionId w = Add(c, StrCat("while.", eqn.id.value()), Opcode::kWhile,
                                module_.instruction(init).shape, {init});
    module_.mutable_instruction(w).calls = {{body, CallRole::kWhileBody}, {condition, CallRole::kWhileCondition}};
    return w;
  }

  // How a scan's operands (consts, carry, xs) and outputs (carry, ys) divide.
  struct ScanLayout { size_t consts, carry, xs, ys; };

  // The scan's layout; nullopt when a param is missing, negative or does not fit.
  std::optional<ScanLayout> ScanLayoutOf(const JaxprEqn& eqn, const Ids& operands,
                                         const JaxprEqn::Called* body) const {
    const auto nc = IntParam(eqn, "num_consts");
    const auto ncarry = IntParam(eqn, "num_carry");
    const auto length = IntParam(eqn, "length");
    if (body == nullptr || !nc || !ncarry || !length || *nc < 0 || *ncarry < 0 ||
        static_cast<size_t>(*nc + *ncarry) > operands.size() ||
        static_cast<size_t>(*ncarry) > eqn.outvars.size() || !Takes(body->jaxpr, operands.size())) {
      return std::nullopt;
    }
    const size_t consts = static_cast<size_t>(*nc), carry = static_cast<size_t>(*ncarry);
    return ScanLayout{consts, carry, operands.size() - consts - carry, eqn.outvars.size() - carry};
  }

  // The loop's initial tuple in `c`: (counter 0, operands, a zero broadcast per ys).
  InstructionId ScanInit(ComputationId c, const JaxprEqn& eqn, const Ids& operands, const ScanLayout& l) {
    Ids state = {Constant(c, Scalar(DType::kS32))};
    state.insert(state.end(), operands.begin(), operands.end());
    for (size_t k = 0; k < l.ys; ++k) {
      const Shape full = ShapeOf(jaxpr_.var(eqn.outvars[l.carry + k]).aval);
      const InstructionId zero = Constant(c, Scalar(full.dtype));
      const InstructionId b = Add(c, StrCat("ys.", k), Opcode::kBroadcast, full, {zero});
      module_.mutable_attributes(b).dimensions = {};
      state.push_back(b);
    }
    return Tuple(c, StrCat("scan.init.", eqn.id.value()), state);
  }

  // Start indices of row `i` in `rank` dims: (i, zero, zero, ...).
  static Ids RowStart(InstructionId i, InstructionId zero, size_t rank) {
    Ids at = {i};
    for (size_t d = 1; d < rank; ++d) at.push_back(zero);
    return at;
  }

  // `full`'s shape with its leading dim (if any) set to 1: one scan row.
  Shape RowShape(InstructionId full) const {
    Shape one = module_.instruction(full).shape;
    if (!one.dims.empty()) one.dims[0] = 1;
    return one;
  }

  // The body's arguments in `b`: consts, carry, then row g[0] of each xs as its invar.
  Ids ScanBodyArgs(ComputationId b, const Ids& g, InstructionId index_zero, const Jaxpr& body_jaxpr,
                   const ScanLayout& l) {
    Ids args(g.begin() + 1, g.begin() + 1 + static_cast<std::ptrdiff_t>(l.consts + l.carry));
    for (size_t k = 0; k < l.xs; ++k) {
      const InstructionId full = g[1 + l.consts + l.carry + k];
      const Shape one = RowShape(full);
      Ids ds_operands = {full};
      for (InstructionId at : RowStart(g[0], index_zero, one.dims.size())) ds_operands.push_back(at);
      const InstructionId ds = Add(b, StrCat("xs.", k), Opcode::kDynamicSlice, one, ds_operands);
      module_.mutable_attributes(ds).dynamic_slice_sizes = one.dims;
      const JaxprVar& slice = jaxpr_.var(body_jaxpr.invars[l.consts + l.carry + k]);
      args.push_back(Add(b, slice.name, Opcode::kReshape, ShapeOf(slice.aval), {ds}));
    }
    return args;
  }

  // The next state (counter + 1, consts, carry `outs`, xs, ys with row g[0] set from
  // `outs`); shorter than `g` when `outs` has too few values.
  Ids ScanNext(ComputationId b, const Ids& g, InstructionId index_zero, const Ids& outs, const ScanLayout& l) {
    const InstructionId i = g[0];
    Ids next = {Add(b, "i.next", Opcode::kAdd, Scalar(DType::kS32), {i, Constant(b, Scalar(DType::kS32))})};
    next.insert(next.end(), g.begin() + 1, g.begin() + 1 + static_cast<std::ptrdiff_t>(l.consts));
    for (size_t k = 0; k < l.carry && k < outs.size(); ++k) next.push_back(outs[k]);
    next.insert(next.end(), g.begin() + 1 + static_cast<std::ptrdiff_t>(l.consts + l.carry),
                g.begin() + 1 + static_cast<std::ptrdiff_t>(l.consts + l.carry + l.xs));
    for (size_t k = 0; k < l.ys && l.carry + k < outs.size(); ++k) {
      const InstructionId full = g[1 + l.consts + l.carry + l.xs + k];
      const Shape one = RowShape(full);
      const InstructionId update = Add(b, StrCat("y.", k), Opcode::kReshape, one, {outs[l.carry + k]});
      Ids dus_operands = {full, update};
      for (InstructionId at : RowStart(i, index_zero, one.dims.size())) dus_operands.push_back(at);
      next.push_back(Add(b, StrCat("ys.next.", k), Opcode::kDynamicUpdateSlice, module_.instruction(full).shape,
                         dus_operands));
    }
    return next;
  }

  // The scan's loop body over `shape`; an error unless it returns carry + ys values.
  absl::StatusOr<ComputationId> ScanBody(const JaxprEqn& eqn, const JaxprEqn::Called& body, const Shape& shape,
                                         const ScanLayout& l, int32_t depth) {
    auto [b, g] = TupleComputation(StrCat("scan_body.", eqn.id.value()), shape);
    const InstructionId index_zero = Constant(b, Scalar(DType::kS32));
    const Ids args = ScanBodyArgs(b, g, index_zero, jaxpr_.jaxpr(body.jaxpr), l);
    ASSIGN_OR_RETURN(Ids outs, Inline(b, body.jaxpr, args, depth + 1));
    const Ids next = ScanNext(b, g, index_zero, outs, l);
    if (next.size() != g.size()) {
      return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ":", eqn.input_line,
                                               ": scan body returns ", outs.size(), " values, expected ",
                                               l.carry + l.ys));
    }
    SetRoot(b, next, "scan.next");
    return b;
  }

  // scan: a while over (counter, consts, carry, xs, ys); kUnknown when params misfit.
  absl::Status Scan(ComputationId c, const JaxprEqn& eqn, const Ids& operands, Env& env, int32_t depth) {
    const JaxprEqn::Called* body = CalleeOf(eqn, "jaxpr");
    const std::optional<ScanLayout> layout = ScanLayoutOf(eqn, operands, body);
    if (!layout) {
      Plain(c, eqn, nullptr, operands, env);
      return absl::OkStatus();
    }
    const ScanLayout& l = *layout;
    const InstructionId init = ScanInit(c, eqn, operands, l);
    const Shape shape = module_.instruction(init).shape;
    ASSIGN_OR_RETURN(ComputationId b, ScanBody(eqn, *body, shape, l, depth));
    auto [cond, cg] = TupleComputation(StrCat("scan_cond.", eqn.id.value()), shape);
    const InstructionId lt = Add(cond, "i.lt", Opcode::kCompare, Scalar(DType::kPred),
                                 {cg[0], Constant(cond, Scalar(DType::kS32))});
    module_.mutable_attributes(lt).comparison_direction = "LT";
    SetRoot(cond, {lt}, "scan.cond");
    const InstructionId w = Loop(c, eqn, init, b, cond);
    BindElements(c, eqn, w, 1 + l.consts, l.carry, 0, env);
    BindElements(c, eqn, w, 1 + l.consts + l.carry + l.xs, l.ys, l.carry, env);
    return absl::OkStatus();
  }

  // while: a while over (cond consts, body consts, carry).
  absl::Status While(ComputationId c, const JaxprEqn& eqn, const Ids& operands, Env& env, int32_t depth) {
    const JaxprEqn::Called* body = CalledAs(eqn, "body_jaxpr");
    const JaxprEqn::Called* cond = CalledAs(eqn, "cond_jaxpr");
    const auto cn = IntParam(eqn, "cond_nconsts");
    const auto bn = IntParam(eqn, "body_nconsts");
    if (body == nullptr || cond == nullptr || !cn || !bn || *cn < 0 || *bn < 0 ||
        static_cast<size_t>(*cn + *bn) > operands.size()) {
      Plain(c, eqn, nullptr, operands, env);
      return absl::OkStatus();
    }
    const size_t ncc = static_cast<size_t>(*cn), nbc = static_cast<size_t>(*bn);
    const size_t carry = operands.size() - ncc - nbc;
    if (!Takes(body->jaxpr, nbc + carry) || !Takes(cond->jaxpr, ncc + carry) ||
        jaxpr_.jaxpr(body->jaxpr).outvars.size() != carry) {
      Plain(c, eqn, nullptr, operands, env);
      return absl::OkStatus();
    }
    const InstructionId init = Tuple(c, StrCat("while.init.", eqn.id.value()), operands);
    const Shape shape = module_.instruction(init).shape;
    auto [b, g] = TupleComputation(StrCat("while_body.", eqn.id.value()), shape);
    ASSIGN_OR_RETURN(Ids outs, Inline(b, body->jaxpr, Ids(g.begin() + static_cast<std::ptrdiff_t>(ncc), g.end()),
                                      depth + 1));
    Ids next(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(ncc + nbc));
    next.insert(next.end(), outs.begin(), outs.end());
    SetRoot(b, next, "while.next");
    auto [k, kg] = TupleComputation(StrCat("while_cond.", eqn.id.value()), shape);
    Ids cond_args(kg.begin(), kg.begin() + static_cast<std::ptrdiff_t>(ncc));
    cond_args.insert(cond_args.end(), kg.begin() + static_cast<std::ptrdiff_t>(ncc + nbc), kg.end());
    ASSIGN_OR_RETURN(Ids pred, Inline(k, cond->jaxpr, cond_args, depth + 1));
    if (pred.size() != 1) {
      return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ":", eqn.input_line,
                                               ": while's cond_jaxpr returns ", pred.size(), " values"));
    }
    SetRoot(k, pred, "while.cond");
    const InstructionId w = Loop(c, eqn, init, b, k);
    BindElements(c, eqn, w, ncc + nbc, carry, 0, env);
    return absl::OkStatus();
  }

  // cond: a conditional whose branches take the operands' tuple.
  absl::Status Cond(ComputationId c, const JaxprEqn& eqn, const Ids& operands, Env& env, int32_t depth) {
    std::vector<JaxprId> branches;
    for (const JaxprEqn::Called& k : eqn.called) branches.push_back(k.jaxpr);
    bool ok = !branches.empty() && !operands.empty();
    for (JaxprId br : branches) ok = ok && Takes(br, operands.size() - 1);
    if (!ok) {
      Plain(c, eqn, nullptr, operands, env);
      return absl::OkStatus();
    }
    const InstructionId args = Tuple(c, StrCat("cond.args.", eqn.id.value()), Ids(operands.begin() + 1, operands.end()));
    Ids cond_operands = {operands[0]};
    std::vector<CalledComputation> calls;
    for (size_t k = 0; k < branches.size(); ++k) {
      auto [bc, g] = TupleComputation(StrCat("branch.", eqn.id.value(), ".", k), module_.instruction(args).shape);
      ASSIGN_OR_RETURN(Ids outs, Inline(bc, branches[k], g, depth + 1));
      if (outs.size() != eqn.outvars.size()) {
        return absl::InvalidArgumentError(StrCat(jaxpr_.source_name, ":", eqn.input_line, ": cond branch ", k,
                                                 " returns ", outs.size(), " values, expected ",
                                                 eqn.outvars.size()));
      }
      if (outs.empty()) outs.push_back(Tuple(bc, "empty", {}));
      SetRoot(bc, outs, "branch");
      calls.push_back({bc, CallRole::kBranch});
      cond_operands.push_back(args);
    }
    Shape shape;
    if (eqn.outvars.size() == 1) {
      shape = ShapeOf(jaxpr_.var(eqn.outvars[0]).aval);
    } else {
      shape.dtype = DType::kTuple;
      for (JaxprVarId v : eqn.outvars) shape.tuple_elements.push_back(ShapeOf(jaxpr_.var(v).aval));
    }
    const InstructionId x = Add(c, StrCat("conditional.", eqn.id.value()), Opcode::kConditional, std::move(shape),
                                std::move(cond_operands));
    module_.mutable_instruction(x).calls = std::move(calls);
    if (eqn.outvars.size() == 1) {
      env[eqn.outvars[0].value()] = x;
    } else {
      BindElements(c, eqn, x, 0, eqn.outvars.size(), 0, env);
    }
    return absl::OkStatus();
  }

  const JaxprModule& jaxpr_;
  const JaxprLoweringOptions& options_;
  Module module_;
  const JaxprEqn* eqn_ = nullptr;  // the equation being lowered (metadata)
};

}  // namespace

absl::StatusOr<Module> LowerJaxpr(const JaxprModule& jaxpr, const JaxprLoweringOptions& options) {
  return Lowering(jaxpr, options).Run();
}

}  // namespace memplan::ir
