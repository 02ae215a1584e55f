// libFuzzer target: OpSharding protobuf bytes (parsers/op_sharding.h), taken
// both as raw bytes and as a Python bytes literal / hex text, then the
// checks of fuzz/shard_fuzz_check.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/shard_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  constexpr std::string_view kTarget = "op_sharding_fuzzer";
  constexpr std::string_view kName = "fuzz-opsharding.txt";
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<ir::HloSharding> raw = parsers::OpShardingFromBytes(bytes);
  if (raw.ok()) fuzz::CheckHloSharding(kTarget, *raw);
  auto source = parsers::SourceText::FromString(std::string(kName), bytes);
  absl::StatusOr<std::string> literal = parsers::ParsePythonBytesLiteral(*source);
  if (!literal.ok()) {
    fuzz::CheckLocated(kTarget, literal.status(), kName);
    return 0;
  }
  // The literal prints back as Python would and reads back to the same bytes.
  const std::string repr = parsers::PythonBytesRepr(*literal);
  auto again = parsers::SourceText::FromString("repr", repr);
  absl::StatusOr<std::string> reread = parsers::ParsePythonBytesLiteral(*again);
  if (!reread.ok() || *reread != *literal) fuzz::ShardFail(kTarget, "bytes repr does not read back", repr);
  absl::StatusOr<ir::HloSharding> decoded = parsers::OpShardingFromBytes(*literal);
  if (decoded.ok()) fuzz::CheckHloSharding(kTarget, *decoded);
  return 0;
}
