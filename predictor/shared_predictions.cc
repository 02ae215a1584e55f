#include "predictor/shared_predictions.h"

#include <utility>

namespace memplan::predictor {
namespace {

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

}  // namespace

std::string SharedPredictions::Key(const MeshSizes& mesh,
                                   const std::vector<AxesSharding>& arguments) {
  std::string key;
  Append(key, static_cast<uint32_t>(mesh.sizes.size()));
  for (int64_t size : mesh.sizes) Append(key, size);
  Append(key, static_cast<uint64_t>(arguments.size()));
  const AxesSharding* previous = nullptr;
  for (const AxesSharding& a : arguments) {
    // An argument sharded as the one before it (every layer's weight) is
    // one byte.
    if (previous != nullptr && a == *previous) {
      key.push_back('=');
      continue;
    }
    key.push_back('#');
    Append(key, a.partial);
    Append(key, static_cast<uint32_t>(a.dims.size()));
    for (AxisMask m : a.dims) Append(key, m);
    previous = &a;
  }
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

}  // namespace memplan::predictor
