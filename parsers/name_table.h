// A map from instruction names to instruction ids built for the name
// lookups of a large dump: one open-addressing table of 32-byte slots that
// hold short names (up to 23 bytes, the usual "fusion.123.0") inline, so a
// lookup reads one cache line of the table and nothing else. Longer names
// are copied into blocks this object owns. A dump of 1 GB names about a
// million instructions on several million lines; a general hash map keyed
// by views reads its control bytes, its slot and the name's bytes (three
// cache misses) per lookup.
#ifndef MEMPLAN_PARSERS_NAME_TABLE_H_
#define MEMPLAN_PARSERS_NAME_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace memplan::parsers {

class NameTable {
 public:
  NameTable();

  // Makes room for `count` names without growing the table.
  void Reserve(size_t count);

  // The id recorded for `name`, or -1.
  int64_t Find(std::string_view name) const;

  // Records `id` (0 <= id < 2^32) for `name` unless a name equal to it is
  // recorded; returns the id recorded for it (the earlier one, if any).
  // `name` need not outlive the call: what the table keeps is a copy.
  int64_t Insert(std::string_view name, int64_t id);

  size_t size() const { return size_; }

  // Starts loading the slot where a lookup of `name` begins (a hint: no
  // effect on any answer). A parser that knows the next lines' names calls
  // it ahead of their lookups, so the cache miss overlaps other work.
  void Prefetch(std::string_view name) const {
    __builtin_prefetch(&slots_[Hash(name) & mask_]);
  }

 private:
  static constexpr size_t kInline = 23;
  struct alignas(32) Slot {
    uint32_t tag;    // the hash's upper half
    uint32_t id;
    uint8_t state;   // 0: empty; 1 + length for an inline name; kLong
    char data[kInline];  // the name, or (kLong) its pointer and length
  };
  static constexpr uint8_t kLong = 0xFF;

  struct FreeSlots {
    void operator()(Slot* slots) const;
  };
  using SlotArray = std::unique_ptr<Slot[], FreeSlots>;

  static SlotArray Allocate(size_t capacity);
  static uint64_t Hash(std::string_view name);
  static std::string_view NameOf(const Slot& slot);
  // The slot holding `name` or the empty slot where it would go.
  size_t Probe(std::string_view name, uint64_t hash) const;
  void Fill(Slot& slot, std::string_view name, uint32_t tag, uint32_t id);
  void Grow(size_t capacity);
  const char* Keep(std::string_view name);

  SlotArray slots_;
  size_t mask_ = 0;  // capacity - 1 (capacity a power of two)
  size_t size_ = 0;
  std::vector<std::unique_ptr<char[]>> names_;  // long names, never moved
  char* names_free_ = nullptr;
  size_t names_left_ = 0;
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_NAME_TABLE_H_
