// GEMMs that XLA's GPU backend hands to cuBLAS: a custom-call whose target is
// "__cublas$gemm", "__cublas$lt$matmul" or "__cublas$lt$matmul$f8", with the
// dot it replaces in backend_config's gemm_backend_config
// (dot_dimension_numbers: lhs_contracting_dimensions, ...). XLA's
// cost_analysis() counts such a custom-call as 0 FLOPs (so does
// simulator/hlo_cost.h, to match it); what runs is the dot. On an H200 the
// GEMMs of an MLP step of width 4096 and more are all of this kind
// (docs/validation.md), so the time model must count them.
#ifndef MEMPLAN_SIMULATOR_LIBRARY_GEMM_H_
#define MEMPLAN_SIMULATOR_LIBRARY_GEMM_H_

#include <optional>

#include "ir/module.h"
#include "simulator/library_call.h"

namespace memplan::simulator {

// The dot a cuBLAS GEMM custom-call computes (FLOPs: 2 * result elements *
// the product of the lhs contracting dimensions); nullopt for any other
// instruction, or when its backend_config, operands or result do not give
// a dot (a contracting dimension out of the lhs's range, no array result).
std::optional<LibraryCall> CublasGemm(const ir::Module& module, const ir::Instruction& instruction);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_LIBRARY_GEMM_H_
