#include "predictor/module_checks.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/dtype.h"
#include "ir/shape.h"

namespace memplan::predictor {
namespace {

using ir::Opcode;

// Every entry in [0, rank) and none twice.
template <typename List>
bool DistinctBelow(const List& dims, size_t rank) {
  std::vector<bool> seen(rank, false);
  for (const int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

// The shapes an instruction's numbers index, read once.
struct Ranks {
  const ir::Module& module;
  const ir::Instruction& inst;

  size_t result() const { return inst.shape->IsArray() ? inst.shape->dims.size() : 0; }
  size_t operand(size_t k) const {
    const ir::Shape& s = *module.instruction(inst.operands[k]).shape;
    return s.IsArray() ? s.dims.size() : 0;
  }
  bool operand_is_array(size_t k) const {
    return module.instruction(inst.operands[k]).shape->IsArray();
  }
};

bool DotFits(const ir::DotDimensionNumbers& d, const Ranks& r) {
  if (d.lhs_batch.size() != d.rhs_batch.size() ||
      d.lhs_contracting.size() != d.rhs_contracting.size()) {
    return false;
  }
  std::vector<int64_t> lhs = d.lhs_batch, rhs = d.rhs_batch;
  lhs.insert(lhs.end(), d.lhs_contracting.begin(), d.lhs_contracting.end());
  rhs.insert(rhs.end(), d.rhs_contracting.begin(), d.rhs_contracting.end());
  const size_t lhs_rank = r.operand(0), rhs_rank = r.operand(1);
  if (!DistinctBelow(lhs, lhs_rank) || !DistinctBelow(rhs, rhs_rank)) return false;
  // Result: batch, then the lhs's free dims, then the rhs's.
  return r.result() == lhs_rank + rhs_rank - lhs.size() - d.rhs_contracting.size();
}

bool ConvolutionFits(const ir::ConvolutionDimensionNumbers& c, const Ranks& r) {
  const size_t spatial = c.input_spatial.size();
  if (c.kernel_spatial.size() != spatial || c.output_spatial.size() != spatial) return false;
  std::vector<int64_t> input = c.input_spatial, kernel = c.kernel_spatial, output = c.output_spatial;
  input.push_back(c.input_batch);
  input.push_back(c.input_feature);
  kernel.push_back(c.kernel_input_feature);
  kernel.push_back(c.kernel_output_feature);
  output.push_back(c.output_batch);
  output.push_back(c.output_feature);
  return DistinctBelow(input, r.operand(0)) && DistinctBelow(kernel, r.operand(1)) &&
         DistinctBelow(output, r.result());
}

bool GatherFits(const ir::HloAttributes& a, const Ranks& r) {
  if (!a.gather) return true;  // the rule replicates a gather without numbers
  const ir::GatherDimensionNumbers& g = *a.gather;
  const size_t op = r.operand(0), indices = r.operand(1);
  return DistinctBelow(g.offset_dims, r.result()) && DistinctBelow(g.collapsed_slice_dims, op) &&
         DistinctBelow(g.operand_batching_dims, op) &&
         std::all_of(g.start_index_map.begin(), g.start_index_map.end(),
                     [&](int64_t d) { return d >= 0 && d < static_cast<int64_t>(op); }) &&
         g.index_vector_dim >= 0 && g.index_vector_dim <= static_cast<int64_t>(indices) &&
         DistinctBelow(g.start_indices_batching_dims, indices) &&
         a.gather_slice_sizes.size() == op;
}

bool ScatterFits(const ir::HloAttributes& a, const Ranks& r, size_t operands) {
  if (!a.scatter) return true;  // the rule replicates a scatter without numbers
  const ir::ScatterDimensionNumbers& s = *a.scatter;
  const size_t n = (operands - 1) / 2;  // operands, indices, then as many updates
  const size_t op = r.operand(0), indices = r.operand(n), updates = r.operand(n + 1);
  return DistinctBelow(s.update_window_dims, updates) &&
         DistinctBelow(s.inserted_window_dims, op) && DistinctBelow(s.input_batching_dims, op) &&
         std::all_of(s.scatter_dims_to_operand_dims.begin(), s.scatter_dims_to_operand_dims.end(),
                     [&](int64_t d) { return d >= 0 && d < static_cast<int64_t>(op); }) &&
         s.index_vector_dim >= 0 && s.index_vector_dim <= static_cast<int64_t>(indices) &&
         DistinctBelow(s.scatter_indices_batching_dims, indices);
}

// The fewest operands each rule reads.
size_t MinOperands(Opcode opcode) {
  switch (opcode) {
    case Opcode::kDot: case Opcode::kConvolution: case Opcode::kGather: case Opcode::kPad:
    case Opcode::kDynamicUpdateSlice:
      return 2;
    case Opcode::kScatter: case Opcode::kSelectAndScatter:
      return 3;
    case Opcode::kBroadcast: case Opcode::kTranspose: case Opcode::kConcatenate:
    case Opcode::kSlice: case Opcode::kReverse: case Opcode::kReduceWindow:
    case Opcode::kDynamicSlice: case Opcode::kSort: case Opcode::kGetTupleElement:
    case Opcode::kReduce:  // a jaxpr's reduce has no init operand
      return 1;
    default:
      return 0;
  }
}

}  // namespace

bool DimensionNumbersFit(const ir::Module& module, const ir::Instruction& inst) {
  const size_t operands = inst.operands.size();
  if (operands < MinOperands(inst.opcode)) return false;
  const ir::HloAttributes& a = module.attributes(inst);
  const Ranks r{module, inst};
  switch (inst.opcode) {
    case Opcode::kBroadcast:
      // None given (a jaxpr whose broadcast_dimensions did not read): the
      // rule maps no dimension.
      return (a.dimensions.empty() || a.dimensions.size() == r.operand(0)) &&
             DistinctBelow(a.dimensions, r.result());
    case Opcode::kTranspose:
      return a.dimensions.size() == r.result() && r.operand(0) == r.result() &&
             DistinctBelow(a.dimensions, r.result());
    case Opcode::kReduce:
      return DistinctBelow(a.dimensions, r.operand(0));
    case Opcode::kReverse: case Opcode::kSort:
      return DistinctBelow(a.dimensions, r.operand(0));
    case Opcode::kAllGather: case Opcode::kReduceScatter: case Opcode::kAllToAll:
      return operands == 0 || !r.operand_is_array(0) || DistinctBelow(a.dimensions, r.operand(0));
    case Opcode::kConcatenate:
      if (a.dimensions.size() != 1 || !DistinctBelow(a.dimensions, r.result())) return false;
      for (size_t k = 0; k < operands; ++k) {
        if (r.operand(k) != r.result()) return false;
      }
      return true;
    case Opcode::kSlice:
      return a.slice.size() == r.operand(0) && r.operand(0) == r.result();
    case Opcode::kPad:
      return a.padding.size() == r.operand(0) && r.operand(0) == r.result();
    case Opcode::kDynamicSlice:
      return r.operand(0) == r.result() &&
             (a.dynamic_slice_sizes.empty() || a.dynamic_slice_sizes.size() == r.result());
    case Opcode::kDynamicUpdateSlice:
      return r.operand(0) == r.result() && r.operand(1) == r.result();
    case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
      // A variadic reduce-window's result is a tuple (its rule reads none).
      return (!inst.shape->IsArray() || r.operand(0) == r.result()) &&
             (!a.window || a.window->dimensions.size() == r.operand(0));
    case Opcode::kDot:
      return !a.dot || DotFits(*a.dot, r);
    case Opcode::kConvolution:
      return !a.convolution || ConvolutionFits(*a.convolution, r);
    case Opcode::kGather:
      return GatherFits(a, r);
    case Opcode::kScatter:
      return operands % 2 == 1 && ScatterFits(a, r, operands);
    case Opcode::kGetTupleElement: {
      const ir::Shape& tuple = *module.instruction(inst.operands[0]).shape;
      return a.tuple_index >= 0 &&
             a.tuple_index < static_cast<int64_t>(tuple.tuple_elements.size());
    }
    default:
      return true;
  }
}

namespace {

constexpr int64_t kMaxModuleBytes = int64_t{1} << 62;

// Adds the bytes of `shape`'s array leaves to `total`; false on an unbounded
// dimension or once `total` passes kMaxModuleBytes (`why` says which).
bool AddLeafBytes(const ir::Shape& shape, int64_t& total, const char*& why) {
  for (const ir::Shape& e : shape.tuple_elements) {
    if (!AddLeafBytes(e, total, why)) return false;
  }
  if (!shape.IsArray()) return true;
  int64_t bytes = DTypeStorageBytes(shape.dtype);
  for (const int64_t d : shape.dims) {
    if (d < 0) {
      why = "has an unbounded dynamic dimension ('?'), whose size only a compile bounds";
      return false;
    }
    if (d != 0 && bytes > kMaxModuleBytes / d) bytes = kMaxModuleBytes + 1;
    else bytes *= d;
  }
  total += std::min(bytes, kMaxModuleBytes + 1);
  if (total > kMaxModuleBytes) {
    why = "brings the module's arrays past 2^62 bytes in all";
    return false;
  }
  return true;
}

}  // namespace

absl::Status CheckShapesSizable(const ir::Module& module) {
  int64_t total = 0;
  for (const ir::Instruction& inst : module.instructions()) {
    const char* why = "";
    if (!AddLeafBytes(*inst.shape, total, why)) {
      const std::string shape = ir::ShapeToString(*inst.shape, /*with_layout=*/false);
      return absl::InvalidArgumentError(absl::StrCat("instruction ", std::string(inst.name), " (", shape, ") ",
                                                     why,
                                                     ": no per-device bytes can be predicted"));
    }
  }
  return absl::OkStatus();
}

}  // namespace memplan::predictor
