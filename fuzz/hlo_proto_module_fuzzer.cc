// libFuzzer target: an HloProto's module through ModuleFromProto (the graph
// the proto gives, parsers/hlo_proto_module.h). Aborts when a module it
// accepts breaks the graph checks (parsers/hlo_graph_checks.h) or has no
// entry, besides "no crash, no sanitizer report, no hang".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "ir/module.h"
#include "parsers/hlo_graph_checks.h"
#include "parsers/hlo_proto_module.h"
#include "parsers/proto/hlo_subset.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  memplan::xla_subset::HloProto proto;
  if (size > (1u << 30) || !proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  memplan::ir::Module module;
  memplan::ir::Diagnostics diagnostics;
  if (!memplan::parsers::ModuleFromProto(proto.hlo_module(), &module, &diagnostics).ok()) return 0;
  if (auto problem = memplan::parsers::FindGraphProblem(module)) {
    std::fprintf(stderr, "hlo_proto_module_fuzzer: accepted module breaks the graph checks: %s\n",
                 problem->expected.c_str());
    std::abort();
  }
  if (!module.computations().empty() && !module.contains(module.entry)) {
    std::fprintf(stderr, "hlo_proto_module_fuzzer: no entry computation\n");
    std::abort();
  }
  return 0;
}
