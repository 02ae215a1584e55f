// What Alpa's pipeline-stage profiling prints (seed 003): the stage configs
// (module names, donated invars), the modules' merged jaxprs, the compile
// outputs' serialized OpSharding protos, and StageProfileResult /
// ModuleProfileResult with the measured peak_memory and temp_buffer_size.
#ifndef MEMPLAN_IR_ALPA_STAGE_PROFILE_H_
#define MEMPLAN_IR_ALPA_STAGE_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ir/jaxpr.h"

namespace memplan::ir {

// xla.OpSharding decoded from its wire bytes (b'\x08\x03\x1a\x02\x02\x01"\x02\x00\x01'
// is {devices=[2,1]0,1}). Type: 0 REPLICATED, 1 MAXIMAL, 2 TUPLE, 3 OTHER,
// 4 MANUAL; b'' is REPLICATED.
struct OpShardingProto {
  int64_t type = 0;
  std::vector<int64_t> tile_assignment_dimensions;
  std::vector<int64_t> tile_assignment_devices;
  std::vector<OpShardingProto> tuple_shardings;
  bool replicate_on_last_tile_dim = false;
  std::vector<int64_t> last_tile_dims;

  // Per-device shape of an array of `dims` under this sharding: each data
  // dimension divided (rounding up) by its tile count.
  std::vector<int64_t> ShardDims(const std::vector<int64_t>& dims) const;
};

struct AlpaStageConfig {
  std::vector<int64_t> stage_index;  // (from, to, mesh_id, auto_sharding_config_idx)
  std::vector<std::string> module_names;
  std::vector<std::vector<bool>> module_donate_invars;
  int64_t input_line = 0;
};

struct AlpaMergedJaxpr {
  std::string name;  // "stage_0_1_acc_grad_0"
  JaxprModule jaxpr;
  int64_t input_line = 0;
};

struct AlpaCompiledModule {
  std::vector<OpShardingProto> input_shardings;
  OpShardingProto output_sharding;
};

struct AlpaCompileOutput {
  std::vector<AlpaCompiledModule> modules;
  int64_t input_line = 0;
};

struct AlpaModuleProfile {
  double compute_cost = 0;
  int64_t peak_memory = 0;
  int64_t temp_buffer_size = 0;
  std::vector<std::string> invar_names;
  std::vector<std::string> outvar_names;
  std::vector<int64_t> invar_sizes;
  std::vector<int64_t> outvar_sizes;
  std::vector<bool> donated_invars;
  int64_t input_line = 0;
};

struct AlpaStageProfile {
  std::vector<int64_t> stage_index;  // from "b[0,1,1,0]" before it; empty if none
  std::vector<AlpaModuleProfile> modules;
  int64_t input_line = 0;
};

struct AlpaStageDocument {
  std::string source_name;
  std::vector<AlpaStageConfig> configs;        // in document order
  std::vector<AlpaMergedJaxpr> jaxprs;         // in document order
  std::vector<AlpaCompileOutput> compiled;     // in document order, one per config
  std::vector<AlpaStageProfile> profiles;      // in document order
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_ALPA_STAGE_PROFILE_H_
