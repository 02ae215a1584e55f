// libFuzzer target: HloSharding text (parsers/hlo_sharding_parser.h), read
// whole and as the HLO module parser reads it (one sharding at the start of
// a larger text), then the checks of fuzz/shard_fuzz_check.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/shard_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memplan;
  constexpr std::string_view kTarget = "hlo_sharding_fuzzer";
  constexpr std::string_view kName = "fuzz-hlo-sharding.txt";
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  size_t consumed = 0;
  absl::StatusOr<ir::HloSharding> prefix = parsers::ParseHloSharding(bytes, &consumed);
  if (consumed > size) fuzz::ShardFail(kTarget, "consumed more than the input", std::string(bytes));
  auto source = parsers::SourceText::FromString(std::string(kName), bytes);
  absl::StatusOr<ir::HloSharding> whole = parsers::ParseHloShardingText(*source);
  if (!whole.ok()) {
    fuzz::CheckLocated(kTarget, whole.status(), kName);
  } else {
    fuzz::CheckHloSharding(kTarget, *whole);
  }
  if (prefix.ok()) fuzz::CheckHloSharding(kTarget, *prefix);
  return 0;
}
