#include "simulator/library_gemm.h"

#include <charconv>
#include <string>
#include <string_view>

#include "llvm/Support/JSON.h"
#include "simulator/hlo_cost.h"

namespace memplan::simulator {
namespace {

bool IsCublasGemmTarget(std::string_view target) {
  return target == "__cublas$gemm" || target == "__cublas$lt$matmul" ||
         target == "__cublas$lt$matmul$f8";
}

// A JSON array of dimension numbers, which XLA writes as strings ("1") or
// numbers; false on anything else.
bool ReadDimensions(const llvm::json::Array* array, std::vector<int64_t>* out) {
  if (array == nullptr) return false;
  for (const llvm::json::Value& v : *array) {
    if (auto n = v.getAsInteger()) {
      out->push_back(*n);
      continue;
    }
    auto s = v.getAsString();
    if (!s) return false;
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), value);
    if (ec != std::errc() || end != s->data() + s->size()) return false;
    out->push_back(value);
  }
  return true;
}

}  // namespace

std::optional<LibraryCall> CublasGemm(const ir::Module& module, const ir::Instruction& i) {
  if (i.opcode != ir::Opcode::kCustomCall || i.operands.empty()) return std::nullopt;
  const ir::HloAttributes& attributes = module.attributes(i);
  if (!IsCublasGemmTarget(attributes.custom_call_target)) return std::nullopt;
  const std::string_view config = attributes.backend_config;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(llvm::StringRef(config.data(), config.size()));
  if (!json) {
    llvm::consumeError(json.takeError());
    return std::nullopt;
  }
  const llvm::json::Object* root = json->getAsObject();
  const llvm::json::Object* gemm = root ? root->getObject("gemm_backend_config") : nullptr;
  const llvm::json::Object* dims = gemm ? gemm->getObject("dot_dimension_numbers") : nullptr;
  std::vector<int64_t> contracting;
  if (dims == nullptr || !ReadDimensions(dims->getArray("lhs_contracting_dimensions"), &contracting)) {
    return std::nullopt;
  }
  const ir::Shape& lhs = module.instruction(i.operands[0]).shape;
  const ir::Shape& result = LibraryCallResult(i);
  if (lhs.dtype == ir::DType::kTuple || result.dtype == ir::DType::kTuple) return std::nullopt;
  double contracted = 1;
  for (int64_t d : contracting) {
    if (d < 0 || d >= static_cast<int64_t>(lhs.dims.size())) return std::nullopt;
    contracted *= static_cast<double>(lhs.dims[d]);
  }
  LibraryCall out;
  out.flops = 2.0 * static_cast<double>(result.ElementCount()) * contracted;
  out.operand_dtype = lhs.dtype;
  out.bytes_accessed = LibraryCallBytes(module, i);
  return out;
}

}  // namespace memplan::simulator
