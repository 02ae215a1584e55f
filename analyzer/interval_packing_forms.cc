#include "analyzer/interval_packing_forms.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/interval_packing_placed.h"

namespace memplan::analyzer {

using namespace packing_internal;  // NOLINT: the packer's own internals

namespace {

// A sum of class sizes: its coefficients and its value under the recorded
// sizes.
struct Form {
  PackingForms::Coefficients c{};
  int64_t v = 0;
};

Form operator+(const Form& a, const Form& b) {
  Form f;
  for (size_t j = 0; j < f.c.size(); ++j) f.c[j] = a.c[j] + b.c[j];
  f.v = a.v + b.v;
  return f;
}

Form operator-(const Form& a, const Form& b) {
  Form f;
  for (size_t j = 0; j < f.c.size(); ++j) f.c[j] = a.c[j] - b.c[j];
  f.v = a.v - b.v;
  return f;
}

}  // namespace

// The packer of interval_packing.cc (Pack, BestFit, PeakOf and the choice
// between the two orders), step for step on forms; every comparison goes
// through Compare. Chunks in the lifetime index hold (offset value, root
// index): a chunk's forms are read from its root.
class FormRecorder {
 public:
  FormRecorder(const std::vector<PackingInterval>& iv, std::vector<int64_t> class_sizes,
               PackingScratch& scratch)
      : iv_(iv), a_(*scratch.arrays_), groups_(a_.groups), class_sizes_(std::move(class_sizes)),
        offset_(iv.size()) {
    a_.groups.Build(iv);
  }

  int64_t Run(PackingForms& out) {
    // Sizes are ordered by class: that settles every order key's size and
    // every group's largest member.
    for (size_t j = 1; j < class_sizes_.size(); ++j) Compare(Unit(class_sizes_[j]), Unit(class_sizes_[j - 1]));
    const Form spatial = Pack(/*spatial=*/true);
    Form heap = spatial;
    if (Compare(spatial, Peak()) > 0) {
      const Form temporal = Pack(/*spatial=*/false);
      if (Compare(temporal, spatial) < 0) heap = temporal;
    }
    out.heap_ = heap.v;
    out.heap_form_ = heap.c;
    if (seen_.empty()) seen_.insert(few_.begin(), few_.end());
    out.constraints_.reserve(seen_.size());
    for (const auto& [c, sign] : seen_) out.constraints_.push_back({c, sign});
    return heap.v;
  }

 private:
  // The sign of a - b, kept (as the sign of the difference's coefficients,
  // first nonzero one made positive) when the coefficients differ.
  int Compare(const Form& a, const Form& b) {
    const Form d = a - b;
    const int sign = (d.v > 0) - (d.v < 0);
    // Coefficients all of one sign (or all zero): the sign of the
    // difference for any positive sizes, nothing to keep.
    bool none_negative = true, none_positive = true;
    for (int64_t x : d.c) {
      none_negative &= x >= 0;
      none_positive &= x <= 0;
    }
    if (none_negative || none_positive) return sign;
    size_t first = 0;
    while (d.c[first] == 0) ++first;
    PackingForms::Coefficients c = d.c;
    int8_t kept = static_cast<int8_t>(sign);
    if (c[first] < 0) {
      for (int64_t& x : c) x = -x;
      kept = static_cast<int8_t>(-kept);
    }
    // Few distinct comparisons (a handful per program): a list, then a map.
    if (seen_.empty()) {
      // Most comparisons repeat the one before: that one first.
      if (last_ < few_.size() && Same(few_[last_].first, c)) return sign;
      for (last_ = 0; last_ < few_.size(); ++last_) {
        if (Same(few_[last_].first, c)) return sign;
      }
      few_.emplace_back(c, kept);
      if (few_.size() > kFew) seen_.insert(few_.begin(), few_.end());
      return sign;
    }
    seen_.emplace(c, kept);
    return sign;
  }

  static bool Same(const PackingForms::Coefficients& a, const PackingForms::Coefficients& b) {
    bool same = true;
    for (size_t j = 0; j < a.size(); ++j) same &= a[j] == b[j];
    return same;
  }

  Form Unit(int64_t size) const {
    Form f;
    const size_t j = static_cast<size_t>(
        std::lower_bound(class_sizes_.begin(), class_sizes_.end(), size) - class_sizes_.begin());
    f.c[j] = 1;
    f.v = size;
    return f;
  }
  Form Size(size_t root) const { return Unit(groups_.size[root]); }
  Form OffsetOf(const Chunk& c) const { return offset_[static_cast<size_t>(c.end)]; }
  Form EndOf(const Chunk& c) const {
    return offset_[static_cast<size_t>(c.end)] + Size(static_cast<size_t>(c.end));
  }

  Form Pack(bool spatial) {
    Placed<int64_t> placed(iv_, a_.wide);
    std::vector<Chunk> busy;
    Form heap;
    for (const int32_t root : Order(iv_, groups_, spatial, a_.keys, a_.sort)) {
      const size_t r = static_cast<size_t>(root);
      busy.clear();
      placed.Overlapping(iv_[r].start, iv_[r].end, &busy);
      for (int32_t m = groups_.first_member[r]; m >= 0; m = groups_.next_member[static_cast<size_t>(m)]) {
        placed.Overlapping(iv_[static_cast<size_t>(m)].start, iv_[static_cast<size_t>(m)].end, &busy);
      }
      offset_[r] = Fit(Unit(iv_[r].size), Size(r), busy);
      const Chunk chunk{offset_[r].v, static_cast<int64_t>(r)};
      placed.Place(r, chunk);
      for (int32_t m = groups_.first_member[r]; m >= 0; m = groups_.next_member[static_cast<size_t>(m)]) {
        placed.Place(static_cast<size_t>(m), chunk);
      }
      const Form end = offset_[r] + Size(r);
      if (Compare(end, heap) > 0) heap = end;
    }
    return heap;
  }

