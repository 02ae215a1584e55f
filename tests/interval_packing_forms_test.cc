// analyzer::PackingForms (analyzer/interval_packing_forms.h): a recording
// packs as BestFitHeapSize does, and whatever other class sizes it answers
// for, its answer is BestFitHeapSize's for the list with those sizes. Lists
// are random (short and long lifetimes, shared chunks, 1 to 4 sizes), and so
// are the sizes probed: small multiples of the alignment, so that many of
// the packer's comparisons flip between probes.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analyzer/interval_packing.h"
#include "analyzer/interval_packing_forms.h"
#include "gtest/gtest.h"

namespace memplan::analyzer {
namespace {

struct Classed {
  std::vector<PackingInterval> intervals;
  std::vector<size_t> class_of;  // per interval
};

// n intervals starting at distinct ticks, in start order; about one in
// `share_one_in` shares the chunk of a root still live at its start.
Classed RandomList(std::mt19937_64& rng, size_t n, size_t classes, int share_one_in,
                   int long_one_in = 10) {
  Classed list;
  int64_t tick = 0;
  for (size_t i = 0; i < n; ++i) {
    PackingInterval p;
    p.id = static_cast<int64_t>(i);
    p.start = tick;
    tick += 1 + static_cast<int64_t>(rng() % 3);
    const bool long_lived = static_cast<int>(rng() % static_cast<uint64_t>(long_one_in)) == 0;
    p.end = p.start + static_cast<int64_t>(long_lived ? rng() % 200 : rng() % 12);
    p.group = static_cast<int32_t>(i);
    if (i > 0 && static_cast<int>(rng() % static_cast<uint64_t>(share_one_in)) == 0) {
      const size_t g = static_cast<size_t>(list.intervals[rng() % i].group);
      if (list.intervals[g].end >= p.start) p.group = static_cast<int32_t>(g);
    }
    list.intervals.push_back(p);
    list.class_of.push_back(rng() % classes);
  }
  return list;
}

// `list` with class j's intervals of size sizes[j].
std::vector<PackingInterval> Sized(const Classed& list, const std::vector<int64_t>& sizes) {
  std::vector<PackingInterval> out = list.intervals;
  for (size_t i = 0; i < out.size(); ++i) out[i].size = sizes[list.class_of[i]];
  return out;
}

// Distinct multiples of `alignment` in [1, 12] x alignment, ascending.
std::vector<int64_t> RandomSizes(std::mt19937_64& rng, size_t classes, int64_t alignment) {
  std::vector<int64_t> sizes;
  while (sizes.size() < classes) {
    const int64_t s = alignment * static_cast<int64_t>(1 + rng() % 12);
    if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) sizes.push_back(s);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

// What probing a recording with random class sizes found.
struct Probed {
  int64_t answered = 0;
  int64_t not_scaled = 0;  // answers other than the recorded heap scaled
  std::string mismatch;    // the first answer that is not BestFitHeapSize's
};

// Probes `forms`, recorded from `list` at `sizes`, `probes` times with
// random class sizes (multiples of `alignment` up to 12x); every answer is
// checked against BestFitHeapSize of the list at those sizes.
Probed Probe(std::mt19937_64& rng, const Classed& list, const std::vector<int64_t>& sizes,
             const PackingForms& forms, int probes, int64_t alignment) {
  Probed out;
  for (int probe = 0; probe < probes; ++probe) {
    std::vector<int64_t> other(sizes.size());
    for (int64_t& s : other) s = alignment * static_cast<int64_t>(1 + rng() % 12);
    const std::optional<int64_t> heap = forms.HeapFor(other);
    if (!heap) continue;
    ++out.answered;
    const int64_t expected = BestFitHeapSize(Sized(list, other), alignment);
    if (expected != forms.heap() * other[0] / sizes[0]) ++out.not_scaled;
    if (*heap != expected) {
      out.mismatch = "probe " + std::to_string(probe) + ": " + std::to_string(*heap) +
                     " against " + std::to_string(expected);
      return out;
    }
  }
  return out;
}

TEST(PackingForms, AnswersAsBestFitHeapSizeForEverySizesItAnswers) {
  std::mt19937_64 rng(20261127);
  constexpr int64_t kAlignment = 64;
  int64_t answered = 0, differing = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const size_t classes = 1 + static_cast<size_t>(trial % 4);
    // Every other list has many long lifetimes: many chunks to merge per fit.
    const Classed list = RandomList(rng, 20 + rng() % 200, classes, trial % 3 == 0 ? 4 : 1000,
                                    trial % 2 == 0 ? 10 : 2);
    const std::vector<int64_t> sizes = RandomSizes(rng, classes, kAlignment);
    const std::vector<PackingInterval> recorded = Sized(list, sizes);
    std::optional<PackingForms> forms = PackingForms::Record(recorded, kAlignment);
    ASSERT_TRUE(forms.has_value()) << "trial " << trial;
    ASSERT_EQ(forms->heap(), BestFitHeapSize(recorded, kAlignment)) << "trial " << trial;
    ASSERT_EQ(forms->class_sizes(), sizes);
    // Every size scaled alike keeps every comparison: always answered.
    std::vector<int64_t> triple = sizes;
    for (int64_t& s : triple) s *= 3;
    ASSERT_EQ(forms->HeapFor(triple), 3 * forms->heap()) << "trial " << trial;
    const Probed probed = Probe(rng, list, sizes, *forms, 200, kAlignment);
    ASSERT_EQ(probed.mismatch, "") << "trial " << trial;
    answered += probed.answered;
    differing += probed.not_scaled;
  }
  // The probes reached answers that are not the recorded heap scaled.
  EXPECT_GT(answered, 1000);
  EXPECT_GT(differing, 100);
}

// A shared chunk is as large as its group's largest buffer. With every
// member larger than its root, a gap can hold the root but not the chunk:
// the recording must keep that comparison too (gap against the chunk, not
// only against the root), or other sizes that flip it get the old heap.
TEST(PackingForms, AnswersForChunksLargerThanTheirRoot) {
  std::mt19937_64 rng(5);
  constexpr int64_t kAlignment = 64;
  int64_t answered = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t classes = 2 + static_cast<size_t>(trial % 3);
    Classed list = RandomList(rng, 4 + rng() % 30, classes, 2, 3);
    for (size_t i = 0; i < list.intervals.size(); ++i) {
      const size_t root = static_cast<size_t>(list.intervals[i].group);
      if (root == i) continue;
      list.class_of[root] = 0;  // the smallest class
      list.class_of[i] = 1 + rng() % (classes - 1);
    }
    const std::vector<int64_t> sizes = RandomSizes(rng, classes, kAlignment);
    std::optional<PackingForms> forms = PackingForms::Record(Sized(list, sizes), kAlignment);
    ASSERT_TRUE(forms.has_value()) << "trial " << trial;
    const Probed probed = Probe(rng, list, sizes, *forms, 100, kAlignment);
    ASSERT_EQ(probed.mismatch, "") << "trial " << trial;
    answered += probed.answered;
  }
  EXPECT_GT(answered, 1000);
}

TEST(PackingForms, RefusesWhatItCannotRecordOrAnswer) {
  std::mt19937_64 rng(7);
  const Classed list = RandomList(rng, 50, 5, 1000);
  EXPECT_FALSE(PackingForms::Record(Sized(list, {64, 128, 192, 256, 320}), 64).has_value());
  EXPECT_FALSE(PackingForms::Record(Sized(list, {64, 128, 192, 256, 96}), 64).has_value())
      << "96 is not a multiple of 64";
  EXPECT_FALSE(PackingForms::Record({}, 64).has_value());
  const Classed two = RandomList(rng, 50, 2, 1000);
  std::optional<PackingForms> forms = PackingForms::Record(Sized(two, {64, 128}), 64);
  ASSERT_TRUE(forms.has_value());
  EXPECT_EQ(forms->HeapFor({64, 100}), std::nullopt);  // not a multiple of 64
  EXPECT_EQ(forms->HeapFor({64}), std::nullopt);       // another class count
  EXPECT_EQ(forms->HeapFor({0, 128}), std::nullopt);
  EXPECT_EQ(forms->HeapFor({128, 64}), std::nullopt);  // classes ordered otherwise
}

}  // namespace
}  // namespace memplan::analyzer
