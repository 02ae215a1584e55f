#include "analyzer/jaxpr_flops.h"

#include <algorithm>
#include <vector>

#include "analyzer/jaxpr_primitives.h"
#include "ir/convolution.h"

namespace memplan::analyzer {
namespace {

const ir::JaxprAval& AvalOf(const ir::JaxprModule& module, const ir::JaxprAtom& atom) {
  return atom.IsLiteral() ? atom.literal_aval : module.var(atom.var).aval;
}

double Elements(const ir::JaxprAval& aval) {
  const int64_t n = aval.ElementCount();
  return n < 0 ? -1 : static_cast<double>(n);
}

// The elements of every output, or -1 when one is unknown.
double OutputElements(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  double total = 0;
  for (ir::JaxprVarId out : eqn.outvars) {
    const double n = Elements(module.var(out).aval);
    if (n < 0) return -1;
    total += n;
  }
  return total;
}

int64_t Dim(const ir::JaxprAval& aval, int64_t d) {
  return d >= 0 && d < static_cast<int64_t>(aval.dims.size()) ? aval.dims[d] : -1;
}

std::optional<double> DotFlops(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  const std::optional<ir::DotDimensionNumbers> d = ir::DotGeneralDimensions(eqn);
  if (!d || eqn.invars.size() != 2 || eqn.outvars.size() != 1) return std::nullopt;
  const ir::JaxprAval& lhs = AvalOf(module, eqn.invars[0]);
  double width = 1;
  for (int64_t c : d->lhs_contracting) {
    if (Dim(lhs, c) < 0) return std::nullopt;
    width *= static_cast<double>(Dim(lhs, c));
  }
  const double out = Elements(module.var(eqn.outvars[0]).aval);
  if (out < 0) return std::nullopt;
  return 2 * out * width;
}

std::optional<double> ConvFlops(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  const std::optional<ir::ConvolutionDimensionNumbers> d = ir::ConvGeneralDimensions(eqn);
  if (!d || eqn.invars.size() != 2 || eqn.outvars.size() != 1) return std::nullopt;
  const ir::JaxprAval& lhs = AvalOf(module, eqn.invars[0]);
  const ir::JaxprAval& rhs = AvalOf(module, eqn.invars[1]);
  const ir::JaxprAval& out = module.var(eqn.outvars[0]).aval;
  std::vector<int64_t> kernel_sizes;
  for (int64_t s : d->kernel_spatial) kernel_sizes.push_back(Dim(rhs, s));
  const std::optional<ir::Window> window = ir::ConvGeneralWindow(eqn, kernel_sizes);
  if (!window) return std::nullopt;
  double positions = 1;
  for (size_t s = 0; s < window->dimensions.size(); ++s) {
    const int64_t input = Dim(lhs, d->input_spatial[s]);
    const int64_t kernel = kernel_sizes[s];
    const int64_t output = Dim(out, d->output_spatial[s]);
    if (input < 0 || kernel < 0 || output < 0) return std::nullopt;
    positions *= static_cast<double>(
        ir::ConvolutionValidPositions(input, kernel, output, window->dimensions[s]));
  }
  const int64_t features = Dim(lhs, d->input_feature);
  const int64_t batch = Dim(lhs, d->input_batch);
  const int64_t out_features = Dim(out, d->output_feature);
  if (features < 0 || batch < 0 || out_features < 0) return std::nullopt;
  const int64_t feature_groups = std::max<int64_t>(1, IntParam(eqn, "feature_group_count").value_or(1));
  const int64_t batch_groups = std::max<int64_t>(1, IntParam(eqn, "batch_group_count").value_or(1));
  return 2 * static_cast<double>(features / feature_groups) * static_cast<double>(out_features) *
         static_cast<double>(batch / batch_groups) * positions;
}

JaxprFlops Uncounted() {
  JaxprFlops f;
  f.uncounted_equations = 1;
  return f;
}

// Counts each jaxpr once however often it is called (shared jaxprs).
class FlopCounter {
 public:
  explicit FlopCounter(const ir::JaxprModule& module)
      : module_(module), memo_(module.jaxprs.size()) {}

  JaxprFlops Jaxpr(ir::JaxprId id) {
    std::optional<JaxprFlops>& slot = memo_[static_cast<size_t>(id.value())];
    if (!slot) {
      slot = JaxprFlops();  // a (malformed) recursive call counts as nothing
      JaxprFlops total;
      for (ir::JaxprEqnId e : module_.jaxpr(id).eqns) total += Equation(module_.eqn(e));
      slot = total;
    }
    return *slot;
  }

  JaxprFlops Equation(const ir::JaxprEqn& eqn);

