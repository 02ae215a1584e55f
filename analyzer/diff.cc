#include "analyzer/diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/hlo_attributes.h"


namespace memplan::analyzer {
namespace {

using ValueList = std::vector<const ir::Value*>;

// Groups values by a key; each group in id order (the programs' order).
template <typename Key, typename KeyOf>
std::map<Key, ValueList> GroupBy(const ValueList& values, KeyOf key_of) {
  std::map<Key, ValueList> groups;
  for (const ir::Value* v : values) groups[key_of(*v)].push_back(v);
  return groups;
}

using FullKey = std::tuple<std::string_view, std::string, std::string_view>;
using NameKey = std::pair<std::string_view, std::string>;

// Keys of one program's values: the two programs are different graphs, so
// what names a value across them is its defining instruction's name.
auto FullKeyOf(const ir::Program& program) {
  return [&program](const ir::Value& v) -> FullKey {
    return {program.InstructionName(v.instruction), ir::ShapeIndexToString(v.index), v.shape_text};
  };
}
auto NameKeyOf(const ir::Program& program) {
  return [&program](const ir::Value& v) -> NameKey {
    return {program.InstructionName(v.instruction), ir::ShapeIndexToString(v.index)};
  };
}

// What an instruction is, without its name or element types: a hash of its
// opcode, its parameter number or tuple index, and its operands' identities,
// so that two compiles of one program (or the same program read from two
// formats) give the same instructions the same identity even where XLA
// numbered them differently or a dtype changed. Converts, bitcasts and
// copies pass their operand's identity through (a dtype change inserts
// them), so what follows them keeps its identity too; the key below adds
// the instruction's own opcode. 0 for an instruction the input does not
// place in the graph.
class Identities {
 public:
  explicit Identities(const ir::Program& program)
      : module_(program.module), of_(module_.instruction_count(), 0),
        done_(module_.instruction_count(), 0) {}

  uint64_t Of(ir::InstructionId id) {
    if (!module_.contains(id)) return 0;
    if (done_[id.value()]) return of_[id.value()];
    // Operands first, with an explicit stack (graphs can be deep).
    std::vector<std::pair<ir::InstructionId, bool>> stack = {{id, false}};
    while (!stack.empty()) {
      auto [current, expanded] = stack.back();
      stack.pop_back();
      if (done_[current.value()]) continue;
      const ir::Instruction& instruction = module_.instruction(current);
      if (!expanded) {
        stack.push_back({current, true});
        for (ir::InstructionId operand : instruction.operands) {
          if (module_.contains(operand) && !done_[operand.value()]) {
            stack.push_back({operand, false});
          }
        }
        continue;
      }
      of_[current.value()] = Compute(instruction);
      done_[current.value()] = 1;
    }
    return of_[id.value()];
  }

 private:
  static uint64_t Mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ULL;
  }
  static uint64_t HashText(std::string_view text) {
    uint64_t h = 1469598103934665603ULL;
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return h;
  }

  uint64_t Compute(const ir::Instruction& instruction) {
    if (!instruction.computation.valid() && instruction.operands.empty() &&
        instruction.opcode == ir::Opcode::kUnknown) {
      return 0;  // named by the input, not placed in the graph
    }
    const bool passes_through =
        (instruction.opcode == ir::Opcode::kConvert || instruction.opcode == ir::Opcode::kBitcast ||
         instruction.opcode == ir::Opcode::kCopy ||
         instruction.opcode == ir::Opcode::kBitcastConvert) &&
        instruction.operands.size() == 1 && module_.contains(instruction.operands[0]);
    if (passes_through) return of_[instruction.operands[0].value()];
    uint64_t h = HashText(instruction.opcode_text);
    // Where it lives: the entry computation, or another with so many
    // parameters (a reducer's parameter 0 is not the program's argument 0).
    if (module_.contains(instruction.computation)) {
      const bool entry = instruction.computation == module_.entry;
      h = Mix(h, entry ? 1 : 2 + module_.computation(instruction.computation).parameters.size());
    }
    // Rank, or tuple arity: a dtype change keeps them.
    h = Mix(h, instruction.shape->dims.size() + 3);
    h = Mix(h, instruction.shape->tuple_elements.size() + 5);
    const ir::HloAttributes& attributes = module_.attributes(instruction);
    h = Mix(h, static_cast<uint64_t>(attributes.parameter_number + 2));
    h = Mix(h, static_cast<uint64_t>(attributes.tuple_index + 2));
    h = Mix(h, instruction.is_root ? 1 : 2);
    h = Mix(h, instruction.operands.size());
    for (ir::InstructionId operand : instruction.operands) {
      h = Mix(h, module_.contains(operand) ? of_[operand.value()] : 7);
    }
    return h == 0 ? 1 : h;
  }

