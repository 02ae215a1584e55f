#include "analyzer/alpa_stage_memory.h"

#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

// Bytes of one device's shard of `aval`; -1 when unknown.
int64_t ShardBytes(const ir::JaxprAval& aval, const ir::OpShardingProto& sharding) {
  if (!aval.known || aval.dtype == ir::DType::kInvalid) return -1;
  int64_t n = 1;
  for (int64_t d : sharding.ShardDims(aval.dims)) {
    if (d < 0) return -1;
    n *= d;
  }
  return n * ir::DTypeStorageBytes(aval.dtype);
}

// The tiles of a tiled OpSharding over an array of `rank` dimensions (the
// replicated trailing tile dimensions dropped); empty when not tiled.
Tiles TilesOf(const ir::OpShardingProto& sharding, size_t rank) {
  if (sharding.type != 3 || sharding.tile_assignment_dimensions.size() < rank) return {};
  return Tiles(sharding.tile_assignment_dimensions.begin(),
               sharding.tile_assignment_dimensions.begin() + static_cast<int64_t>(rank));
}

// The jaxpr's temporaries' peak with its inputs tiled and donated.
absl::Status PredictTemp(const ir::JaxprModule& jaxpr, const std::vector<ir::OpShardingProto>& inputs,
                         const std::vector<bool>& donated, AlpaModuleMemory& row) {
  JaxprScheduleOptions options;
  options.donated = donated;
  const ir::Jaxpr& top = jaxpr.jaxpr(jaxpr.top);
  for (size_t i = 0; i < top.invars.size() && i < inputs.size(); ++i) {
    options.input_tiles.push_back(TilesOf(inputs[i], jaxpr.var(top.invars[i]).aval.dims.size()));
  }
  ASSIGN_OR_RETURN(const JaxprSchedule schedule, ScheduleJaxpr(jaxpr, options));
  const JaxprLiveness liveness = ComputeJaxprLiveness(jaxpr, schedule);
  row.predicted_temp = liveness.arena_peak_bytes;
  row.temporaries_peak = liveness.temp_peak_bytes;
  if (liveness.arena_peak_step < static_cast<int32_t>(schedule.steps.size())) {
    row.predicted_temp_equation = schedule.steps[liveness.arena_peak_step].eqn;
  }
  row.predicted_peak = row.argument_bytes + row.output_bytes - row.donated_bytes + *row.predicted_temp;
  return absl::OkStatus();
}

// The merged jaxpr named `name` (the last of that name), or an error.
absl::StatusOr<const ir::AlpaMergedJaxpr*> MergedJaxpr(const ir::AlpaStageDocument& doc,
                                                       const std::string& name) {
  const ir::AlpaMergedJaxpr* merged = nullptr;
  for (const ir::AlpaMergedJaxpr& j : doc.jaxprs) {
    if (j.name == name) merged = &j;
  }
  if (merged == nullptr) {
    return absl::InvalidArgumentError(StrCat(doc.source_name, ": no ", name, ":merged_jaxpr"));
  }
  return merged;
}

