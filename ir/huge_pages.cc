#include "ir/huge_pages.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace memplan::ir {
namespace {

// Whole units of `unit` bytes inside [begin, end): the first boundary at or
// after begin, the last at or before end.
bool InnerRange(uintptr_t begin, uintptr_t end, uintptr_t unit, uintptr_t* first,
                uintptr_t* last) {
  *first = (begin + unit - 1) / unit * unit;
  *last = end / unit * unit;
  return *first < *last && *first >= begin;
}

}  // namespace

void AdviseHugePages(const void* begin, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const uintptr_t start = reinterpret_cast<uintptr_t>(begin);
  uintptr_t first = 0;
  uintptr_t last = 0;
  if (bytes < kHugePage || !InnerRange(start, start + bytes, kHugePage, &first, &last)) return;
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)begin;
  (void)bytes;
#endif
}

void ReleaseUnusedBytes(const void* begin, const void* end) {
#if defined(__linux__)
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0 || begin == nullptr || end <= begin) return;
  uintptr_t first = 0;
  uintptr_t last = 0;
  if (!InnerRange(reinterpret_cast<uintptr_t>(begin), reinterpret_cast<uintptr_t>(end),
                  static_cast<uintptr_t>(page_size), &first, &last)) {
    return;
  }
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)begin;
  (void)end;
#endif
}

}  // namespace memplan::ir
