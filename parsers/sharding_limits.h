// Bounds the sharding parsers hold their input to, so that no text makes
// them allocate without limit: real meshes have at most tens of thousands of
// devices.
#ifndef MEMPLAN_PARSERS_SHARDING_LIMITS_H_
#define MEMPLAN_PARSERS_SHARDING_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace memplan::parsers {

// Devices in one mesh or tile assignment.
inline constexpr int64_t kMaxShardingDevices = int64_t{1} << 20;
// Entries of one list (dims, tuple elements, placements, spec entries).
inline constexpr size_t kMaxShardingListLength = 4096;
// Largest integer read (dims, device ids, shard group ids).
inline constexpr uint64_t kMaxShardingInt = uint64_t{1} << 40;

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_SHARDING_LIMITS_H_
