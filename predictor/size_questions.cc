#include "predictor/size_questions.h"

#include <algorithm>

namespace memplan::predictor {

int64_t ByteTerm::Evaluate(const MeshSizes& mesh) const {
  int64_t bytes = ShardBytes(*shape, sharding, mesh);
  if (extra_full != 0) bytes += extra_full / std::max<int64_t>(1, mesh.Ways(extra_split));
  return bytes;
}

bool SizeAnswers::Holds(const MeshSizes& mesh) const {
  for (const auto& [q, answer] : divides_) {
    if ((q.first % mesh.Ways(q.second) == 0) != answer) return false;
  }
  for (const auto& [q, answer] : more_ways_) {
    if ((mesh.Ways(q.first) > mesh.Ways(q.second)) != answer) return false;
  }
  for (const BytesQuestion& q : bytes_) {
    const int64_t a = q.a.Evaluate(mesh), b = q.b.Evaluate(mesh);
    if ((q.compare == Compare::kLess ? a < b : a == b) != q.answer) return false;
  }
  return true;
}

bool SizeQuestions::Divides(int64_t n, AxisMask mask) const {
  const bool answer = n % mesh_.Ways(mask) == 0;
  if (record_ != nullptr) record_->divides_.try_emplace({n, mask}, answer);
  return answer;
}

bool SizeQuestions::MoreWays(AxisMask a, AxisMask b) const {
  const bool answer = mesh_.Ways(a) > mesh_.Ways(b);
  if (record_ != nullptr) record_->more_ways_.try_emplace({a, b}, answer);
  return answer;
}

bool SizeQuestions::BytesLess(const ByteTerm& a, const ByteTerm& b) const {
  const bool answer = a.Evaluate(mesh_) < b.Evaluate(mesh_);
  if (record_ != nullptr) record_->bytes_.push_back({a, b, SizeAnswers::Compare::kLess, answer});
  return answer;
}

bool SizeQuestions::BytesEqual(const ByteTerm& a, const ByteTerm& b) const {
  const bool answer = a.Evaluate(mesh_) == b.Evaluate(mesh_);
  if (record_ != nullptr) record_->bytes_.push_back({a, b, SizeAnswers::Compare::kEqual, answer});
  return answer;
}

}  // namespace memplan::predictor
