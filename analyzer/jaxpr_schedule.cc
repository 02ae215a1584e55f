#include "analyzer/jaxpr_schedule.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_primitives.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

// Deeper than any jaxpr the parser accepts nests; bounds chains of shared
// jaxprs calling one another.
constexpr int kMaxDepth = 400;

using Env = absl::flat_hash_map<int64_t, int32_t>;  // var id -> buffer

class Scheduler {
 public:
  Scheduler(const ir::JaxprModule& module, const JaxprScheduleOptions& options, JaxprSchedule& out)
      : module_(module), options_(options), out_(out) {}

  absl::Status Run(ir::JaxprId top) {
    const ir::Jaxpr& j = module_.jaxpr(top);
    std::vector<int32_t> inputs;
    for (size_t i = 0; i < j.invars.size(); ++i) {
      const Tiles tiles = i < options_.input_tiles.size() ? options_.input_tiles[i] : Tiles();
      const int32_t b = NewBuffer(JaxprBuffer::Kind::kArgument, j.invars[i],
                                  module_.var(j.invars[i]).aval, 0, tiles);
      out_.buffers[b].argument = static_cast<int32_t>(i);
      out_.buffers[b].donated = i < options_.donated.size() && options_.donated[i];
      out_.arguments.push_back(b);
      inputs.push_back(b);
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> outs, Walk(top, inputs, -1, 0));
    for (int32_t b : outs) {
      if (b >= 0) out_.buffers[b].output = true;
      out_.outputs.push_back(b);
    }
    return absl::OkStatus();
  }

 private:
  int32_t Next() const { return static_cast<int32_t>(out_.steps.size()); }
  int32_t Last() const { return std::max<int32_t>(0, Next() - 1); }

  int32_t NewBuffer(JaxprBuffer::Kind kind, ir::JaxprVarId var, const ir::JaxprAval& aval,
                    int32_t step, Tiles tiles) {
    JaxprBuffer b;
    b.kind = kind;
    b.var = var;
    b.step = step;
    b.last_use = step;
    if (!tiles.empty() && tiles.size() != aval.dims.size()) tiles.clear();
    b.tiles = std::move(tiles);
    b.bytes = ShardBytes(aval, b.tiles);
    if (b.bytes < 0) {
      b.bytes = 0;
      ++out_.unknown_size_buffers;
    }
    out_.buffers.push_back(std::move(b));
    return static_cast<int32_t>(out_.buffers.size() - 1);
  }

  // Re-sizes buffer `b` for new tiles.
  void Retile(int32_t b, Tiles tiles) {
    JaxprBuffer& buffer = out_.buffers[b];
    if (!buffer.var.valid()) return;
    const ir::JaxprAval& aval = module_.var(buffer.var).aval;
    if (!tiles.empty() && tiles.size() != aval.dims.size()) tiles.clear();
    buffer.tiles = std::move(tiles);
    buffer.bytes = std::max<int64_t>(0, ShardBytes(aval, buffer.tiles));
  }

  // A region's body results: read at its last step, into the loop state.
  void Escape(const std::vector<int32_t>& buffers) {
    for (int32_t b : buffers) {
      Use(b, Last());
      if (b >= 0) out_.buffers[b].escapes = true;
    }
  }

  void Use(int32_t b, int32_t step) {
    if (b >= 0) out_.buffers[b].last_use = std::max(out_.buffers[b].last_use, step);
  }

  absl::StatusOr<int32_t> AddStep(const ir::JaxprEqn& eqn, int32_t parent) {
    if (Next() >= options_.max_steps) {
      return absl::InvalidArgumentError(StrCat(module_.source_name, ": the jaxpr flattens into more than ",
                                               options_.max_steps, " steps"));
    }
    out_.steps.push_back({eqn.id, parent, 0, {}, {}});
    return Next() - 1;
  }

  const Tiles& TilesOf(int32_t b) const {
    static const Tiles kReplicated;
    return b >= 0 ? out_.buffers[b].tiles : kReplicated;
  }

  // Buffers for `eqn`'s operands: a variable's buffer, -1 for a literal.
  std::vector<int32_t> Operands(const ir::JaxprEqn& eqn, const Env& env) const {
    std::vector<int32_t> ops;
    for (const ir::JaxprAtom& atom : eqn.invars) {
      auto it = atom.IsLiteral() ? env.end() : env.find(atom.var.value());
      ops.push_back(it == env.end() ? -1 : it->second);
    }
    return ops;
  }

