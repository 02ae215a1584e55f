// Work shared between candidates (issue 10): a candidate's propagation and
// memory model depend only on the mesh's axis sizes and the arguments'
// shardings as mesh axes, not on the plan's label, axis names or output
// shardings. Predictor keeps the result per such key, so a candidate whose
// key was seen costs only reading its plan and its output bytes.
//
// Candidates of one structure (axis count and argument shardings as mesh
// axes) but other axis sizes share the propagation: it reads the sizes
// only through the questions predictor/size_questions.h records, so a
// candidate whose mesh answers an entry's recorded questions alike reuses
// that entry's shardings, collectives and unknown places, and only the
// bytes (collectives' and the memory model) are computed for its sizes.
//
// Internal to predictor (predict.cc); thread-safe, bounded (the oldest
// entries are dropped first).
#ifndef MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_
#define MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "predictor/collective_bytes.h"
#include "predictor/packing_memo.h"
#include "predictor/predict.h"
#include "predictor/shared_list.h"
#include "predictor/size_questions.h"

namespace memplan::predictor {

// A plan's argument shardings as mesh axes, each distinct one once: what a
// candidate's key is made of, read without copying a sharding per argument.
struct ArgumentAxes {
  // The distinct shardings, in the order the arguments first use them (so
  // that two plans giving every argument the same sharding read alike,
  // whatever order their tables are in).
  std::vector<AxesSharding> distinct;
  // Per argument (entry parameter order): its index into `distinct`.
  std::vector<uint32_t> of;

  // One sharding per argument.
  std::vector<AxesSharding> Expand() const;
};

// What every candidate of one key shares: the prediction before its output
// shardings are applied.
struct SharedPrediction {
  // The arguments' shardings (equal for every candidate of the key).
  SharedList<AxesSharding> arguments;
  InstructionShardings leaves;
  // The axes propagation ran on (the plan's, some split: predictor/sub_axes.h).
  SubAxes sub;
  std::vector<AxesSharding> root_leaves;  // the entry root's, as propagated, on `sub`'s axes
  SharedList<PredictedCollective> collective_list;
  std::vector<UnknownPropagation> unknown;
  std::vector<CollectiveGroup> collectives;
  SharedList<std::vector<size_t>> combined_all_reduces;
  // Argument, alias, temp and live peak bytes; output and footprint are the
  // candidate's own.
  DeviceMemory device;
  std::shared_ptr<const PeakContents> live_at_peak;
};

// What every candidate of one structure shares while its mesh answers
// `answers` as recorded: the propagation, its collectives' bytes aside.
struct StructuralPrediction {
  SizeAnswers answers;
  // The arguments as mesh axes: every candidate of the structure has these
  // (the structure's key holds each one), so they are kept once, not read
  // out again per candidate.
  SharedList<AxesSharding> arguments;
  InstructionShardings leaves;
  std::vector<AxesSharding> root_leaves;
  std::vector<PredictedCollective> collective_list;  // bytes: of the recorded mesh
  CollectiveByteTerms collective_bytes;              // what the bytes are computed from
  std::vector<UnknownPropagation> unknown;
  // The last temp packing of a candidate of this entry.
  mutable PackingMemo packing;
};

class SharedPredictions {
 public:
  explicit SharedPredictions(size_t capacity) : capacity_(capacity) {}

  // The key of a candidate: axis sizes in order, then the arguments' distinct
  // shardings (split axes per dimension, partial axes) and each argument's
  // index among them. Two candidates' keys are equal exactly when their
  // sizes and every argument's sharding are.
  static std::string Key(const MeshSizes& mesh, const ArgumentAxes& arguments);
  // The key of a candidate's structure: axis count, then the arguments as
  // in Key.
  static std::string StructureKey(size_t axis_count, const ArgumentAxes& arguments);

  // The entry for `key`, or null.
  std::shared_ptr<const SharedPrediction> Find(const std::string& key) const;
  // Keeps `entry` for `key` (a key already present keeps its first entry,
  // which is equal), dropping the oldest entry when full.
  void Insert(std::string key, std::shared_ptr<const SharedPrediction> entry);

  // The first entry kept for structure `key` whose recorded questions `mesh`
  // answers alike, or null.
  std::shared_ptr<const StructuralPrediction> FindStructure(const std::string& key,
                                                            const MeshSizes& mesh) const;
  // Keeps `entry` for structure `key` (after those kept before), dropping
  // the oldest structural entry when full.
  void InsertStructure(const std::string& key, std::shared_ptr<const StructuralPrediction> entry);

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<const SharedPrediction>> entries_;
  std::deque<std::string> order_;  // oldest first
  absl::flat_hash_map<std::string, std::vector<std::shared_ptr<const StructuralPrediction>>>
      structures_;
  // Structural entries, oldest first: (key, entry).
  std::deque<std::pair<std::string, const StructuralPrediction*>> structure_order_;
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SHARED_PREDICTIONS_H_
