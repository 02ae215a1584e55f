#include "predictor/collective_bytes.h"

#include <string>

#include "absl/container/flat_hash_map.h"

namespace memplan::predictor {
namespace {

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// What ShardBytes reads of an array shape and a sharding.
void ArrayKey(const ir::Shape& shape, const AxesSharding& sharding, std::string& key) {
  key.clear();
  Append(key, shape.dtype);
  Append(key, shape.layout ? shape.layout->element_size_bits : 0);
  Append(key, static_cast<uint32_t>(shape.dims.size()));
  for (int64_t d : shape.dims) Append(key, d);
  Append(key, sharding.partial);
  Append(key, static_cast<uint32_t>(sharding.dims.size()));
  for (AxisMask m : sharding.dims) Append(key, m);
}

}  // namespace

CollectiveByteTerms CollectiveByteTerms::Of(const std::vector<CollectiveShards>& shards) {
  CollectiveByteTerms out;
  out.operand_.reserve(shards.size());
  out.result_.reserve(shards.size());
  absl::flat_hash_map<std::string, uint32_t> index;
  std::string key;
  auto term = [&](const ir::Shape* shape, const AxesSharding& sharding) {
    if (!shape->IsArray()) {
      out.terms_.push_back({shape, sharding});
      return static_cast<uint32_t>(out.terms_.size() - 1);
    }
    ArrayKey(*shape, sharding, key);
    auto [it, added] = index.try_emplace(key, static_cast<uint32_t>(out.terms_.size()));
    if (added) out.terms_.push_back({shape, sharding});
    return it->second;
  };
  for (const CollectiveShards& s : shards) {
    out.operand_.push_back(term(s.shape, s.operand));
    out.result_.push_back(term(s.shape, s.result));
  }
  return out;
}

void CollectiveByteTerms::SetBytes(const MeshSizes& mesh,
                                   std::vector<PredictedCollective>& collectives) const {
  std::vector<int64_t> bytes(terms_.size());
  for (size_t t = 0; t < terms_.size(); ++t) {
    bytes[t] = ShardBytes(*terms_[t].shape, terms_[t].sharding, mesh);
  }
  for (size_t i = 0; i < collectives.size(); ++i) {
    collectives[i].operand_bytes = bytes[operand_[i]];
    collectives[i].result_bytes = bytes[result_[i]];
  }
}

}  // namespace memplan::predictor
