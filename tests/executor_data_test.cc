// What collectives carry and how they are judged: element types (IEEE half
// and bfloat16 conversions), the check pattern against a reference of each
// collective's semantics, nccl-tests' bandwidth factors, the sweep's sizes,
// and the host backend's GEMM against a naive product.
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "executor/collective_bench.h"
#include "executor/collective_data.h"
#include "executor/host_backend.h"
#include "executor/wire_types.h"
#include "gtest/gtest.h"

namespace memplan::executor {
namespace {

TEST(WireTypes, HalfAndBfloat16FollowIeee) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);  // largest finite half
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // rounds to infinity
  EXPECT_EQ(FloatToHalf(5.960464477539063e-08f), 0x0001);  // smallest subnormal, 2^-24
  EXPECT_EQ(HalfToFloat(0x0001), 5.960464477539063e-08f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  // Ties go to the even neighbour: 2049 lies halfway between 2048 and 2050.
  EXPECT_EQ(HalfToFloat(FloatToHalf(2049.0f)), 2048.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(2051.0f)), 2052.0f);
  EXPECT_EQ(FloatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(Bfloat16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(257.0f)), 256.0f);
  EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(259.0f)), 260.0f);
  for (WireType type : {WireType::kF16, WireType::kBF16, WireType::kU8, WireType::kS8, WireType::kF32}) {
    const int64_t top = MaxExactInteger(type);
    for (int64_t v = 0; v <= std::min<int64_t>(top, 4096); ++v) {
      char bytes[8];
      StoreInteger(type, v, bytes);
      ASSERT_EQ(LoadAsDouble(type, bytes), static_cast<double>(v)) << WireTypeName(type) << " " << v;
    }
  }
}

TEST(WireTypes, EveryXlaTypeHasASameSizedWireType) {
  for (int i = 0; i <= static_cast<int>(ir::DType::kC128); ++i) {
    const ir::DType dtype = static_cast<ir::DType>(i);
    if (!ir::IsArrayDType(dtype)) continue;
    const WireLayout layout = WireLayoutFor(dtype);
    EXPECT_EQ(WireBytes(layout.type) * layout.per_element, ir::DTypeStorageBytes(dtype)) << ir::DTypeName(dtype);
  }
  EXPECT_TRUE(WireLayoutFor(ir::DType::kBF16).exact);
  EXPECT_FALSE(WireLayoutFor(ir::DType::kF8E4M3FN).exact);
  EXPECT_EQ(WireLayoutFor(ir::DType::kC64).per_element, 2);
}

// What each collective must produce, from every rank's input, written the
// plain way: out_r as a function of in_0..in_{n-1}.
std::vector<double> Reference(CollectiveKind kind, const std::vector<std::vector<double>>& in, int rank) {
  const int n = static_cast<int>(in.size());
  const size_t total = kind == CollectiveKind::kAllGather ? in[0].size() * n : in[0].size();
  const size_t chunk = total / n;
  std::vector<double> out;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      out.assign(total, 0);
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < total; ++i) out[i] += in[p][i];
      }
      break;
    case CollectiveKind::kReduceScatter:
      out.assign(chunk, 0);
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < chunk; ++i) out[i] += in[p][rank * chunk + i];
      }
      break;
    case CollectiveKind::kAllGather:
      for (int p = 0; p < n; ++p) out.insert(out.end(), in[p].begin(), in[p].end());
      break;
    case CollectiveKind::kAllToAll:
      for (int p = 0; p < n; ++p) {
        out.insert(out.end(), in[p].begin() + rank * chunk, in[p].begin() + (rank + 1) * chunk);
      }
      break;
    case CollectiveKind::kSendRecv:
      out = in[(rank + n - 1) % n];
      break;
  }
  return out;
}

struct PatternCase {
  CollectiveKind kind;
  WireType type;
  int n;
};

