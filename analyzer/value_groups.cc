#include "analyzer/value_groups.h"

#include <algorithm>
#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"

#include "analyzer/source_resolution.h"
#include "ir/shape.h"
#include "ir/strings.h"

namespace memplan::analyzer {
namespace {

// What makes two values the same layer.
struct GroupKey {
  std::string_view shape;  // held by ShapeKeys
  int64_t size = 0;
  int category = 0;
  std::string_view file;
  int64_t line = 0;
  std::string_view op_name;  // only where there is no source file

  bool operator==(const GroupKey& o) const {
    return size == o.size && category == o.category && line == o.line &&
           SameText(shape, o.shape) && SameText(file, o.file) && SameText(op_name, o.op_name);
  }
  // Equal texts are mostly the same view (shape keys are held once, source
  // files interned by the parser): the bytes are compared only when not.
  static bool SameText(std::string_view a, std::string_view b) {
    return (a.data() == b.data() && a.size() == b.size()) || a == b;
  }
  template <typename H>
  friend H AbslHashValue(H h, const GroupKey& k) {
    return H::combine(std::move(h), ToAbsl(k.shape), k.size, k.category, ToAbsl(k.file), k.line,
                      ToAbsl(k.op_name));
  }
};

// Each shape's layout-free form, made once per distinct form and held (at a
// stable address) for as long as this object lives.
class ShapeKeys {
 public:
  std::string_view Of(const ir::Value& value) {
    if (value.shape.dtype != ir::DType::kInvalid) {
      // Made from the parsed shape, not looked up by its text: the text is a
      // view into the input, and reading every value's would make the whole
      // input file resident again after the parse released it.
      if (!value.shape.IsTuple()) return OfArray(value);
      std::string key = Make(value);
      auto it = keys_.find(key);
      if (it != keys_.end()) return it->second;
      const std::string_view stored = Store(std::move(key));
      keys_.emplace(stored, stored);
      return stored;
    }
    if (value.shape_text.empty()) return Store(Make(value));  // nothing to key the cache by
    auto [it, inserted] = keys_.try_emplace(value.shape_text);
    if (inserted) it->second = Store(Make(value));
    return it->second;
  }

 private:
  static std::string Make(const ir::Value& value) {
    return value.shape.dtype == ir::DType::kInvalid
               ? std::string(value.shape_text)
               : ir::ShapeToString(value.shape, /*with_layout=*/false);
  }
  // An array shape's form, looked up by its element type and dimensions
  // (equal ones print alike) and printed once per distinct one.
  std::string_view OfArray(const ir::Value& value) {
    const ir::Shape& shape = value.shape;
    // Values come largest first, so a shape often follows itself: the last
    // one found is compared before hashing.
    if (last_array_ != kNone && Matches(arrays_entries_[last_array_], shape)) {
      return arrays_entries_[last_array_].key;
    }
    size_t hash = absl::HashOf(static_cast<int>(shape.dtype), shape.dims, shape.dynamic_dims);
    auto [it, inserted] = arrays_.try_emplace(hash, arrays_entries_.size());
    size_t at = it->second;
    if (!inserted) {
      while (at != kNone) {
        const ArrayEntry& entry = arrays_entries_[at];
        if (Matches(entry, shape)) {
          last_array_ = at;
          return entry.key;
        }
        at = entry.next;
      }
      at = it->second;  // a new shape of the same hash: chained before the others
      it->second = arrays_entries_.size();
    } else {
      at = kNone;
    }
    const std::string_view key = Store(Make(value));
    last_array_ = arrays_entries_.size();
    arrays_entries_.push_back({shape.dtype, shape.dims, shape.dynamic_dims, key, at});
    return key;
  }
  static constexpr size_t kNone = ~size_t{0};
  struct ArrayEntry {
    ir::DType dtype;
    std::vector<int64_t> dims;
    ir::DynamicDims dynamic_dims;
    std::string_view key;
    size_t next;  // the next entry of the same hash, or kNone
  };
  static bool Matches(const ArrayEntry& entry, const ir::Shape& shape) {
    return entry.dtype == shape.dtype && entry.dims == shape.dims &&
           entry.dynamic_dims == shape.dynamic_dims;
  }
  absl::flat_hash_map<size_t, size_t> arrays_;  // hash -> last entry of that hash
  std::vector<ArrayEntry> arrays_entries_;
  size_t last_array_ = kNone;  // the entry OfArray returned last

  std::string_view Store(std::string key) {
    storage_.push_back(std::move(key));
    return storage_.back();
  }
  absl::flat_hash_map<std::string_view, std::string_view> keys_;
  std::deque<std::string> storage_;
};

// Each value's GroupKey, its texts held here (shape keys) or by the program.
class GroupKeyMaker {
 public:
  GroupKeyMaker(const ir::Program& program, const std::vector<ValueOrigin>& origins)
      : program_(program), origins_(origins) {}