  void Bind(Env& env, ir::JaxprVarId var, int32_t buffer) {
    if (module_.var(var).kind != ir::JaxprVar::Kind::kDrop) env[var.value()] = buffer;
  }

  absl::StatusOr<std::vector<int32_t>> Walk(ir::JaxprId id, const std::vector<int32_t>& inputs,
                                            int32_t parent, int depth) {
    if (depth + depth_offset_ > kMaxDepth) {
      return absl::InvalidArgumentError(
          StrCat(module_.source_name, ": jaxprs call one another more than ", kMaxDepth, " deep"));
    }
    const ir::Jaxpr& j = module_.jaxpr(id);
    Env env;
    for (ir::JaxprVarId c : j.constvars) {
      env[c.value()] = NewBuffer(JaxprBuffer::Kind::kConstant, c, module_.var(c).aval, Next(), {});
    }
    for (size_t i = 0; i < j.invars.size() && i < inputs.size(); ++i) {
      env[j.invars[i].value()] = inputs[i];
    }
    for (ir::JaxprEqnId e : j.eqns) RETURN_IF_ERROR(Equation(module_.eqn(e), env, parent, depth));
    std::vector<int32_t> outs;
    for (const ir::JaxprAtom& atom : j.outvars) {
      if (atom.IsLiteral()) {
        outs.push_back(NewBuffer(JaxprBuffer::Kind::kValue, ir::JaxprVarId(), atom.literal_aval, Last(), {}));
        continue;
      }
      auto it = env.find(atom.var.value());
      outs.push_back(it == env.end() ? -1 : it->second);
    }
    return outs;
  }

  absl::Status Equation(const ir::JaxprEqn& eqn, Env& env, int32_t parent, int depth) {
    const std::vector<int32_t> ops = Operands(eqn, env);
    switch (PrimitiveKind(module_, eqn)) {
      case JaxprPrimitiveKind::kCall:
        if (options_.inline_calls) return Call(eqn, ops, env, parent, depth);
        return Leaf(eqn, ops, env, parent, depth);
      case JaxprPrimitiveKind::kScan:
        return Scan(eqn, ops, env, parent, depth);
      case JaxprPrimitiveKind::kWhile:
        return While(eqn, ops, env, parent, depth);
      case JaxprPrimitiveKind::kCond:
        return Cond(eqn, ops, env, parent, depth);
      default:
        return Leaf(eqn, ops, env, parent, depth);
    }
  }