// Without it gtest prints a PatternCase as its bytes, the padding after the
// one-byte WireType included: a read of uninitialised memory (valgrind).
void PrintTo(const PatternCase& c, std::ostream* os) {
  *os << CollectiveName(c.kind) << " " << WireTypeName(c.type) << " x" << c.n;
}

class CollectivePattern : public testing::TestWithParam<PatternCase> {};

TEST_P(CollectivePattern, AcceptsTheRightOutputAndCountsEachWrongElement) {
  const auto [kind, type, n] = GetParam();
  const int width = WireBytes(type);
  const int64_t bytes = static_cast<int64_t>(n) * 12 * width;  // divides among the ranks
  std::vector<std::vector<double>> inputs;
  for (int p = 0; p < n; ++p) {
    const CollectiveData data(kind, type, n, p);
    std::vector<char> raw(static_cast<size_t>(data.InputElements(bytes) * width));
    data.FillInput(raw.data(), data.InputElements(bytes));
    std::vector<double> values;
    for (int64_t i = 0; i < data.InputElements(bytes); ++i) values.push_back(LoadAsDouble(type, raw.data() + i * width));
    inputs.push_back(values);
  }
  // Ranks must not all send the same data, or a mixed-up order would pass.
  if (n > 1) {
    EXPECT_NE(inputs[0], inputs[1]);
  }
  for (int rank = 0; rank < n; ++rank) {
    const CollectiveData data(kind, type, n, rank);
    const std::vector<double> expected = Reference(kind, inputs, rank);
    ASSERT_EQ(static_cast<int64_t>(expected.size()), data.OutputElements(bytes));
    std::vector<char> out(expected.size() * width);
    for (size_t i = 0; i < expected.size(); ++i) {
      // Every sum must be exact in the wire type.
      ASSERT_LE(expected[i], static_cast<double>(MaxExactInteger(type)));
      StoreInteger(type, static_cast<int64_t>(expected[i]), out.data() + i * width);
    }
    EXPECT_EQ(data.CountWrong(out.data(), bytes), 0) << "rank " << rank;
    StoreInteger(type, static_cast<int64_t>(expected[3]) + 1, out.data() + 3 * width);
    StoreInteger(type, 0, out.data() + (expected.size() - 1) * width);
    EXPECT_EQ(data.CountWrong(out.data(), bytes), 2) << "rank " << rank;
  }
}

std::vector<PatternCase> PatternCases() {
  std::vector<PatternCase> cases;
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                              CollectiveKind::kAllToAll, CollectiveKind::kSendRecv}) {
    for (WireType type : {WireType::kF32, WireType::kBF16, WireType::kF16, WireType::kU8, WireType::kS64}) {
      for (int n : {1, 2, 3, 8}) cases.push_back({kind, type, n});
    }
    // Too many ranks for bfloat16 sums of small integers.
    cases.push_back({kind, WireType::kBF16, 200});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CollectivePattern, testing::ValuesIn(PatternCases()),
                         [](const testing::TestParamInfo<PatternCase>& info) {
                           return std::string(CollectiveName(info.param.kind)) + "_" +
                                  std::string(WireTypeName(info.param.type)) + "_" + std::to_string(info.param.n);
                         });

