// What each jaxpr primitive lowers to: its HLO opcode and the typed
// attributes its parameters give (ir/jaxpr_lowering_ops.h).
#include "ir/jaxpr_lowering_ops.h"

#include <string_view>

namespace memplan::ir {
namespace {

constexpr JaxprOpMapping kOpcodes[] = {
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
    {"exp", Opcode::kExp},          {"exp2", Opcode::kExp},
    {"expm1", Opcode::kExpm1},
    {"floor", Opcode::kFloor},      {"gather", Opcode::kGather},
    {"ge", Opcode::kCompare, "GE"}, {"gt", Opcode::kCompare, "GT"},
    {"integer_pow", Opcode::kMultiply},
    {"iota", Opcode::kIota},        {"is_finite", Opcode::kIsFinite},
    {"le", Opcode::kCompare, "LE"}, {"log", Opcode::kLog},
    {"log1p", Opcode::kLog1p},      {"logistic", Opcode::kLogistic},
    {"lt", Opcode::kCompare, "LT"}, {"max", Opcode::kMaximum},
    {"min", Opcode::kMinimum},      {"mul", Opcode::kMultiply},
    {"ne", Opcode::kCompare, "NE"}, {"neg", Opcode::kNegate},
    {"not", Opcode::kNot},          {"or", Opcode::kOr},
    {"pad", Opcode::kPad},          {"pow", Opcode::kPower},
    {"reduce_and", Opcode::kReduce}, {"reduce_max", Opcode::kReduce},
    {"reduce_min", Opcode::kReduce}, {"reduce_or", Opcode::kReduce},
    {"reduce_precision", Opcode::kReducePrecision},
    {"reduce_prod", Opcode::kReduce}, {"reduce_sum", Opcode::kReduce},
    {"argmax", Opcode::kReduce},    {"argmin", Opcode::kReduce},
    {"rem", Opcode::kRemainder},    {"rev", Opcode::kReverse},
    {"rsqrt", Opcode::kRsqrt},      {"scatter", Opcode::kScatter},
    {"scatter-add", Opcode::kScatter}, {"scatter_add", Opcode::kScatter},
    {"select_n", Opcode::kSelect},
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
    {"cumsum", Opcode::kReduceWindow}, {"cumprod", Opcode::kReduceWindow},
    {"cummax", Opcode::kReduceWindow}, {"cummin", Opcode::kReduceWindow},
    {"cumlogsumexp", Opcode::kReduceWindow},
};

std::optional<std::vector<int64_t>> IntListParam(const JaxprEqn& eqn, std::string_view name) {
  const JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsIntList();
}

std::optional<int64_t> IntParam(const JaxprEqn& eqn, std::string_view name) {
  const JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsInt();
}

// A keyword element of a call-like param value: "offset_dims=(0, 1)".
const JaxprParamValue* Keyword(const JaxprParamValue& v, std::string_view key) {
  for (size_t k = 0; k < v.elements.size() && k < v.keys.size(); ++k) {
    if (v.keys[k] == key) return &v.elements[k];
  }
  return nullptr;
}

std::vector<int64_t> KeywordInts(const JaxprParamValue& v, std::string_view key) {
  const JaxprParamValue* e = Keyword(v, key);
  if (e == nullptr) return {};
  return e->AsIntList().value_or(std::vector<int64_t>{});
}

// GatherDimensionNumbers(offset_dims=..., collapsed_slice_dims=...,
// start_index_map=..., operand_batching_dims=..., start_indices_batching_dims=...)
// and slice_sizes; JAX's indices carry the index vector in their last
// dimension.
void GatherAttributes(const JaxprEqn& eqn, const Module& module, const Instruction& inst,
                      HloAttributes* a) {
  const JaxprParam* dn = eqn.FindParam("dimension_numbers");
  if (dn == nullptr || inst.operands.size() < 2) return;
  GatherDimensionNumbers g;
  g.offset_dims = KeywordInts(dn->value, "offset_dims");
  g.collapsed_slice_dims = KeywordInts(dn->value, "collapsed_slice_dims");
  g.start_index_map = KeywordInts(dn->value, "start_index_map");
  g.operand_batching_dims = KeywordInts(dn->value, "operand_batching_dims");
  g.start_indices_batching_dims = KeywordInts(dn->value, "start_indices_batching_dims");
  const Shape& indices = module.instruction(inst.operands[1]).shape;
  g.index_vector_dim = indices.dims.empty() ? 0 : static_cast<int64_t>(indices.dims.size()) - 1;
  a->gather = std::move(g);
  if (auto sizes = IntListParam(eqn, "slice_sizes")) a->gather_slice_sizes = *sizes;
}

void SliceAttributes(const JaxprEqn& eqn, HloAttributes* a) {
  const auto start = IntListParam(eqn, "start_indices");
  const auto limit = IntListParam(eqn, "limit_indices");
  if (!start || !limit || start->size() != limit->size()) return;
  const auto strides = IntListParam(eqn, "strides");
  for (size_t d = 0; d < start->size(); ++d) {
    SliceDimension s;
    s.start = (*start)[d];
    s.limit = (*limit)[d];
    if (strides && d < strides->size()) s.stride = (*strides)[d];
    a->slice.push_back(s);
  }
}

void ConvolutionAttributes(const JaxprEqn& eqn, const Module& module, const Instruction& inst,
                           HloAttributes* a) {
  const auto d = ConvGeneralDimensions(eqn);
  if (!d) return;
  a->convolution = *d;
  if (inst.operands.size() == 2) {
    const Shape& rhs = module.instruction(inst.operands[1]).shape;
    std::vector<int64_t> sizes;
    for (int64_t s : d->kernel_spatial) {
      sizes.push_back(s >= 0 && s < static_cast<int64_t>(rhs.dims.size()) ? rhs.dims[s] : 1);
    }
    if (auto w = ConvGeneralWindow(eqn, sizes)) a->window = *w;
  }
  if (auto f = IntParam(eqn, "feature_group_count")) a->feature_group_count = *f;
  if (auto b = IntParam(eqn, "batch_group_count")) a->batch_group_count = *b;
}

}  // namespace

const JaxprOpMapping* JaxprOpFor(std::string_view primitive) {
  for (const JaxprOpMapping& m : kOpcodes) {
    if (m.primitive == primitive) return &m;
  }
  return nullptr;
}

bool IsJaxprIdentity(std::string_view primitive) {
  return primitive == "stop_gradient" || primitive == "sharding_constraint" ||
         primitive == "pvary" || primitive == "mesh_cast" || primitive == "reshard";
}

void SetJaxprAttributes(const JaxprEqn& eqn, const JaxprOpMapping* mapping, Module* module,
                        InstructionId id) {
  const Instruction& inst = module->instruction(id);
  switch (inst.opcode) {
    case Opcode::kDot:
      if (auto d = DotGeneralDimensions(eqn)) module->mutable_attributes(id).dot = *d;
      return;
    case Opcode::kConvolution:
      ConvolutionAttributes(eqn, *module, inst, &module->mutable_attributes(id));
      return;
    case Opcode::kReduce:
      if (auto axes = IntListParam(eqn, "axes")) module->mutable_attributes(id).dimensions = *axes;
      return;
    case Opcode::kBroadcast:
      if (auto dims = IntListParam(eqn, "broadcast_dimensions")) {
        module->mutable_attributes(id).dimensions = *dims;
      } else if (inst.operands.size() == 1 &&
                 module->instruction(inst.operands[0]).shape->dims.empty()) {
        module->mutable_attributes(id).dimensions = {};  // a scalar broadcast
      }
      return;
    case Opcode::kTranspose:
      if (auto perm = IntListParam(eqn, "permutation")) module->mutable_attributes(id).dimensions = *perm;
      return;
    case Opcode::kReverse:
      if (auto dims = IntListParam(eqn, "dimensions")) module->mutable_attributes(id).dimensions = *dims;
      return;
    case Opcode::kConcatenate:
      if (auto d = IntParam(eqn, "dimension")) module->mutable_attributes(id).dimensions = {*d};
      return;
    case Opcode::kIota:
      if (auto d = IntParam(eqn, "dimension")) module->mutable_attributes(id).iota_dimension = *d;
      return;
    case Opcode::kSort:
      if (auto d = IntParam(eqn, "dimension")) module->mutable_attributes(id).dimensions = {*d};
      return;
    case Opcode::kSlice:
      SliceAttributes(eqn, &module->mutable_attributes(id));
      return;
    case Opcode::kDynamicSlice:
      if (auto s = IntListParam(eqn, "slice_sizes")) module->mutable_attributes(id).dynamic_slice_sizes = *s;
      return;
    case Opcode::kGather:
      GatherAttributes(eqn, *module, inst, &module->mutable_attributes(id));
      return;
    case Opcode::kCompare:
      if (mapping != nullptr) module->mutable_attributes(id).comparison_direction = mapping->direction;
      return;
    default:
      return;
  }
}

}  // namespace memplan::ir
