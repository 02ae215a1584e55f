#include "predictor/shared_predictions.h"

#include <algorithm>
#include <utility>

namespace memplan::predictor {
namespace {

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Appends the structure: axis count, the distinct shardings, then each
// argument's index among them (one byte under 128 distinct shardings).
void AppendStructure(std::string& key, size_t axis_count, const ArgumentAxes& arguments) {
  Append(key, static_cast<uint32_t>(axis_count));
  Append(key, static_cast<uint64_t>(arguments.distinct.size()));
  for (const AxesSharding& a : arguments.distinct) {
    Append(key, a.partial);
    Append(key, static_cast<uint32_t>(a.dims.size()));
    for (AxisMask m : a.dims) Append(key, m);
  }
  Append(key, static_cast<uint64_t>(arguments.of.size()));
  key.reserve(key.size() + arguments.of.size());
  for (uint32_t index : arguments.of) {
    for (; index >= 0x80; index >>= 7) key.push_back(static_cast<char>(0x80 | (index & 0x7f)));
    key.push_back(static_cast<char>(index));
  }
}

}  // namespace

std::vector<AxesSharding> ArgumentAxes::Expand() const {
  std::vector<AxesSharding> out;
  out.reserve(of.size());
  for (uint32_t index : of) out.push_back(distinct[index]);
  return out;
}

std::string SharedPredictions::Key(const MeshSizes& mesh, const ArgumentAxes& arguments) {
  std::string key;
  for (int64_t size : mesh.sizes) Append(key, size);
  AppendStructure(key, mesh.sizes.size(), arguments);
  return key;
}

std::string SharedPredictions::StructureKey(size_t axis_count,
                                            const ArgumentAxes& arguments) {
  std::string key;
  AppendStructure(key, axis_count, arguments);
  return key;
}

std::shared_ptr<const SharedPrediction> SharedPredictions::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}

void SharedPredictions::Insert(std::string key, std::shared_ptr<const SharedPrediction> entry) {
  if (capacity_ == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.contains(key)) return;
  while (entries_.size() >= capacity_ && !order_.empty()) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
  order_.push_back(key);
  entries_.emplace(std::move(key), std::move(entry));
}

std::shared_ptr<const StructuralPrediction> SharedPredictions::FindStructure(
    const std::string& key, const MeshSizes& mesh) const {
  std::vector<std::shared_ptr<const StructuralPrediction>> candidates;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = structures_.find(key);
    if (it == structures_.end()) return nullptr;
    candidates = it->second;
  }
  for (const auto& entry : candidates) {
    if (entry->answers.Holds(mesh)) return entry;
  }
  return nullptr;
}

void SharedPredictions::InsertStructure(const std::string& key,
                                        std::shared_ptr<const StructuralPrediction> entry) {
  if (capacity_ == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  while (structure_order_.size() >= capacity_) {
    // Not a structured binding: clang 14 cannot capture one in the lambda.
    const std::string& old_key = structure_order_.front().first;
    const StructuralPrediction* old = structure_order_.front().second;
    auto it = structures_.find(old_key);
    if (it != structures_.end()) {
      auto& list = it->second;
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const auto& e) { return e.get() == old; }),
                 list.end());
      if (list.empty()) structures_.erase(it);
    }
    structure_order_.pop_front();
  }
  structure_order_.emplace_back(key, entry.get());
  structures_[key].push_back(std::move(entry));
}

}  // namespace memplan::predictor