  // Literal operands of a call or region become constants: the callee
  // reads them as variables.
  std::vector<int32_t> Materialized(const ir::JaxprEqn& eqn, std::vector<int32_t> ops) {
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i] < 0 && eqn.invars[i].IsLiteral()) {
        ops[i] = NewBuffer(JaxprBuffer::Kind::kConstant, ir::JaxprVarId(), eqn.invars[i].literal_aval,
                           Next(), {});
      }
    }
    return ops;
  }

  absl::Status Leaf(const ir::JaxprEqn& eqn, const std::vector<int32_t>& ops, Env& env,
                    int32_t parent, int depth) {
    ASSIGN_OR_RETURN(const int32_t s, AddStep(eqn, parent));
    std::vector<Tiles> tiles;
    for (int32_t b : ops) {
      Use(b, s);
      tiles.push_back(TilesOf(b));
      if (b >= 0) out_.steps[s].reads.push_back(b);
    }
    if (PrimitiveKind(module_, eqn) == JaxprPrimitiveKind::kCall) {
      ASSIGN_OR_RETURN(const int64_t temp, OpaqueTemp(*CalleeOf(module_, eqn), tiles, depth));
      out_.steps[s].opaque_temp_bytes = temp;
    }
    for (size_t i = 0; i < eqn.outvars.size(); ++i) {
      const ir::JaxprVarId v = eqn.outvars[i];
      if (module_.var(v).kind == ir::JaxprVar::Kind::kDrop) continue;
      env[v.value()] = NewBuffer(JaxprBuffer::Kind::kValue, v, module_.var(v).aval, s,
                                 OutputTiles(module_, eqn, i, tiles));
      out_.steps[s].defines.push_back(env[v.value()]);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> OpaqueTemp(ir::JaxprId callee, const std::vector<Tiles>& tiles, int depth) {
    if (depth > kMaxDepth) {
      return absl::InvalidArgumentError(
          StrCat(module_.source_name, ": jaxprs call one another more than ", kMaxDepth, " deep"));
    }
    JaxprScheduleOptions sub = options_;
    sub.donated.clear();
    sub.input_tiles = tiles;
    JaxprSchedule schedule;
    Scheduler inner(module_, sub, schedule);
    inner.depth_offset_ = depth_offset_ + depth + 1;
    RETURN_IF_ERROR(inner.RunAt(callee));
    return ComputeJaxprLiveness(module_, schedule).temp_peak_bytes;
  }

  absl::Status RunAt(ir::JaxprId callee) {
    if (depth_offset_ > kMaxDepth) {
      return absl::InvalidArgumentError(
          StrCat(module_.source_name, ": jaxprs call one another more than ", kMaxDepth, " deep"));
    }
    return Run(callee);
  }

  absl::Status Call(const ir::JaxprEqn& eqn, const std::vector<int32_t>& ops, Env& env,
                    int32_t parent, int depth) {
    ++out_.inlined_calls;
    const std::vector<int32_t> inputs = Materialized(eqn, ops);
    ASSIGN_OR_RETURN(const int32_t header, AddStep(eqn, parent));
    for (int32_t b : inputs) Use(b, header);
    ASSIGN_OR_RETURN(std::vector<int32_t> outs,
                     Walk(*CalleeOf(module_, eqn), inputs, header, depth + 1));
    for (size_t i = 0; i < eqn.outvars.size() && i < outs.size(); ++i) Bind(env, eqn.outvars[i], outs[i]);
    return absl::OkStatus();
  }

  // The header step of a region and its outputs (the loop state, or the
  // branches' results), tiled like `like[i]` where given.
  absl::StatusOr<std::pair<int32_t, std::vector<int32_t>>> Header(const ir::JaxprEqn& eqn, int32_t parent,
                                                                  const std::vector<int32_t>& like) {
    ++out_.regions;
    ASSIGN_OR_RETURN(const int32_t header, AddStep(eqn, parent));
    std::vector<int32_t> outs;
    for (size_t i = 0; i < eqn.outvars.size(); ++i) {
      const ir::JaxprVarId v = eqn.outvars[i];
      const Tiles tiles = i < like.size() ? TilesOf(like[i]) : Tiles();
      outs.push_back(NewBuffer(JaxprBuffer::Kind::kValue, v, module_.var(v).aval, header, tiles));
    }
    out_.steps[header].defines = outs;
    return std::make_pair(header, outs);
  }

  // After a region: its operands and outputs are live to its last step.
  void EndRegion(const ir::JaxprEqn& eqn, int32_t header, const std::vector<int32_t>& ops,
                 const std::vector<int32_t>& outs, Env& env) {
    for (int32_t b : ops) {
      Use(b, Last());
      if (b >= 0) out_.steps[header].reads.push_back(b);
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      Use(outs[i], Last());
      Bind(env, eqn.outvars[i], outs[i]);
    }
  }

  absl::Status Scan(const ir::JaxprEqn& eqn, const std::vector<int32_t>& operands, Env& env,
                    int32_t parent, int depth) {
    const ir::JaxprId body = CalledJaxpr(eqn, "jaxpr");
    const int64_t consts = IntParam(eqn, "num_consts").value_or(-1);
    const int64_t carry = IntParam(eqn, "num_carry").value_or(-1);
    const int64_t n = static_cast<int64_t>(eqn.invars.size());
    if (!body.valid() || consts < 0 || carry < 0 || consts + carry > n ||
        module_.jaxpr(body).invars.size() != eqn.invars.size() ||
        module_.jaxpr(body).outvars.size() != eqn.outvars.size() ||
        carry > static_cast<int64_t>(eqn.outvars.size())) {
      return Leaf(eqn, operands, env, parent, depth);
    }
    const std::vector<int32_t> ops = Materialized(eqn, operands);
    std::vector<int32_t> like(ops.begin() + consts, ops.begin() + consts + carry);
    ASSIGN_OR_RETURN(auto header, Header(eqn, parent, like));
    auto& [h, outs] = header;
    const ir::Jaxpr& b = module_.jaxpr(body);
    std::vector<int32_t> inputs(ops.begin(), ops.begin() + consts);
    inputs.insert(inputs.end(), outs.begin(), outs.begin() + carry);
    for (int64_t i = consts + carry; i < n; ++i) {
      Tiles tiles = TilesOf(ops[i]);
      if (!tiles.empty()) tiles.erase(tiles.begin());
      const ir::JaxprVarId v = b.invars[i];
      inputs.push_back(NewBuffer(JaxprBuffer::Kind::kLoopSlice, v, module_.var(v).aval, Next(), tiles));
    }
    ASSIGN_OR_RETURN(std::vector<int32_t> body_outs, Walk(body, inputs, h, depth + 1));
    Escape(body_outs);
    for (size_t i = carry; i < outs.size() && i < body_outs.size(); ++i) {
      Tiles tiles = TilesOf(body_outs[i]);
      if (!tiles.empty()) tiles.insert(tiles.begin(), 1);
      Retile(outs[i], std::move(tiles));
    }
    EndRegion(eqn, h, ops, outs, env);
    return absl::OkStatus();
  }

  absl::Status While(const ir::JaxprEqn& eqn, const std::vector<int32_t>& operands, Env& env,
                     int32_t parent, int depth) {
    const ir::JaxprId cond = CalledJaxpr(eqn, "cond_jaxpr");
    const ir::JaxprId body = CalledJaxpr(eqn, "body_jaxpr");
    const int64_t cn = IntParam(eqn, "cond_nconsts").value_or(-1);
    const int64_t bn = IntParam(eqn, "body_nconsts").value_or(-1);
    const int64_t n = static_cast<int64_t>(eqn.invars.size());
    const int64_t carry = n - cn - bn;
    if (!cond.valid() || !body.valid() || cn < 0 || bn < 0 || carry < 0 ||
        carry != static_cast<int64_t>(eqn.outvars.size()) ||
        static_cast<int64_t>(module_.jaxpr(cond).invars.size()) != cn + carry ||
        static_cast<int64_t>(module_.jaxpr(body).invars.size()) != bn + carry) {
      return Leaf(eqn, operands, env, parent, depth);
    }
    const std::vector<int32_t> ops = Materialized(eqn, operands);
    std::vector<int32_t> like(ops.begin() + cn + bn, ops.end());
    ASSIGN_OR_RETURN(auto header, Header(eqn, parent, like));
    auto& [h, outs] = header;
    std::vector<int32_t> cond_in(ops.begin(), ops.begin() + cn);
    cond_in.insert(cond_in.end(), outs.begin(), outs.end());
    ASSIGN_OR_RETURN(std::vector<int32_t> cond_outs, Walk(cond, cond_in, h, depth + 1));
    Escape(cond_outs);
    std::vector<int32_t> body_in(ops.begin() + cn, ops.begin() + cn + bn);
    body_in.insert(body_in.end(), outs.begin(), outs.end());
    ASSIGN_OR_RETURN(std::vector<int32_t> body_outs, Walk(body, body_in, h, depth + 1));
    Escape(body_outs);
    EndRegion(eqn, h, ops, outs, env);
    return absl::OkStatus();
  }

  absl::Status Cond(const ir::JaxprEqn& eqn, const std::vector<int32_t>& operands, Env& env,
                    int32_t parent, int depth) {
    std::vector<ir::JaxprId> branches;
    for (const ir::JaxprEqn::Called& c : eqn.called) {
      const ir::Jaxpr& j = module_.jaxpr(c.jaxpr);
      if (j.invars.size() + 1 != eqn.invars.size() || j.outvars.size() != eqn.outvars.size()) {
        return Leaf(eqn, operands, env, parent, depth);
      }
      branches.push_back(c.jaxpr);
    }
    if (branches.empty()) return Leaf(eqn, operands, env, parent, depth);
    const std::vector<int32_t> ops = Materialized(eqn, operands);
    ASSIGN_OR_RETURN(auto header, Header(eqn, parent, {}));
    auto& [h, outs] = header;
    const std::vector<int32_t> inputs(ops.begin() + 1, ops.end());
    for (size_t k = 0; k < branches.size(); ++k) {
      ASSIGN_OR_RETURN(std::vector<int32_t> branch_outs, Walk(branches[k], inputs, h, depth + 1));
      Escape(branch_outs);
      if (k > 0) continue;
      for (size_t i = 0; i < outs.size() && i < branch_outs.size(); ++i) {
        Retile(outs[i], TilesOf(branch_outs[i]));
      }
    }
    EndRegion(eqn, h, ops, outs, env);
    return absl::OkStatus();
  }

  const ir::JaxprModule& module_;
  const JaxprScheduleOptions& options_;
  JaxprSchedule& out_;
  int depth_offset_ = 0;
};

}  // namespace

absl::StatusOr<JaxprSchedule> ScheduleJaxpr(const ir::JaxprModule& module,
                                            const JaxprScheduleOptions& options) {
  JaxprSchedule schedule;
  if (!module.top.valid()) {
    return absl::InvalidArgumentError(StrCat(module.source_name, ": no jaxpr"));
  }
  Scheduler scheduler(module, options, schedule);
  RETURN_IF_ERROR(scheduler.Run(module.top));
  return schedule;
}

}  // namespace memplan::analyzer
