// The memory of a device named on the command line (`analyze --device`) or
// in a budget file (`device:`), from the simulator's hardware presets.
#ifndef MEMPLAN_CLI_DEVICE_MEMORY_H_
#define MEMPLAN_CLI_DEVICE_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/budget_file.h"

namespace memplan::cli {

// A hardware preset's name (`memplan hw list`: "h100", case ignored) gives
// its device.hbm_bytes; a model with its memory in the name,
// "<model>-<N>GB" ("H100-80GB", "L4-24GB"), gives N GiB. nullopt otherwise.
std::optional<int64_t> DeviceMemoryBytes(std::string_view name);

// What DeviceMemoryBytes accepts, for messages.
std::string DeviceMemoryNames();

// DeviceMemoryBytes as the budget file reader's catalog.
parsers::DeviceCatalog DeviceMemoryCatalog();

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_DEVICE_MEMORY_H_