  const ir::Module& module_;
  std::vector<uint64_t> of_;
  std::vector<uint8_t> done_;
};

// (identity, own opcode, shape index); values whose instruction has no
// identity get none and are matched by name.
using IdentityKey = std::tuple<uint64_t, std::string_view, std::string>;

auto IdentityKeyOf(const ir::Program& program, Identities& identities) {
  return [&program, &identities](const ir::Value& v) -> IdentityKey {
    const uint64_t identity = identities.Of(v.instruction);
    if (identity == 0) return {0, {}, {}};
    return {identity, program.module.instruction(v.instruction).opcode_text,
            ir::ShapeIndexToString(v.index)};
  };
}

struct Matching {
  std::vector<std::pair<const ir::Value*, const ir::Value*>> pairs;
  ValueList old_left;
  ValueList new_left;
};

// Pairs values with equal keys, in id order; returns the pairs and what is
// left on each side (in id order).
template <typename Key, typename OldKeyOf, typename NewKeyOf>
Matching Match(const ValueList& old_values, const ValueList& new_values, OldKeyOf old_key_of,
               NewKeyOf new_key_of) {
  Matching m;
  auto old_groups = GroupBy<Key>(old_values, old_key_of);
  auto new_groups = GroupBy<Key>(new_values, new_key_of);
  for (auto& [key, olds] : old_groups) {
    auto it = new_groups.find(key);
    size_t paired = 0;
    if (it != new_groups.end()) {
      ValueList& news = it->second;
      paired = std::min(olds.size(), news.size());
      for (size_t i = 0; i < paired; ++i) m.pairs.emplace_back(olds[i], news[i]);
      news.erase(news.begin(), news.begin() + paired);
    }
    m.old_left.insert(m.old_left.end(), olds.begin() + paired, olds.end());
  }
  for (auto& [key, news] : new_groups) m.new_left.insert(m.new_left.end(), news.begin(), news.end());
  auto by_id = [](const ir::Value* a, const ir::Value* b) { return a->id < b->id; };
  std::sort(m.old_left.begin(), m.old_left.end(), by_id);
  std::sort(m.new_left.begin(), m.new_left.end(), by_id);
  return m;
}

ValueChange ChangeOf(ValueChangeKind kind, const ir::Program& old_program,
                     const ir::Value* old_value, const ir::Program& new_program,
                     const ir::Value* new_value) {
  ValueChange c;
  c.kind = kind;
  c.name = new_value != nullptr ? new_program.ValueName(*new_value)
                                : old_program.ValueName(*old_value);
  if (old_value != nullptr) {
    c.old_id = old_value->id;
    c.old_shape = std::string(old_value->shape_text);
    c.old_bytes = old_value->size;
  }
  if (new_value != nullptr) {
    c.new_id = new_value->id;
    c.new_shape = std::string(new_value->shape_text);
    c.new_bytes = new_value->size;
  }
  return c;
}

// The headline peak: memory occupied, shared bytes once.
std::optional<int64_t> PeakBytes(const Analysis& analysis) {
  if (!analysis.occupied_peak) return std::nullopt;
  return analysis.occupied_peak->bytes;
}

}  // namespace

std::optional<double> CategoryDelta::percent() const {
  if (!old_bytes || !new_bytes || *old_bytes == 0) return std::nullopt;
  return static_cast<double>(*new_bytes - *old_bytes) / static_cast<double>(*old_bytes) * 100.0;
}

std::string_view ValueChangeKindName(ValueChangeKind kind) {
  switch (kind) {
    case ValueChangeKind::kAppeared:
      return "appeared";
    case ValueChangeKind::kGrew:
      return "grew";
    case ValueChangeKind::kShrank:
      return "shrank";
    case ValueChangeKind::kVanished:
      return "vanished";
  }
  return "unknown";
}

bool ProgramDiff::Empty() const {
  if (changed_values != 0) return false;
  for (const CategoryDelta& c : categories) {
    if (c.old_bytes != c.new_bytes) return false;
  }
  return true;
}

