#include "executor/collective_data.h"

#include <algorithm>

namespace memplan::executor {
namespace {

bool Reduces(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

}  // namespace

double BusBandwidthFactor(CollectiveKind kind, int n) {
  if (kind == CollectiveKind::kSendRecv) return 1.0;
  if (n <= 1) return 0.0;
  const double share = static_cast<double>(n - 1) / n;
  return kind == CollectiveKind::kAllReduce ? 2.0 * share : share;
}

double AlgorithmBandwidthGBps(int64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

double BusBandwidthGBps(CollectiveKind kind, int n, int64_t bytes, double seconds) {
  return AlgorithmBandwidthGBps(bytes, seconds) * BusBandwidthFactor(kind, n);
}

double GemmFlops(const GemmOp& gemm) {
  return 2.0 * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) * static_cast<double>(gemm.k) *
         static_cast<double>(gemm.count);
}

CollectiveData::CollectiveData(CollectiveKind kind, WireType type, int group_size, int position)
    : kind_(kind), type_(type), n_(std::max(1, group_size)), position_(position) {
  const int64_t max_exact = MaxExactInteger(type);
  if (Reduces(kind)) {
    // A sum of n inputs of at most `modulus_` each stays exact.
    modulus_ = std::min<int64_t>(16, max_exact / n_);
    indicator_ = modulus_ < 2;
  } else {
    // Copies only: distinct values per rank where the type allows.
    modulus_ = std::min<int64_t>(1021, max_exact - 1);
    indicator_ = false;
  }
}

int64_t CollectiveData::InputElements(int64_t bytes) const {
  const int64_t total = bytes / WireBytes(type_);
  return kind_ == CollectiveKind::kAllGather ? total / n_ : total;
}

int64_t CollectiveData::OutputElements(int64_t bytes) const {
  const int64_t total = bytes / WireBytes(type_);
  return kind_ == CollectiveKind::kReduceScatter ? total / n_ : total;
}

int64_t CollectiveData::Input(int position, int64_t i) const {
  if (indicator_) return i % n_ == position ? 1 : 0;
  return 1 + (i + position) % modulus_;
}

void CollectiveData::FillInput(void* input, int64_t elements) const {
  char* out = static_cast<char*>(input);
  const int width = WireBytes(type_);
  for (int64_t i = 0; i < elements; ++i) StoreInteger(type_, Input(position_, i), out + i * width);
}

int64_t CollectiveData::Expected(int64_t j, int64_t bytes) const {
  const int64_t total = bytes / WireBytes(type_);
  const int64_t chunk = total / n_;
  switch (kind_) {
    case CollectiveKind::kAllReduce: {
      int64_t sum = 0;
      for (int p = 0; p < n_; ++p) sum += Input(p, j);
      return sum;
    }
    case CollectiveKind::kReduceScatter: {
      int64_t sum = 0;
      for (int p = 0; p < n_; ++p) sum += Input(p, position_ * chunk + j);
      return sum;
    }
    case CollectiveKind::kAllGather:
      return Input(static_cast<int>(j / chunk), j % chunk);
    case CollectiveKind::kAllToAll:
      // Chunk q of the output came from rank q's chunk for this rank.
      return Input(static_cast<int>(j / chunk), position_ * chunk + j % chunk);
    case CollectiveKind::kSendRecv:
      return Input((position_ + n_ - 1) % n_, j);
  }
  return 0;
}

int64_t CollectiveData::CountWrong(const void* output, int64_t bytes) const {
  const char* in = static_cast<const char*>(output);
  const int width = WireBytes(type_);
  const int64_t elements = OutputElements(bytes);
  int64_t wrong = 0;
  if (kind_ == CollectiveKind::kAllReduce && !indicator_) {
    // sum_p (1 + (j + p) % m) depends on j % m only: tabulate it.
    std::vector<int64_t> table(static_cast<size_t>(modulus_));
    for (int64_t r = 0; r < modulus_; ++r) table[r] = Expected(r, bytes);
    for (int64_t j = 0; j < elements; ++j) {
      if (LoadAsDouble(type_, in + j * width) != static_cast<double>(table[j % modulus_])) ++wrong;
    }
    return wrong;
  }
  for (int64_t j = 0; j < elements; ++j) {
    if (LoadAsDouble(type_, in + j * width) != static_cast<double>(Expected(j, bytes))) ++wrong;
  }
  return wrong;
}

}  // namespace memplan::executor
