// MemoryModel's per-value bytes: each value's bytes under the candidate's
// shardings and mesh (Scaled), and the same for every value at once from a
// structure's flat table (ComputeValueBytes).
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "predictor/memory_model.h"

namespace memplan::predictor {

using Info = Predictor::ValueInfo;

int64_t MemoryModel::Scaled(const Info& v) const {
  const int64_t size = v.value->size;
  if (v.leaf < 0 || v.leaf_shape == nullptr) return size;
  const ir::InstructionId id = v.value->instruction;
  if (!id.valid() || id.value() >= static_cast<int64_t>(leaves_.size())) return size;
  const auto& leaves = leaves_[static_cast<size_t>(id.value())];
  if (v.leaf >= static_cast<int64_t>(leaves.size())) return size;
  const AxesSharding* s = &leaves[static_cast<size_t>(v.leaf)];
  if (s->dims.empty()) return size;
  const int64_t shard = ShardBytesFast(*v.leaf_shape, *s);
  if (v.full_bytes == size || v.full_bytes <= 0) return shard;
  return static_cast<int64_t>(static_cast<__int128>(size) * shard / v.full_bytes);
}

void MemoryModel::BuildWaysTable() {
  ways_.clear();
  if (mesh_.sizes.size() > kWaysTableAxes) return;
  ways_.resize(size_t{1} << mesh_.sizes.size());
  for (size_t mask = 0; mask < ways_.size(); ++mask) ways_[mask] = mesh_.Ways(static_cast<AxisMask>(mask));
}

// ShardBytes(shape, sharding, mesh_) with the ways of each axis set from
// the table (the same products, looked up).
int64_t MemoryModel::ShardBytesFast(const ir::Shape& shape, const AxesSharding& sharding) const {
  if (ways_.empty() || !shape.IsArray() || sharding.dims.empty()) {
    return ShardBytes(shape, sharding, mesh_);
  }
  const size_t mask_limit = ways_.size() - 1;
  int64_t elements = 1;
  const size_t rank = shape.dims.size();
  const size_t sharded = std::min(rank, sharding.dims.size());
  for (size_t d = 0; d < sharded; ++d) {
    int64_t n = shape.dims[d];
    const AxisMask mask = sharding.dims[d];
    if ((mask & ~static_cast<AxisMask>(mask_limit)) != 0) return ShardBytes(shape, sharding, mesh_);
    const int64_t ways = ways_[mask];
    if (ways > 1) n = (n + ways - 1) / ways;
    elements *= n;
  }
  for (size_t d = sharded; d < rank; ++d) elements *= shape.dims[d];
  if (shape.layout && shape.layout->element_size_bits > 0) {
    return (elements * shape.layout->element_size_bits + 7) / 8;
  }
  return elements * ir::DTypeStorageBytes(shape.dtype);
}

std::shared_ptr<const ValueBytesTable> MemoryModel::BuildValueBytesTable() const {
  using Kind = ValueBytesTable::Entry::Kind;
  auto table = std::make_shared<ValueBytesTable>();
  table->ways_table_size = ways_.size();
  const auto mask_limit = static_cast<AxisMask>(ways_.size() - 1);
  const auto& values = p_.values_;
  table->entry_of.resize(values.size());
  // Each distinct entry once, by its fields and dims and masks.
  absl::flat_hash_map<std::vector<int64_t>, uint32_t> index;
  std::vector<int64_t> key;
  std::vector<int64_t> dims;
  std::vector<AxisMask> masks;
  for (size_t i = 0; i < values.size(); ++i) {
    const Info& v = values[i];
    ValueBytesTable::Entry e;
    e.size = v.value->size;
    e.full_bytes = v.full_bytes;
    dims.clear();
    masks.clear();
    // As Scaled: the value's own size unless its leaf has a sharding.
    const std::vector<AxesSharding>* leaves = nullptr;
    const ir::InstructionId id = v.value->instruction;
    if (v.leaf >= 0 && v.leaf_shape != nullptr && id.valid() &&
        id.value() < static_cast<int64_t>(leaves_.size())) {
      leaves = &leaves_[static_cast<size_t>(id.value())];
    }
    const AxesSharding* s = leaves != nullptr && v.leaf < static_cast<int64_t>(leaves->size())
                                ? &(*leaves)[static_cast<size_t>(v.leaf)]
                                : nullptr;
    if (s != nullptr && !s->dims.empty()) {
      const ir::Shape& shape = *v.leaf_shape;
      e.kind = Kind::kSlow;
      bool in_table = shape.IsArray();
      for (AxisMask m : s->dims) in_table = in_table && (m & ~mask_limit) == 0;
      if (in_table) {
        e.kind = Kind::kSharded;
        e.rank = static_cast<uint32_t>(shape.dims.size());
        for (size_t d = 0; d < shape.dims.size(); ++d) {
          dims.push_back(shape.dims[d]);
          masks.push_back(s->Dim(d));
        }
        if (shape.layout && shape.layout->element_size_bits > 0) {
          e.element_bits = shape.layout->element_size_bits;
        } else {
          e.element_bytes = ir::DTypeStorageBytes(shape.dtype);
        }
      }
    }
    key.clear();
    if (e.kind == Kind::kSlow) {
      key.push_back(-1);  // one entry for every slow value
    } else {
      key.insert(key.end(), {static_cast<int64_t>(e.kind), e.size, e.full_bytes, e.element_bits,
                             e.element_bytes});
      key.insert(key.end(), dims.begin(), dims.end());
      key.insert(key.end(), masks.begin(), masks.end());
    }
    auto [it, fresh] = index.try_emplace(key, static_cast<uint32_t>(table->entries.size()));
    if (fresh) {
      e.first_dim = static_cast<uint32_t>(table->dims.size());
      table->dims.insert(table->dims.end(), dims.begin(), dims.end());
      table->masks.insert(table->masks.end(), masks.begin(), masks.end());
      table->entries.push_back(e);
    }
    table->entry_of[i] = it->second;
  }
  return table;
}

void MemoryModel::ComputeValueBytes() {
  value_bytes_.clear();
  if (memo_ == nullptr || ways_.empty()) return;
  std::shared_ptr<const ValueBytesTable> table = memo_->value_bytes();
  if (table == nullptr) {
    memo_->ShareValueBytes(BuildValueBytesTable());
    table = memo_->value_bytes();
  }
  if (table->ways_table_size != ways_.size() || table->entry_of.size() != p_.values_.size()) return;
  using Kind = ValueBytesTable::Entry::Kind;
  // Each distinct entry's bytes (-1: a slow value's own), then each value's.
  std::vector<int64_t> entry_bytes(table->entries.size());
  const int64_t* dims = table->dims.data();
  const AxisMask* masks = table->masks.data();
  for (size_t k = 0; k < table->entries.size(); ++k) {
    const ValueBytesTable::Entry& e = table->entries[k];
    if (e.kind != Kind::kSharded) {
      entry_bytes[k] = e.kind == Kind::kFixed ? e.size : -1;
      continue;
    }
    int64_t elements = 1;
    for (uint32_t d = e.first_dim; d < e.first_dim + e.rank; ++d) {
      int64_t n = dims[d];
      const int64_t ways = ways_[masks[d]];
      if (ways > 1) n = (n + ways - 1) / ways;
      elements *= n;
    }
    const int64_t shard = e.element_bits > 0 ? (elements * e.element_bits + 7) / 8
                                             : elements * e.element_bytes;
    entry_bytes[k] = (e.full_bytes == e.size || e.full_bytes <= 0)
                         ? shard
                         : static_cast<int64_t>(static_cast<__int128>(e.size) * shard /
                                                e.full_bytes);
  }
  value_bytes_.resize(table->entry_of.size());
  const uint32_t* entry_of = table->entry_of.data();
  for (size_t v = 0; v < value_bytes_.size(); ++v) {
    const int64_t bytes = entry_bytes[entry_of[v]];
    value_bytes_[v] = bytes >= 0 ? bytes : Scaled(p_.values_[v]);
  }
}

int64_t MemoryModel::ValueBytes(size_t v) const {
  return value_bytes_.empty() ? Scaled(p_.values_[v]) : value_bytes_[v];
}

}  // namespace memplan::predictor
