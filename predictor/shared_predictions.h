// Work shared between candidates (issue 10): a candidate's propagation and
// memory model depend only on the mesh's axis sizes and the arguments'
// shardings as mesh axes, not on the plan's label, axis names or output
// shardings. Predictor keeps the result per such key, so a candidate whose
// key was seen costs only reading its plan and its output bytes.
//
// Internal to predictor (predict.cc); thread-safe, bounded (the oldest
// entries are dropped first).
#ifndef MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_
#define MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "predictor/predict.h"

namespace memplan::predictor {

// What every candidate of one key shares: the prediction before its output
// shardings are applied.
struct SharedPrediction {
  InstructionShardings leaves;
  // The axes propagation ran on (the plan's, some split: predictor/sub_axes.h).
  SubAxes sub;
  std::vector<AxesSharding> root_leaves;  // the entry root's, as propagated, on `sub`'s axes
  std::vector<PredictedCollective> collective_list;
  std::vector<UnknownPropagation> unknown;
  std::vector<CollectiveGroup> collectives;
  std::vector<std::vector<size_t>> combined_all_reduces;
  // Argument, alias, temp and live peak bytes; output and footprint are the
  // candidate's own.
  DeviceMemory device;
};

class SharedPredictions {
 public:
  explicit SharedPredictions(size_t capacity) : capacity_(capacity) {}

  // The key of a candidate: axis sizes in order, then every argument's
  // split axes per dimension and partial axes.
  static std::string Key(const MeshSizes& mesh, const std::vector<AxesSharding>& arguments);

  // The entry for `key`, or null.
  std::shared_ptr<const SharedPrediction> Find(const std::string& key) const;
  // Keeps `entry` for `key` (a key already present keeps its first entry,
  // which is equal), dropping the oldest entry when full.
  void Insert(std::string key, std::shared_ptr<const SharedPrediction> entry);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<const SharedPrediction>> entries_;
  std::deque<std::string> order_;  // oldest first
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_
