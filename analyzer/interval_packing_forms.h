// BestFitHeapSize as a function of its buffers' sizes, for lists with few
// distinct sizes: candidates of one program structure pack the same
// lifetimes with other sizes, and most of them make the same choices.
//
// Every choice the packer makes (analyzer/interval_packing.cc) is the sign
// of a difference of two sums of sizes (gap against size, offset against
// offset, end against heap top), or an order of sizes. When every size is a
// positive multiple of the alignment, every offset is a sum of sizes (no
// rounding happens), so with the sizes falling into k classes (one per
// distinct size) each offset is a form c[0] s[0] + ... + c[k-1] s[k-1] of
// the class sizes s. Record() packs once and keeps the sign of every
// difference of forms it compared (each distinct one once; not those whose
// coefficients are all of one sign, settled by sizes being positive) and
// the heap's form. Other class sizes under which every kept sign is the same make the
// packer take the same path, step for step: the heap is the same form of
// them (HeapFor).
#ifndef MEMPLAN_ANALYZER_INTERVAL_PACKING_FORMS_H_
#define MEMPLAN_ANALYZER_INTERVAL_PACKING_FORMS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/interval_packing.h"

namespace memplan::analyzer {

class PackingForms {
 public:
  static constexpr size_t kMaxClasses = 4;
  using Coefficients = std::array<int64_t, kMaxClasses>;

  // Packs `intervals` as BestFitHeapSize(intervals, alignment) does (the
  // same preconditions), recording its comparisons. nullopt when the list
  // is empty, has more than kMaxClasses distinct sizes, or a size that is
  // not a multiple of the alignment.
  static std::optional<PackingForms> Record(const std::vector<PackingInterval>& intervals,
                                            int64_t alignment);
  // The same, with the packer's working arrays in `scratch`.
  static std::optional<PackingForms> Record(const std::vector<PackingInterval>& intervals,
                                            int64_t alignment, PackingScratch& scratch);

  // The recorded packing's heap size (BestFitHeapSize's answer).
  int64_t heap() const { return heap_; }
  // The distinct sizes of the recorded list, ascending: class j is the
  // intervals of size class_sizes()[j].
  const std::vector<int64_t>& class_sizes() const { return class_sizes_; }
  // Distinct comparisons kept.
  size_t constraint_count() const { return constraints_.size(); }

  // BestFitHeapSize's answer for the recorded lifetimes and groups with
  // class j's intervals of size sizes[j], when every size is a positive
  // multiple of the recorded alignment and every kept comparison has the
  // same sign under `sizes`; nullopt otherwise (then pack them).
  std::optional<int64_t> HeapFor(const std::vector<int64_t>& sizes) const;

 private:
  struct Constraint {
    Coefficients c;
    int8_t sign;  // of c . sizes: -1, 0 or 1
  };
  int64_t alignment_ = 1;
  int64_t heap_ = 0;
  Coefficients heap_form_{};
  std::vector<int64_t> class_sizes_;
  std::vector<Constraint> constraints_;
  friend class FormRecorder;
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_INTERVAL_PACKING_FORMS_H_
