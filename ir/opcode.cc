#include "ir/opcode.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "absl/container/flat_hash_map.h"

namespace memplan::ir {
namespace {

// Spellings in enum order (index 0 is kUnknown).
constexpr std::string_view kNames[] = {
    "unknown",
    "abs",
    "acos",
    "acosh",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-gather-done",
    "all-gather-start",
    "all-reduce",
    "all-reduce-done",
    "all-reduce-start",
    "all-to-all",
    "and",
    "asin",
    "asinh",
    "async-done",
    "async-start",
    "async-update",
    "atan",
    "atan2",
    "atanh",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "count-leading-zeros",
    "collective-broadcast",
    "collective-permute",
    "collective-permute-done",
    "collective-permute-start",
    "collective-reduce",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosine",
    "cosh",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "mulhi",
    "multiply",
    "negate",
    "not",
    "opt-barrier",
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",
    "scan",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "shuffle",
    "sign",
    "sine",
    "sinh",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
    "xor",
};
static_assert(std::size(kNames) == static_cast<size_t>(Opcode::kXor) + 1,
              "one spelling per opcode");

// (spelling, opcode) sorted by spelling, for lookups.
struct ByName {
  std::array<std::pair<std::string_view, Opcode>, std::size(kNames) - 1> entries{};
  constexpr ByName() {
    for (size_t i = 1; i < std::size(kNames); ++i) {
      entries[i - 1] = {kNames[i], static_cast<Opcode>(i)};
    }
    std::sort(entries.begin(), entries.end());
  }
};
constexpr ByName kByName;

}  // namespace

std::string_view OpcodeName(Opcode opcode) {
  const size_t i = static_cast<size_t>(opcode);
  return i < std::size(kNames) ? kNames[i] : kNames[0];
}

Opcode OpcodeFromName(std::string_view name) {
  // A hash lookup: the binary search over kByName compared strings (a
  // memcmp call each) seven times per name, once per instruction text a
  // dump gives.
  static const absl::flat_hash_map<std::string_view, Opcode>* const kTable = [] {
    auto* table = new absl::flat_hash_map<std::string_view, Opcode>();
    table->reserve(kByName.entries.size());
    for (const auto& [spelling, opcode] : kByName.entries) table->emplace(spelling, opcode);
    return table;
  }();
  const auto it = kTable->find(name);
  return it != kTable->end() ? it->second : Opcode::kUnknown;
}

bool IsCollective(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectiveReduce:
    case Opcode::kRaggedAllToAll:
    case Opcode::kReduceScatter:
    case Opcode::kSend:
    case Opcode::kRecv:
      return true;
    default:
      return false;
  }
}

bool CallsControlFlow(Opcode opcode) {
  switch (opcode) {
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return true;
    default:
      return false;
  }
}

}  // namespace memplan::ir