TEST(Bandwidth, FollowsNcclTestsDefinitions) {
  // doc/PERFORMANCE.md of nccl-tests: busbw = algbw * 2(n-1)/n for
  // all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all.
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kSendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveKind::kAllReduce, 1), 0.0);
  // 1 GB in 10 ms is 100 GB/s.
  EXPECT_DOUBLE_EQ(AlgorithmBandwidthGBps(1'000'000'000, 0.01), 100.0);
  EXPECT_DOUBLE_EQ(BusBandwidthGBps(CollectiveKind::kAllReduce, 8, 1'000'000'000, 0.01), 175.0);
  EXPECT_EQ(AlgorithmBandwidthGBps(100, 0), 0.0);
  GemmOp gemm{1024, 512, 256, ir::DType::kBF16, ir::DType::kBF16, 3, {}, {}, {}};
  EXPECT_DOUBLE_EQ(GemmFlops(gemm), 2.0 * 1024 * 512 * 256 * 3);
}

TEST(SweepSizes, WholeElementsPerRankGrowingByTheFactor) {
  CollectiveBenchOptions options;
  options.min_bytes = 32;
  options.max_bytes = 1 << 20;
  options.factor = 4;
  const std::vector<int64_t> gather = SweepSizes(options, CollectiveKind::kAllGather, 3);
  // 32, 128, ..., 1 MiB rounded down to multiples of 3 ranks x 4 bytes.
  const std::vector<int64_t> expected = {24, 120, 504, 2040, 8184, 32760, 131064, 524280};
  EXPECT_EQ(gather, expected);
  const std::vector<int64_t> reduce = SweepSizes(options, CollectiveKind::kAllReduce, 3);
  EXPECT_EQ(reduce.front(), 32);
  EXPECT_EQ(reduce.back(), 524288);
  options.min_bytes = 1;
  options.max_bytes = 5;
  // Below one element per rank: one element per rank, once.
  EXPECT_EQ(SweepSizes(options, CollectiveKind::kAllToAll, 2), std::vector<int64_t>{8});
}

template <typename T>
std::vector<char> Bytes(const std::vector<T>& values, ir::DType dtype) {
  const WireType type = WireLayoutFor(dtype).type;
  std::vector<char> out(values.size() * WireBytes(type));
  for (size_t i = 0; i < values.size(); ++i) StoreDouble(type, static_cast<double>(values[i]), out.data() + i * WireBytes(type));
  return out;
}

struct GemmCase {
  ir::DType in;
  ir::DType out;
};

class HostGemmTest : public testing::TestWithParam<GemmCase> {};

TEST_P(HostGemmTest, MatchesANaiveColumnMajorProduct) {
  const int64_t m = 37, n = 5, k = 300;  // spans the kernel's blocks
  std::mt19937 random(7);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<int> a(m * k), b(k * n);
  for (int& v : a) v = small(random);
  for (int& v : b) v = small(random);
  GemmOp gemm{m, n, k, GetParam().in, GetParam().out, 2, {}, {}, {}};
  const std::vector<char> raw_a = Bytes(a, gemm.dtype);
  const std::vector<char> raw_b = Bytes(b, gemm.dtype);
  const WireType out = WireLayoutFor(gemm.out_dtype).type;
  std::vector<char> raw_c(m * n * WireBytes(out));
  ASSERT_TRUE(HostGemm(gemm, raw_a.data(), raw_b.data(), raw_c.data()).ok());
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      int64_t sum = 0;  // |sum| <= 2700: exact in every output type tested
      for (int64_t p = 0; p < k; ++p) sum += a[i + p * m] * b[p + j * k];
      ASSERT_EQ(LoadAsDouble(out, raw_c.data() + (i + j * m) * WireBytes(out)), static_cast<double>(sum))
          << i << "," << j;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, HostGemmTest,
                         testing::Values(GemmCase{ir::DType::kF32, ir::DType::kF32},
                                         GemmCase{ir::DType::kBF16, ir::DType::kF32},
                                         GemmCase{ir::DType::kF16, ir::DType::kF32},
                                         GemmCase{ir::DType::kF64, ir::DType::kF64},
                                         GemmCase{ir::DType::kS8, ir::DType::kS32}));

TEST(HostGemm, RefusesTypesItCannotCompute) {
  GemmOp gemm{2, 2, 2, ir::DType::kF8E4M3FN, ir::DType::kF32, 1, {}, {}, {}};
  char buffer[64] = {0};
  const absl::Status status = HostGemm(gemm, buffer, buffer, buffer);
  EXPECT_TRUE(absl::IsFailedPrecondition(status));
}

}  // namespace
}  // namespace memplan::executor
