// The rules of HloCostAnalysis (simulator/hlo_cost.h) for one instruction
// that need only its own shape, its operands' shapes and its attributes:
// elementwise ops, data movement, dot, convolution, sort, all-reduce, random
// numbers, linear algebra, custom calls. Instructions that apply a called
// computation (reduce, reduce-window, map, scatter, select-and-scatter,
// fusion, call, while, conditional) are priced by HloCostAnalysis itself,
// with the helpers below. docs/cost-model.md, "Compute", lists every rule.
#ifndef MEMPLAN_SIMULATOR_HLO_OP_COST_H_
#define MEMPLAN_SIMULATOR_HLO_OP_COST_H_

#include <optional>
#include <span>

#include "ir/hlo_attributes.h"
#include "ir/module.h"
#include "simulator/hlo_cost.h"

namespace memplan::simulator {

// An instruction's operands' shapes in operand order; nullptr where the
// operand is not in the module.
using OperandShapes = std::span<const ir::Shape* const>;

// Elements of an array shape; 0 for a tuple or token.
double ArrayElements(const ir::Shape& shape);

// The first array of a shape: the array itself, or a tuple's first element
// (variadic reduce and reduce-window).
const ir::Shape& FirstArray(const ir::Shape& shape);

// XLA's default for any instruction: no flops, and bytes accessed = the
// output plus every operand.
HloCost DefaultCost(const ir::Instruction& i, OperandShapes operands);

// The cost of `i` when it calls no computation, starting from DefaultCost;
// nullopt for the opcodes that apply one (listed above), which the caller
// prices.
std::optional<HloCost> OwnCost(const ir::Instruction& i, const ir::HloAttributes& attributes,
                               OperandShapes operands);

// XLA's FLOPs of a convolution (simulator/hlo_cost.h) whose input, kernel
// and output have these shapes, read through `attributes`' dimension
// numbers, window and feature/batch group counts. Precondition:
// attributes.convolution is set. A dimension number out of a shape's range
// reads as extent 1.
double ConvolutionFlops(const ir::HloAttributes& attributes, const ir::Shape& input,
                        const ir::Shape& kernel, const ir::Shape& output);

// How many times a reduce-window applies its computation: (window elements
// - 1) per output element, or XLA's count for a reduce broadcast back over
// one padded dimension.
double ReduceWindowApplications(const ir::Instruction& i, const ir::Window& window);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_HLO_OP_COST_H_
