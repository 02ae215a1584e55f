// Number formatting shared by every view. Output never depends on locale.
#ifndef MEMPLAN_VIZ_FORMAT_H_
#define MEMPLAN_VIZ_FORMAT_H_

#include <cstdint>
#include <string>

#include "ir/program.h"

namespace memplan::viz {

// "512 B", "1.50 KiB", "296.75 MiB", "1.02 GiB" (binary units, 2 decimals).
std::string HumanBytes(int64_t bytes);

// "1093622736" grouped for reading: "1,093,622,736".
std::string GroupedBytes(int64_t bytes);

// "1.234 s", "5.678 ms", "56.700 us", "890.0 ns".
std::string HumanSeconds(double seconds);

// A signed percentage with two decimals: "+1.25%", "-0.40%", "0.00%".
std::string SignedPercent(double percent);
// An unsigned one: "12.50%".
std::string Percent(double percent);

// What an allocation is, in words: "parameter 5", "output tuple, live-out",
// "temp", "constant", "color 1", ...; "other" when nothing applies.
std::string AllocationKindLabel(const ir::Allocation& allocation);

}  // namespace memplan::viz

#endif  // MEMPLAN_VIZ_FORMAT_H_