  // BestFit: the busy chunks in offset order (each neighbour's sign kept:
  // any sizes keeping them give an order the packer may sort them in, and
  // chunks at equal offsets merge alike in any order), merged into busy
  // ranges, the smallest fitting gap.
  Form Fit(const Form& own, const Form& size, std::vector<Chunk>& busy) {
    if (busy.empty()) return Form{};
    std::sort(busy.begin(), busy.end(), [](const Chunk& a, const Chunk& b) { return a.offset < b.offset; });
    for (size_t i = 1; i < busy.size(); ++i) Compare(OffsetOf(busy[i]), OffsetOf(busy[i - 1]));
    bool found = false;
    Form best, best_gap;
    auto consider = [&](const Form& from, const Form& to) {
      const Form gap = to - from;
      if (Compare(gap, own) < 0 || Compare(to - size, from) < 0) return;
      if (!found || Compare(gap, best_gap) < 0) {
        found = true;
        best = from;
        best_gap = gap;
      }
    };
    Form free_from;  // every end is a sum of aligned sizes: no rounding
    Form range_begin = OffsetOf(busy.front());
    Form range_end = EndOf(busy.front());
    for (size_t i = 1; i < busy.size(); ++i) {
      if (Compare(OffsetOf(busy[i]), range_end) < 0) {
        const Form end = EndOf(busy[i]);
        if (Compare(end, range_end) > 0) range_end = end;
        continue;
      }
      consider(free_from, range_begin);
      if (Compare(range_end, free_from) > 0) free_from = range_end;
      range_begin = OffsetOf(busy[i]);
      range_end = EndOf(busy[i]);
    }
    consider(free_from, range_begin);
    if (Compare(range_end, free_from) > 0) free_from = range_end;
    return found ? best : free_from;
  }

  // PeakOf: the most bytes of groups live at one tick.
  Form Peak() {
    const std::vector<std::pair<int64_t, int32_t>>& ends = ByEnd(iv_, a_.peak);
    std::vector<int32_t>& live_members = a_.peak.live_members;
    live_members.assign(iv_.size(), 0);
    Form live, peak;
    size_t e = 0;
    for (size_t i = 0; i < iv_.size(); ++i) {
      for (; e < ends.size() && ends[e].first < iv_[i].start; ++e) {
        const size_t g = static_cast<size_t>(iv_[static_cast<size_t>(ends[e].second)].group);
        if (--live_members[g] == 0) live = live - Size(g);
      }
      const size_t g = static_cast<size_t>(iv_[i].group);
      if (live_members[g]++ == 0) live = live + Size(g);
      if (Compare(live, peak) > 0) peak = live;
    }
    return peak;
  }

  const std::vector<PackingInterval>& iv_;
  PackingScratch::Arrays& a_;
  const Groups& groups_;
  const std::vector<int64_t> class_sizes_;
  std::vector<Form> offset_;  // per root: its chunk's offset
  static constexpr size_t kFew = 32;
  std::vector<std::pair<PackingForms::Coefficients, int8_t>> few_;  // while seen_ is empty
  size_t last_ = 0;  // few_'s entry found last
  absl::flat_hash_map<PackingForms::Coefficients, int8_t> seen_;
};

std::optional<PackingForms> PackingForms::Record(const std::vector<PackingInterval>& intervals,
                                                 int64_t alignment) {
  PackingScratch scratch;
  return Record(intervals, alignment, scratch);
}

std::optional<PackingForms> PackingForms::Record(const std::vector<PackingInterval>& intervals,
                                                 int64_t alignment, PackingScratch& scratch) {
  if (intervals.empty()) return std::nullopt;
  alignment = std::max<int64_t>(alignment, 1);
  std::vector<int64_t> sizes;
  for (const PackingInterval& p : intervals) {
    if (p.size <= 0 || p.size % alignment != 0) return std::nullopt;
    if (std::find(sizes.begin(), sizes.end(), p.size) != sizes.end()) continue;
    if (sizes.size() == kMaxClasses) return std::nullopt;
    sizes.push_back(p.size);
  }
  std::sort(sizes.begin(), sizes.end());
  PackingForms forms;
  forms.alignment_ = alignment;
  forms.class_sizes_ = sizes;
  FormRecorder(intervals, std::move(sizes), scratch).Run(forms);
  return forms;
}

std::optional<int64_t> PackingForms::HeapFor(const std::vector<int64_t>& sizes) const {
  if (sizes.size() != class_sizes_.size()) return std::nullopt;
  for (int64_t s : sizes) {
    if (s <= 0 || s % alignment_ != 0) return std::nullopt;
  }
  auto value = [&](const Coefficients& c) {
    __int128 v = 0;
    for (size_t j = 0; j < sizes.size(); ++j) v += static_cast<__int128>(c[j]) * sizes[j];
    return v;
  };
  for (const Constraint& k : constraints_) {
    const __int128 v = value(k.c);
    if ((v > 0) - (v < 0) != k.sign) return std::nullopt;
  }
  const __int128 heap = value(heap_form_);
  if (heap > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(heap);
}

}  // namespace memplan::analyzer
