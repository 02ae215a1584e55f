#include "parsers/name_table.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "parsers/load_bytes.h"

namespace memplan::parsers {
namespace {

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;

uint64_t Load(const char* p, size_t n) { return LoadUpTo8(p, n); }  // n <= 8

uint64_t Mix(uint64_t h) {  // MurmurHash3's finalizer
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

NameTable::NameTable() { Grow(16); }

uint64_t NameTable::Hash(std::string_view name) {
  uint64_t h = name.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= name.size(); i += 8) {
    h = (h ^ Load(name.data() + i, 8)) * kMul;
    h ^= h >> 29;
  }
  if (i < name.size()) h = (h ^ Load(name.data() + i, name.size() - i)) * kMul;
  return Mix(h);
}

std::string_view NameTable::NameOf(const Slot& slot) {
  if (slot.state != kLong) return {slot.data, static_cast<size_t>(slot.state - 1)};
  const char* data;
  size_t size;
  std::memcpy(&data, slot.data, sizeof(data));
  std::memcpy(&size, slot.data + sizeof(data), sizeof(size));
  return {data, size};
}

size_t NameTable::Probe(std::string_view name, uint64_t hash) const {
  const uint32_t tag = static_cast<uint32_t>(hash >> 32);
  const uint8_t state = name.size() <= kInline ? static_cast<uint8_t>(name.size() + 1) : kLong;
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.state == 0) return i;
    if (slot.tag == tag && slot.state == state) {
      if (state != kLong) {
        if (std::memcmp(slot.data, name.data(), name.size()) == 0) return i;
      } else if (NameOf(slot) == name) {
        return i;
      }
    }
  }
}

int64_t NameTable::Find(std::string_view name) const {
  const Slot& slot = slots_[Probe(name, Hash(name))];
  return slot.state == 0 ? -1 : static_cast<int64_t>(slot.id);
}

int64_t NameTable::Insert(std::string_view name, int64_t id) {
  assert(id >= 0 && id <= UINT32_MAX);
  const uint64_t hash = Hash(name);
  size_t i = Probe(name, hash);
  if (slots_[i].state != 0) return slots_[i].id;
  if ((size_ + 1) * 4 > (mask_ + 1) * 3) {  // load factor 3/4
    Grow((mask_ + 1) * 2);
    i = Probe(name, hash);
  }
  const std::string_view kept = name.size() <= kInline ? name : std::string_view(Keep(name), name.size());
  Fill(slots_[i], kept, static_cast<uint32_t>(hash >> 32), static_cast<uint32_t>(id));
  ++size_;
  return id;
}

void NameTable::Reserve(size_t count) {
  size_t capacity = mask_ + 1;
  while (count * 4 > capacity * 3) capacity *= 2;
  if (capacity != mask_ + 1) Grow(capacity);
}

void NameTable::Fill(Slot& slot, std::string_view name, uint32_t tag, uint32_t id) {
  slot.tag = tag;
  slot.id = id;
  if (name.size() <= kInline) {
    slot.state = static_cast<uint8_t>(name.size() + 1);
    if (!name.empty()) std::memcpy(slot.data, name.data(), name.size());
  } else {
    slot.state = kLong;
    const char* data = name.data();
    const size_t size = name.size();
    std::memcpy(slot.data, &data, sizeof(data));
    std::memcpy(slot.data + sizeof(data), &size, sizeof(size));
  }
}

void NameTable::FreeSlots::operator()(Slot* slots) const { std::free(slots); }

NameTable::SlotArray NameTable::Allocate(size_t capacity) {
  const size_t bytes = capacity * sizeof(Slot);
  constexpr size_t kHugePage = size_t{2} << 20;
  // A large table in transparent huge pages where the kernel offers them:
  // every lookup lands on a random slot, and with 4 KiB pages each one
  // also misses the TLB (a page walk, costlier still in a virtual machine).
  const bool huge = bytes >= 2 * kHugePage;
  void* memory = std::aligned_alloc(huge ? kHugePage : alignof(Slot),
                                    huge ? (bytes + kHugePage - 1) / kHugePage * kHugePage : bytes);
  if (memory == nullptr) std::abort();  // out of memory, as a failed new
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (huge) madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: errors change nothing
#endif
  return SlotArray(static_cast<Slot*>(memory));
}

void NameTable::Grow(size_t capacity) {
  SlotArray old = std::move(slots_);
  const size_t old_capacity = old ? mask_ + 1 : 0;
  slots_ = Allocate(capacity);
  for (size_t i = 0; i < capacity; ++i) slots_[i].state = 0;
  mask_ = capacity - 1;
  for (size_t k = 0; k < old_capacity; ++k) {
    const Slot& slot = old[k];
    if (slot.state == 0) continue;
    const std::string_view name = NameOf(slot);
    const size_t i = Probe(name, Hash(name));
    slots_[i] = slot;
  }
}

const char* NameTable::Keep(std::string_view name) {
  constexpr size_t kBlock = 256 * 1024;
  if (name.size() > names_left_) {
    const size_t size = std::max(kBlock, name.size());
    names_.push_back(std::make_unique<char[]>(size));
    names_free_ = names_.back().get();
    names_left_ = size;
  }
  const char* kept = names_free_;
  std::memcpy(names_free_, name.data(), name.size());
  names_free_ += name.size();
  names_left_ -= name.size();
  return kept;
}

}  // namespace memplan::parsers
