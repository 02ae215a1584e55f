// Internal to predictor: the per-device bytes of a structure's collectives
// for each candidate's mesh (predict.cc's Resize). A structure's collectives
// repeat per layer: the same array shape under the same sharding, thousands
// of times. Each distinct (shape, sharding) is kept once as a term, and a
// candidate computes each term's bytes once and copies them to the
// collectives that read it, instead of two ShardBytes per collective.
#ifndef MEMPLAN_PREDICTOR_COLLECTIVE_BYTES_H_
#define MEMPLAN_PREDICTOR_COLLECTIVE_BYTES_H_

#include <cstdint>
#include <vector>

#include "predictor/axes_sharding.h"
#include "predictor/propagation.h"

namespace memplan::predictor {

class CollectiveByteTerms {
 public:
  CollectiveByteTerms() = default;
  // The terms of `shards` (one per collective: its shape, operand and
  // result shardings). Two collectives share a term when ShardBytes would
  // read the same things: array shapes of one element type, packed width
  // and dimensions under equal shardings. Non-array shapes get a term each.
  static CollectiveByteTerms Of(const std::vector<CollectiveShards>& shards);

  // Sets every collective's operand_bytes and result_bytes to
  // ShardBytes(shape, operand or result sharding, mesh). Precondition:
  // `collectives` has one entry per collective of the shards given to Of.
  void SetBytes(const MeshSizes& mesh, std::vector<PredictedCollective>& collectives) const;

  size_t term_count() const { return terms_.size(); }

 private:
  struct Term {
    const ir::Shape* shape = nullptr;
    AxesSharding sharding;
  };
  std::vector<Term> terms_;
  std::vector<uint32_t> operand_, result_;  // per collective: index into terms_
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_COLLECTIVE_BYTES_H_
