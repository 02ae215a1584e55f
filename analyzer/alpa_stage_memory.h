// Alpa's stage table (seed 003) recomputed from the modules' jaxprs: each
// module's argument, output and donated bytes per device, from its jaxpr's
// binders and the compile output's input/output OpShardings, and the peak
// Alpa reports, peak_memory = argument + output - donated + temp, with
// Alpa's measured temp_buffer_size; and temp predicted from the jaxpr alone
// (analyzer/jaxpr_liveness.h, every value owning memory): the most bytes of
// temporaries that do not fit in outputs not yet written, with the inputs
// tiled by their shardings, donated inputs as Alpa says, calls inlined.
#ifndef MEMPLAN_ANALYZER_ALPA_STAGE_MEMORY_H_
#define MEMPLAN_ANALYZER_ALPA_STAGE_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/alpa_stage_profile.h"

namespace memplan::analyzer {

struct AlpaModuleMemory {
  std::string name;              // the module's merged jaxpr ("stage_0_1_acc_grad_0")
  std::vector<int64_t> invar_bytes;   // per device, per jaxpr input
  std::vector<int64_t> outvar_bytes;  // per device, per jaxpr output
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t donated_bytes = 0;
  int64_t alpa_temp = 0;          // Alpa's measured temp_buffer_size
  int64_t alpa_peak = 0;          // Alpa's peak_memory
  int64_t peak = 0;               // argument + output - donated + alpa_temp
  // Inputs / outputs whose bytes differ from Alpa's invar_sizes / outvar_sizes.
  int64_t invar_mismatches = 0;
  int64_t outvar_mismatches = 0;
  // The jaxpr's temporaries' peak per device, where it is, and
  // argument + output - donated + predicted_temp.
  std::optional<int64_t> predicted_temp;
  ir::JaxprEqnId predicted_temp_equation;
  int64_t temporaries_peak = 0;  // all temporaries live at once, outputs' memory not reused
  int64_t predicted_peak = 0;
};

struct AlpaStageMemory {
  std::vector<int64_t> stage_index;  // the profile's (from, to, mesh, config)
  size_t config = 0;                 // index into AlpaStageDocument::configs
  std::vector<AlpaModuleMemory> modules;
};

// For profile `profile_index` of `doc`: finds the stage config with the
// same stage index (else the one at the same position), its compile output
// (by position) and its modules' merged jaxprs (by name), and computes the
// table. InvalidArgument when a piece is missing or counts disagree.
absl::StatusOr<AlpaStageMemory> AlpaStageMemoryTable(const ir::AlpaStageDocument& doc,
                                                     size_t profile_index);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_ALPA_STAGE_MEMORY_H_
