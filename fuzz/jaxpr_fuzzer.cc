// libFuzzer target: jaxpr text through the jaxpr parser. Beyond "no crash,
// no sanitizer report, no hang": a parse error names the file; ids are
// dense and every operand refers to a variable of the same jaxpr.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "parsers/jaxpr_parser.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "jaxpr_fuzzer: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  auto source = parsers::SourceText::FromString(
      "fuzz.jaxpr", std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  if (!module.ok()) {
    Check(module.status().message().rfind("fuzz.jaxpr:", 0) == 0, "parse error without a location");
    return 0;
  }
  Check(module->top.valid(), "no top-level jaxpr");
  for (size_t i = 0; i < module->eqns.size(); ++i) {
    const ir::JaxprEqn& eqn = module->eqns[i];
    Check(eqn.id.value() == static_cast<int64_t>(i), "equation ids are not dense");
    for (const ir::JaxprAtom& atom : eqn.invars) {
      if (atom.IsLiteral()) continue;
      Check(module->var(atom.var).jaxpr == eqn.jaxpr, "an operand from another jaxpr");
    }
    for (const ir::JaxprEqn::Called& c : eqn.called) {
      Check(c.jaxpr.valid() && static_cast<size_t>(c.jaxpr.value()) < module->jaxprs.size(), "bad called jaxpr");
    }
  }
  return 0;
}
