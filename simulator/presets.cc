#include "simulator/presets.h"

namespace memplan::simulator {

const Preset* FindPreset(std::string_view name) {
  for (const Preset& p : BuiltinPresets()) {
    if (p.name.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size(); ++i) {
      const char c = (name[i] >= 'A' && name[i] <= 'Z') ? name[i] - 'A' + 'a' : name[i];
      same &= c == p.name[i];
    }
    if (same) return &p;
  }
  return nullptr;
}

}  // namespace memplan::simulator
