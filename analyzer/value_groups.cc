#include "analyzer/value_groups.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"

#include "analyzer/source_resolution.h"
#include "ir/shape.h"
#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

// What makes two values the same layer.
struct GroupKey {
  std::string shape;
  int64_t size = 0;
  int category = 0;
  std::string_view file;
  int64_t line = 0;
  std::string_view op_name;  // only where there is no source file

  bool operator==(const GroupKey& o) const {
    return std::tie(shape, size, category, file, line, op_name) ==
           std::tie(o.shape, o.size, o.category, o.file, o.line, o.op_name);
  }
  template <typename H>
  friend H AbslHashValue(H h, const GroupKey& k) {
    return H::combine(std::move(h), ToAbsl(k.shape), k.size, k.category, ToAbsl(k.file), k.line,
                      ToAbsl(k.op_name));
  }
};

// Each shape text's layout-free form, made once per distinct text.
class ShapeKeys {
 public:
  std::string Of(const ir::Value& value) {
    if (value.shape_text.empty()) return Make(value);  // nothing to key the cache by
    auto [it, inserted] = keys_.try_emplace(value.shape_text);
    if (inserted) it->second = Make(value);
    return it->second;
  }

 private:
  static std::string Make(const ir::Value& value) {
    return value.shape.dtype == ir::DType::kInvalid
               ? std::string(value.shape_text)
               : ir::ShapeToString(value.shape, /*with_layout=*/false);
  }
  absl::flat_hash_map<std::string_view, std::string> keys_;
};

}  // namespace

std::vector<ValueGroup> GroupValues(const ir::Program& program,
                                    const std::vector<ValueOrigin>& origins,
                                    const std::vector<ir::ValueId>& ids) {
  std::vector<ValueGroup> groups;
  std::vector<size_t> first_position;  // of each group's first member in `ids`
  absl::flat_hash_map<GroupKey, size_t> index;
  ShapeKeys shapes;
  for (size_t i = 0; i < ids.size(); ++i) {
    const ir::Value* value = program.FindValue(ids[i]);
    if (value == nullptr) continue;
    GroupKey key;
    key.shape = shapes.Of(*value);
    key.size = value->size;
    const ir::Allocation* allocation = program.FindAllocation(value->allocation);
    key.category = static_cast<int>(allocation != nullptr ? CategoryOf(*allocation)
                                                          : ValueCategory::kTemporary);
    const ValueOrigin& origin = origins[static_cast<size_t>(value - program.values.data())];
    if (origin.source != nullptr) {
      const SourceLocation location = SourceLocationOf(program.module, *origin.source);
      key.file = location.file;
      key.line = location.line;
    }
    if (key.file.empty() && origin.op != nullptr) key.op_name = origin.op->op_name;
    auto [it, inserted] = index.try_emplace(key, groups.size());
    if (inserted) {
      ValueGroup group;
      group.shape = key.shape;
      group.category = static_cast<ValueCategory>(key.category);
      group.source_file = key.file;
      group.source_line = key.line;
      group.op_name = key.op_name;
      group.bytes_each = value->size;
      groups.push_back(std::move(group));
      first_position.push_back(i);
    }
    ValueGroup& group = groups[it->second];
    group.values.push_back(ids[i]);
    group.total_bytes += value->size;
  }
  std::vector<size_t> order(groups.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (groups[a].total_bytes != groups[b].total_bytes) {
      return groups[a].total_bytes > groups[b].total_bytes;
    }
    return first_position[a] < first_position[b];
  });
  std::vector<ValueGroup> sorted;
  sorted.reserve(groups.size());
  for (size_t i : order) sorted.push_back(std::move(groups[i]));
  return sorted;
}

}  // namespace memplan::analyzer