namespace {

// argument ... device footprint as stated, then the live peak.
std::vector<CategoryDelta> CategoryDeltas(const Analysis& old_analysis, const Analysis& new_analysis) {
  const MemoryStats& o = old_analysis.stats;
  const MemoryStats& n = new_analysis.stats;
  std::vector<CategoryDelta> out;
  auto stated = [&](const char* name, StatsField field) {
    out.push_back({name, o.Get(field), n.Get(field)});
  };
  stated("argument", StatsField::kArgument);
  stated("output", StatsField::kOutput);
  stated("alias", StatsField::kAlias);
  stated("temp", StatsField::kTemp);
  stated("constant", StatsField::kConstant);
  stated("thread-local", StatsField::kThreadLocal);
  stated("total allocation", StatsField::kTotalAllocation);
  stated("device footprint", StatsField::kDeviceFootprint);
  out.push_back({"live peak", PeakBytes(old_analysis), PeakBytes(new_analysis)});
  return out;
}

// The three passes of matching, in order; each later one sees only what
// the earlier left.
struct Matchings {
  Matching by_identity;
  Matching exact;
  Matching by_name;
};

// Values matched by identity in the graph first (values of instructions
// the input does not place in the graph are held back), then what is left
// by full key, then by name.
Matchings MatchValues(const ir::Program& old_program, const ir::Program& new_program) {
  Identities old_identities(old_program);
  Identities new_identities(new_program);
  auto old_identity = IdentityKeyOf(old_program, old_identities);
  auto new_identity = IdentityKeyOf(new_program, new_identities);
  ValueList old_placed, old_unplaced, new_placed, new_unplaced;
  for (const ir::Value& v : old_program.values) {
    (std::get<0>(old_identity(v)) != 0 ? old_placed : old_unplaced).push_back(&v);
  }
  for (const ir::Value& v : new_program.values) {
    (std::get<0>(new_identity(v)) != 0 ? new_placed : new_unplaced).push_back(&v);
  }
  Matchings m;
  m.by_identity = Match<IdentityKey>(old_placed, new_placed, old_identity, new_identity);
  ValueList old_rest = m.by_identity.old_left;
  ValueList new_rest = m.by_identity.new_left;
  old_rest.insert(old_rest.end(), old_unplaced.begin(), old_unplaced.end());
  new_rest.insert(new_rest.end(), new_unplaced.begin(), new_unplaced.end());
  auto by_id = [](const ir::Value* a, const ir::Value* b) { return a->id < b->id; };
  std::sort(old_rest.begin(), old_rest.end(), by_id);
  std::sort(new_rest.begin(), new_rest.end(), by_id);
  m.exact = Match<FullKey>(old_rest, new_rest, FullKeyOf(old_program), FullKeyOf(new_program));
  m.by_name = Match<NameKey>(m.exact.old_left, m.exact.new_left, NameKeyOf(old_program),
                             NameKeyOf(new_program));
  return m;
}

// Every pair whose size changed, then what vanished and what appeared;
// counts the unchanged pairs.
std::vector<ValueChange> ChangesOf(const Matchings& m, const ir::Program& old_program,
                                   const ir::Program& new_program, int64_t& unchanged) {
  std::vector<ValueChange> changes;
  for (const Matching* matching : {&m.by_identity, &m.exact, &m.by_name}) {
    for (const auto& [old_value, new_value] : matching->pairs) {
      if (old_value->size == new_value->size) {
        ++unchanged;
        continue;
      }
      changes.push_back(ChangeOf(new_value->size > old_value->size ? ValueChangeKind::kGrew
                                                                   : ValueChangeKind::kShrank,
                                 old_program, old_value, new_program, new_value));
    }
  }
  for (const ir::Value* v : m.by_name.old_left) {
    changes.push_back(ChangeOf(ValueChangeKind::kVanished, old_program, v, new_program, nullptr));
  }
  for (const ir::Value* v : m.by_name.new_left) {
    changes.push_back(ChangeOf(ValueChangeKind::kAppeared, old_program, nullptr, new_program, v));
  }
  return changes;
}

// The `top_n` largest changes by |delta| (all for top_n <= 0), then by
// name and ids.
void KeepLargest(std::vector<ValueChange>& changes, int top_n) {
  auto order = [](const ValueChange& a, const ValueChange& b) {
    const int64_t da = std::llabs(a.delta());
    const int64_t db = std::llabs(b.delta());
    if (da != db) return da > db;
    if (a.name != b.name) return a.name < b.name;
    if (a.old_id != b.old_id) return a.old_id < b.old_id;
    return a.new_id < b.new_id;
  };
  const size_t keep =
      top_n <= 0 ? changes.size() : std::min(changes.size(), static_cast<size_t>(top_n));
  std::partial_sort(changes.begin(), changes.begin() + keep, changes.end(), order);
  changes.resize(keep);
}

}  // namespace

ProgramDiff DiffPrograms(const ir::Program& old_program, const Analysis& old_analysis,
                         const ir::Program& new_program, const Analysis& new_analysis,
                         const ProgramDiff::Options& options) {
  ProgramDiff diff;
  diff.old_module = old_program.module_name;
  diff.new_module = new_program.module_name;
  diff.categories = CategoryDeltas(old_analysis, new_analysis);
  std::vector<ValueChange> changes =
      ChangesOf(MatchValues(old_program, new_program), old_program, new_program, diff.unchanged_values);
  for (const ValueChange& c : changes) {
    ChangeSummary& s = diff.summary[static_cast<int>(c.kind)];
    ++s.count;
    s.bytes += c.delta();
  }
  diff.changed_values = static_cast<int64_t>(changes.size());
  KeepLargest(changes, options.top_n);
  diff.changes = std::move(changes);
  return diff;
}

}  // namespace memplan::analyzer
