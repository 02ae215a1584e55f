#include "cli/jaxpr_rules.h"

#include <algorithm>
#include <cstdio>
#include <string>


namespace memplan::cli {

bool ApplyJaxprRules(std::string_view list, ir::JaxprProgramOptions* options) {
  if (list.empty()) return true;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view name = list.substr(start, comma - start);
    start = comma + 1;
    if (name == "cpu-bf16") {
      options->cpu_bf16_in_f32 = true;
    } else if (name == "fold-dot-transposes") {
      options->fold_dot_transposes = true;
    } else if (name == "copy-donated") {
      options->copy_donated_parameters = true;
    } else if (name == "share-outputs") {
      options->share_output_operands = true;
    } else {
      std::fprintf(stderr,
                   "memplan: --jaxpr-rules=%s: unknown rule '%s': expected a comma-separated "
                   "list of cpu-bf16, fold-dot-transposes, copy-donated, share-outputs\n",
                   std::string(list).c_str(), std::string(name).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace memplan::cli