// Each input's and output's bytes under its sharding, their totals and
// how many differ from the sizes Alpa measured. Checks that the jaxpr,
// the profile and the compile output agree on the counts.
absl::Status ShardedSizes(const ir::AlpaStageDocument& doc, const ir::AlpaMergedJaxpr& merged,
                          const ir::AlpaModuleProfile& measured, const ir::AlpaCompiledModule& shardings,
                          const std::vector<bool>* donated_override, AlpaModuleMemory& row,
                          std::vector<bool>& donated) {
  const ir::Jaxpr& top = merged.jaxpr.jaxpr(merged.jaxpr.top);
  if (top.invars.size() != measured.invar_sizes.size() ||
      top.invars.size() != shardings.input_shardings.size()) {
    return absl::InvalidArgumentError(
        StrCat(doc.source_name, ": ", row.name, " has ", top.invars.size(), " inputs, but the profile lists ",
               measured.invar_sizes.size(), " and the compile output ", shardings.input_shardings.size()));
  }
  const std::vector<ir::OpShardingProto>& outs = shardings.output_sharding.tuple_shardings;
  if (top.outvars.size() != measured.outvar_sizes.size() || top.outvars.size() != outs.size()) {
    return absl::InvalidArgumentError(
        StrCat(doc.source_name, ": ", row.name, " has ", top.outvars.size(), " outputs, but the profile lists ",
               measured.outvar_sizes.size(), " and the output sharding ", outs.size()));
  }
  donated = donated_override != nullptr && donated_override->size() == top.invars.size()
                ? *donated_override
                : measured.donated_invars;
  for (size_t i = 0; i < top.invars.size(); ++i) {
    const int64_t bytes = ShardBytes(merged.jaxpr.var(top.invars[i]).aval, shardings.input_shardings[i]);
    row.invar_bytes.push_back(bytes);
    row.argument_bytes += bytes;
    if (donated[i]) row.donated_bytes += bytes;
    if (bytes != measured.invar_sizes[i]) ++row.invar_mismatches;
  }
  for (size_t i = 0; i < top.outvars.size(); ++i) {
    const ir::JaxprAtom& atom = top.outvars[i];
    const ir::JaxprAval& aval = atom.IsLiteral() ? atom.literal_aval : merged.jaxpr.var(atom.var).aval;
    const int64_t bytes = ShardBytes(aval, outs[i]);
    row.outvar_bytes.push_back(bytes);
    row.output_bytes += bytes;
    if (bytes != measured.outvar_sizes[i]) ++row.outvar_mismatches;
  }
  return absl::OkStatus();
}

// The StageConfig (and CompileOutput) of a profile: the one with its stage
// index, else the profile's own position.
absl::StatusOr<size_t> ConfigOf(const ir::AlpaStageDocument& doc, size_t profile_index) {
  const ir::AlpaStageProfile& profile = doc.profiles[profile_index];
  size_t config = profile_index;
  for (size_t i = 0; i < doc.configs.size(); ++i) {
    if (!profile.stage_index.empty() && doc.configs[i].stage_index == profile.stage_index) {
      config = i;
      break;
    }
  }
  if (config >= doc.configs.size() || config >= doc.compiled.size()) {
    return absl::InvalidArgumentError(StrCat(doc.source_name, ": no StageConfig and CompileOutput for the ",
                                             "StageProfileResult at line ", profile.input_line));
  }
  return config;
}

}  // namespace

absl::StatusOr<AlpaStageMemory> AlpaStageMemoryTable(const ir::AlpaStageDocument& doc,
                                                     size_t profile_index) {
  if (profile_index >= doc.profiles.size()) {
    return absl::InvalidArgumentError(StrCat(doc.source_name, ": no StageProfileResult number ",
                                             profile_index + 1));
  }
  const ir::AlpaStageProfile& profile = doc.profiles[profile_index];
  AlpaStageMemory out;
  out.stage_index = profile.stage_index;
  ASSIGN_OR_RETURN(out.config, ConfigOf(doc, profile_index));
  const ir::AlpaStageConfig& config = doc.configs[out.config];
  const ir::AlpaCompileOutput& compiled = doc.compiled[out.config];
  for (size_t m = 0; m < profile.modules.size(); ++m) {
    const ir::AlpaModuleProfile& measured = profile.modules[m];
    if (m >= config.module_names.size() || m >= compiled.modules.size()) {
      return absl::InvalidArgumentError(StrCat(doc.source_name, ": module ", m, " of the profile at line ",
                                               profile.input_line, " has no name or compile output"));
    }
    AlpaModuleMemory row;
    row.name = config.module_names[m];
    ASSIGN_OR_RETURN(const ir::AlpaMergedJaxpr* merged, MergedJaxpr(doc, row.name));
    const ir::AlpaCompiledModule& shardings = compiled.modules[m];
    std::vector<bool> donated;
    const std::vector<bool>* configured =
        m < config.module_donate_invars.size() ? &config.module_donate_invars[m] : nullptr;
    RETURN_IF_ERROR(ShardedSizes(doc, *merged, measured, shardings, configured, row, donated));
    row.alpa_temp = measured.temp_buffer_size;
    row.alpa_peak = measured.peak_memory;
    row.peak = row.argument_bytes + row.output_bytes - row.donated_bytes + row.alpa_temp;
    RETURN_IF_ERROR(PredictTemp(merged->jaxpr, shardings.input_shardings, donated, row));
    out.modules.push_back(std::move(row));
  }
  return out;
}

}  // namespace memplan::analyzer