 private:
  // A scan's body times its length; a while's condition and body once; a
  // cond's costliest branch.
  JaxprFlops Scan(const ir::JaxprEqn& eqn);
  JaxprFlops While(const ir::JaxprEqn& eqn);
  JaxprFlops Cond(const ir::JaxprEqn& eqn);

  const ir::JaxprModule& module_;
  std::vector<std::optional<JaxprFlops>> memo_;
};

}  // namespace

JaxprFlops& JaxprFlops::operator+=(const JaxprFlops& other) {
  matmul += other.matmul;
  elementwise += other.elementwise;
  transcendentals += other.transcendentals;
  uncounted_equations += other.uncounted_equations;
  while_loops += other.while_loops;
  return *this;
}

JaxprFlops EquationFlops(const ir::JaxprModule& module, const ir::JaxprEqn& eqn) {
  return FlopCounter(module).Equation(eqn);
}

JaxprFlops CountJaxprFlops(const ir::JaxprModule& module, ir::JaxprId jaxpr) {
  return FlopCounter(module).Jaxpr(jaxpr);
}

namespace {

// The flops of an equation that calls no jaxpr.
JaxprFlops LeafFlops(const ir::JaxprModule& module, const ir::JaxprEqn& eqn, JaxprPrimitiveKind kind) {
  JaxprFlops f;
  switch (kind) {
    case JaxprPrimitiveKind::kDotGeneral:
    case JaxprPrimitiveKind::kConvolution: {
      const std::optional<double> flops =
          kind == JaxprPrimitiveKind::kDotGeneral ? DotFlops(module, eqn) : ConvFlops(module, eqn);
      if (!flops) return Uncounted();
      f.matmul = *flops;
      return f;
    }
    case JaxprPrimitiveKind::kElementwise:
    case JaxprPrimitiveKind::kCumulative:
    case JaxprPrimitiveKind::kTranscendental: {
      const double n = OutputElements(module, eqn);
      if (n < 0) return Uncounted();
      (kind == JaxprPrimitiveKind::kTranscendental ? f.transcendentals : f.elementwise) = n;
      return f;
    }
    case JaxprPrimitiveKind::kReduction: {
      if (eqn.invars.empty()) return Uncounted();
      const double in = Elements(AvalOf(module, eqn.invars[0]));
      const double out = OutputElements(module, eqn) / static_cast<double>(eqn.outvars.size());
      if (in < 0 || out < 0) return Uncounted();
      f.elementwise = in - out;
      return f;
    }
    case JaxprPrimitiveKind::kDataMovement:
      return f;
    default:
      return Uncounted();
  }
}

}  // namespace

JaxprFlops FlopCounter::Scan(const ir::JaxprEqn& eqn) {
  const ir::JaxprId body = CalledJaxpr(eqn, "jaxpr");
  if (!body.valid()) return Uncounted();
  const JaxprFlops once = Jaxpr(body);
  const double length = static_cast<double>(IntParam(eqn, "length").value_or(1));
  JaxprFlops f;
  f.matmul = once.matmul * length;
  f.elementwise = once.elementwise * length;
  f.transcendentals = once.transcendentals * length;
  f.uncounted_equations = once.uncounted_equations;
  f.while_loops = once.while_loops;
  return f;
}

JaxprFlops FlopCounter::While(const ir::JaxprEqn& eqn) {
  JaxprFlops f;
  for (std::string_view role : {"cond_jaxpr", "body_jaxpr"}) {
    const ir::JaxprId j = CalledJaxpr(eqn, role);
    if (j.valid()) f += Jaxpr(j);
  }
  ++f.while_loops;
  return f;
}

JaxprFlops FlopCounter::Cond(const ir::JaxprEqn& eqn) {
  JaxprFlops f;
  bool any = false;
  for (const ir::JaxprEqn::Called& c : eqn.called) {
    const JaxprFlops branch = Jaxpr(c.jaxpr);
    if (!any || branch.flops() > f.flops()) f = branch;
    any = true;
  }
  return any ? f : Uncounted();
}

JaxprFlops FlopCounter::Equation(const ir::JaxprEqn& eqn) {
  const JaxprPrimitiveKind kind = PrimitiveKind(module_, eqn);
  switch (kind) {
    case JaxprPrimitiveKind::kCall:
      return Jaxpr(*CalleeOf(module_, eqn));
    case JaxprPrimitiveKind::kScan:
      return Scan(eqn);
    case JaxprPrimitiveKind::kWhile:
      return While(eqn);
    case JaxprPrimitiveKind::kCond:
      return Cond(eqn);
    default:
      return LeafFlops(module_, eqn, kind);
  }
}

}  // namespace memplan::analyzer
