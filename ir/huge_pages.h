// Huge-page backing for a few large arrays that are written front to back
// (a parse's per-value and per-instruction records). On Linux each 4 KiB
// page of a fresh anonymous mapping costs a page fault on first write
// (about 2 us each in the development VM: a fifth of `memplan analyze`'s
// run on the 100 MB dump); a transparent huge page takes one fault per
// 2 MiB. Both calls change only how memory is backed, never its contents
// as the program sees them; both do nothing off Linux or when refused.
#ifndef MEMPLAN_IR_HUGE_PAGES_H_
#define MEMPLAN_IR_HUGE_PAGES_H_

#include <cstddef>
#include <vector>

namespace memplan::ir {

// Asks the kernel to back the whole 2 MiB-aligned blocks inside
// [begin, begin + bytes) with transparent huge pages when first written
// (madvise MADV_HUGEPAGE; the system's "madvise" mode honours it, "never"
// ignores it). Pages already written keep their backing. A block is
// resident whole once any byte of it is written: advise only memory that
// will be written through, or release what is left over afterwards
// (ReleaseUnusedBytes).
void AdviseHugePages(const void* begin, size_t bytes);

// Returns to the kernel the whole pages inside [begin, end): memory the
// caller holds but has not constructed anything in (a vector's capacity
// past its size). Reading such memory afterwards gives zeros; writing it
// faults a fresh page in. Splits a huge page that straddles `begin`.
void ReleaseUnusedBytes(const void* begin, const void* end);

// The two above for a vector's capacity: advise all of it (call right
// after reserve), and release what lies past its size (call once it has
// stopped growing).
template <typename T>
void AdviseHugePages(const std::vector<T>& items) {
  AdviseHugePages(items.data(), items.capacity() * sizeof(T));
}
template <typename T>
void ReleaseUnusedCapacity(const std::vector<T>& items) {
  ReleaseUnusedBytes(items.data() + items.size(), items.data() + items.capacity());
}

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_HUGE_PAGES_H_
