#include "predictor/size_questions.h"

#include <algorithm>

#include "absl/strings/string_view.h"

namespace memplan::predictor {

int64_t ByteTerm::Evaluate(const MeshSizes& mesh) const {
  int64_t bytes = ShardBytes(*shape, sharding, mesh);
  if (extra_full != 0) bytes += extra_full / std::max<int64_t>(1, mesh.Ways(extra_split));
  return bytes;
}

namespace {

template <typename T>
void Append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

// Everything ByteTerm::Evaluate reads, as bytes.
void AppendTerm(std::string& out, const ByteTerm& t) {
  Append(out, static_cast<int32_t>(t.shape->dtype));
  Append(out, static_cast<int64_t>(t.shape->layout ? t.shape->layout->element_size_bits : 0));
  Append(out, static_cast<uint32_t>(t.shape->dims.size()));
  for (int64_t d : t.shape->dims) Append(out, d);
  Append(out, static_cast<uint32_t>(t.sharding.dims.size()));
  for (AxisMask m : t.sharding.dims) Append(out, m);
  Append(out, t.sharding.partial);
  Append(out, t.extra_full);
  Append(out, t.extra_split);
}

}  // namespace

void SizeAnswers::AddBytes(const ByteTerm& a, const ByteTerm& b, Compare compare, bool answer) {
  // A shape that is not an array reads as ByteSizeOf whatever its dims:
  // kept as asked.
  if (a.shape->IsArray() && b.shape->IsArray()) {
    // The key is built in a kept buffer and copied only when new (most
    // questions repeat an earlier layer's).
    key_.assign(1, static_cast<char>(compare));
    AppendTerm(key_, a);
    AppendTerm(key_, b);
    if (bytes_asked_.contains(absl::string_view(key_))) return;
    bytes_asked_.insert(key_);
  }
  bytes_.push_back({a, b, compare, answer});
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
  if (record_ != nullptr) record_->AddBytes(a, b, SizeAnswers::Compare::kLess, answer);
  return answer;
}

bool SizeQuestions::BytesEqual(const ByteTerm& a, const ByteTerm& b) const {
  const bool answer = a.Evaluate(mesh_) == b.Evaluate(mesh_);
  if (record_ != nullptr) record_->AddBytes(a, b, SizeAnswers::Compare::kEqual, answer);
  return answer;
}

}  // namespace memplan::predictor