  // `value`'s key: its layout-free shape, size and category (its
  // allocation's; temporary without one), and its origin's source file and
  // line, or the op name where there is no file. `value` is one of the
  // program's values.
  GroupKey Of(const ir::Value& value) {
    GroupKey key;
    key.shape = shapes_.Of(value);
    key.size = value.size;
    const ir::Allocation* allocation = AllocationOf(value);
    key.category = static_cast<int>(allocation != nullptr ? CategoryOf(*allocation)
                                                          : ValueCategory::kTemporary);
    const ValueOrigin& origin = origins_[static_cast<size_t>(&value - program_.values.data())];
    if (origin.source != nullptr) {
      const SourceLocation location = SourceLocationOf(program_.module, *origin.source);
      key.file = location.file;
      key.line = location.line;
    }
    if (key.file.empty() && origin.op != nullptr) key.op_name = origin.op->op_name;
    return key;
  }

 private:
  // `value`'s allocation, or nullptr. Values of one allocation come in
  // runs: the allocation is looked up once a run.
  const ir::Allocation* AllocationOf(const ir::Value& value) {
    if (last_allocation_ == nullptr || !(value.allocation == last_allocation_id_)) {
      last_allocation_id_ = value.allocation;
      last_allocation_ = program_.FindAllocation(value.allocation);
    }
    return last_allocation_;
  }

  const ir::Program& program_;
  const std::vector<ValueOrigin>& origins_;
  ShapeKeys shapes_;
  ir::AllocationId last_allocation_id_;
  const ir::Allocation* last_allocation_ = nullptr;
};

// An empty group of the values with `key`, each of `bytes_each` bytes.
ValueGroup NewGroup(const GroupKey& key, int64_t bytes_each) {
  ValueGroup group;
  group.shape = std::string(key.shape);
  group.category = static_cast<ValueCategory>(key.category);
  group.source_file = key.file;
  group.source_line = key.line;
  group.op_name = key.op_name;
  group.bytes_each = bytes_each;
  return group;
}

// `groups` most total bytes first; ties in the order of their first
// member's position (`first_position[g]` for group g).
std::vector<ValueGroup> ByTotalBytes(std::vector<ValueGroup> groups,
                                     const std::vector<size_t>& first_position) {
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

// Groups the values `value_at(i)` for i < n, whose ids are `id_at(i)`
// (nullptr values skipped), as GroupValues promises.
template <typename ValueAt, typename IdAt>
std::vector<ValueGroup> GroupValuesWith(const ir::Program& program,
                                        const std::vector<ValueOrigin>& origins, size_t n,
                                        ValueAt value_at, IdAt id_at) {
  GroupKeyMaker keys(program, origins);  // holds the shape texts the keys below view
  std::vector<ValueGroup> groups;
  std::vector<size_t> first_position;  // of each group's first member in the list
  absl::flat_hash_map<GroupKey, size_t> index;
  constexpr size_t kNoGroup = ~size_t{0};
  GroupKey last_key;
  size_t last_group = kNoGroup;
  for (size_t i = 0; i < n; ++i) {
    const ir::Value* value = value_at(i);
    if (value == nullptr) continue;
    const GroupKey key = keys.Of(*value);
    // Runs of one key (values of one size, shape and source line, largest
    // first) skip the hash of the key's texts.
    if (last_group == kNoGroup || !(key == last_key)) {
      auto [it, inserted] = index.try_emplace(key, groups.size());
      last_key = key;
      last_group = it->second;
      if (inserted) {
        groups.push_back(NewGroup(key, value->size));
        first_position.push_back(i);
      }
    }
    groups[last_group].values.push_back(id_at(i));
    groups[last_group].total_bytes += value->size;
  }
  return ByTotalBytes(std::move(groups), first_position);
}

}  // namespace

std::vector<ValueGroup> GroupValues(const ir::Program& program,
                                    const std::vector<ValueOrigin>& origins,
                                    const std::vector<ir::ValueId>& ids) {
  return GroupValuesWith(
      program, origins, ids.size(), [&](size_t i) { return program.FindValue(ids[i]); },
      [&](size_t i) { return ids[i]; });
}

std::vector<ValueGroup> GroupValuesAt(const ir::Program& program,
                                      const std::vector<ValueOrigin>& origins,
                                      const std::vector<size_t>& indices) {
  return GroupValuesWith(
      program, origins, indices.size(), [&](size_t i) { return &program.values[indices[i]]; },
      [&](size_t i) { return program.values[indices[i]].id; });
}

}  // namespace memplan::analyzer
