// Internal to predictor: the questions propagation asks of the mesh's axis
// sizes. Propagation reads the sizes only through these predicates (does
// Ways(mask) divide n, does one set of axes split over more devices than
// another, is one per-device byte count smaller than or equal to another);
// everything else it does depends on which mesh axes shard what, not on
// how large they are. A SizeAnswers records every question asked and its
// answer, so that a candidate whose mesh has other sizes but the same
// structure (axis count and argument shardings as mesh axes) and gives the
// same answers propagates exactly as the recorded one did
// (predictor/shared_predictions.h).
#ifndef MEMPLAN_PREDICTOR_SIZE_QUESTIONS_H_
#define MEMPLAN_PREDICTOR_SIZE_QUESTIONS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/shape.h"
#include "predictor/axes_sharding.h"

namespace memplan::predictor {

// A per-device byte count: ShardBytes(*shape, sharding) plus, when
// `extra_full` is not 0, extra_full / max(1, Ways(extra_split)).
struct ByteTerm {
  const ir::Shape* shape = nullptr;
  AxesSharding sharding;
  int64_t extra_full = 0;
  AxisMask extra_split = 0;

  int64_t Evaluate(const MeshSizes& mesh) const;
};

// The questions asked and their answers.
class SizeAnswers {
 public:
  // Whether `mesh` answers every recorded question as recorded.
  bool Holds(const MeshSizes& mesh) const;
  size_t size() const { return divides_.size() + more_ways_.size() + bytes_.size(); }
  // Drops what only recording needs (kept entries hold the answers alone).
  void FinishRecording() {
    absl::flat_hash_set<std::string>().swap(bytes_asked_);
    std::string().swap(key_);
  }

 private:
  friend class SizeQuestions;
  enum class Compare : uint8_t { kLess, kEqual };
  struct BytesQuestion {
    ByteTerm a, b;
    Compare compare;
    bool answer;
  };
  absl::flat_hash_map<std::pair<int64_t, AxisMask>, bool> divides_;
  absl::flat_hash_map<std::pair<AxisMask, AxisMask>, bool> more_ways_;
  std::vector<BytesQuestion> bytes_;
  // The byte questions asked, by what their answers depend on (element
  // type and bits, dims, shardings, extras: the same for every layer of a
  // model), so that each is kept once.
  absl::flat_hash_set<std::string> bytes_asked_;
  std::string key_;  // AddBytes' key buffer (reused, so no allocation per question)
  void AddBytes(const ByteTerm& a, const ByteTerm& b, Compare compare, bool answer);
};

// Answers from `mesh`, each recorded in `record` when it is not null.
class SizeQuestions {
 public:
  SizeQuestions(const MeshSizes& mesh, SizeAnswers* record) : mesh_(mesh), record_(record) {}

  // n % Ways(mask) == 0.
  bool Divides(int64_t n, AxisMask mask) const;
  // Ways(a) > Ways(b).
  bool MoreWays(AxisMask a, AxisMask b) const;
  // a.Evaluate() < b.Evaluate(); a.Evaluate() == b.Evaluate().
  bool BytesLess(const ByteTerm& a, const ByteTerm& b) const;
  bool BytesEqual(const ByteTerm& a, const ByteTerm& b) const;

  const MeshSizes& mesh() const { return mesh_; }
  bool recording() const { return record_ != nullptr; }

 private:
  const MeshSizes& mesh_;
  SizeAnswers* record_;
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SIZE_QUESTIONS_H_
