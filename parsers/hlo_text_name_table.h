// The HLO text parser's table of one computation's instruction names.
#ifndef MEMPLAN_PARSERS_HLO_TEXT_NAME_TABLE_H_
#define MEMPLAN_PARSERS_HLO_TEXT_NAME_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "ir/ids.h"
#include "ir/strings.h"

namespace memplan::parsers::hlo_text {

// Instruction names -> ids. Names are copied in (a length-prefixed copy in
// blocks the table owns), so lookups and rehashing never read the input:
// with the text released behind the parse, reading a name where it was
// defined maps its page back in, and with it often a whole 2 MiB folio.
// A slot is 16 bytes (copy pointer, 32-bit hash, 32-bit id). Ids must fit
// in 32 bits.
class InstructionNameTable {
 public:
  // Adds `name` -> `id`; false (and no change) when `name` is there already.
  bool Insert(std::string_view name, ir::InstructionId id) {
    const uint32_t hash = Hash(name);
    if (slots_.contains(Key{name, hash})) return false;
    slots_.insert(Slot{Copy(name), hash, static_cast<uint32_t>(id.value())});
    return true;
  }
  // The id of `name`; an invalid id when it is not there.
  ir::InstructionId Find(std::string_view name) const {
    auto it = slots_.find(Key{name, Hash(name)});
    return it == slots_.end() ? ir::InstructionId() : ir::InstructionId(it->id);
  }
  size_t size() const { return slots_.size(); }
  // Empty, with its memory freed.
  void Clear() {
    absl::flat_hash_set<Slot, SlotHash, SlotEq>().swap(slots_);
    blocks_.clear();
    used_ = capacity_ = 0;
  }

 private:
  struct Slot {
    const char* copy;  // [uint32_t size][size chars]
    uint32_t hash;
    uint32_t id;
  };
  struct Key {
    std::string_view name;
    uint32_t hash;
  };
  static std::string_view NameOf(const char* copy) {
    uint32_t size;
    std::memcpy(&size, copy, sizeof size);
    return std::string_view(copy + sizeof size, size);
  }
  static uint32_t Hash(std::string_view name) {
    return static_cast<uint32_t>(absl::HashOf(memplan::ToAbsl(name)));
  }
  struct SlotHash {
    using is_transparent = void;
    size_t operator()(const Slot& s) const { return s.hash; }
    size_t operator()(const Key& k) const { return k.hash; }
  };
  struct SlotEq {
    using is_transparent = void;
    bool operator()(const Slot& a, const Slot& b) const {
      return a.hash == b.hash && NameOf(a.copy) == NameOf(b.copy);
    }
    bool operator()(const Slot& a, const Key& b) const {
      return a.hash == b.hash && NameOf(a.copy) == b.name;
    }
    bool operator()(const Key& a, const Slot& b) const { return (*this)(b, a); }
  };

  const char* Copy(std::string_view name) {
    const size_t bytes = sizeof(uint32_t) + name.size();
    if (bytes > capacity_ - used_) {
      capacity_ = std::max(kBlockBytes, bytes);
      blocks_.push_back(std::make_unique<char[]>(capacity_));
      used_ = 0;
    }
    char* copy = blocks_.back().get() + used_;
    const uint32_t size = static_cast<uint32_t>(name.size());
    std::memcpy(copy, &size, sizeof size);
    std::memcpy(copy + sizeof size, name.data(), name.size());
    used_ += bytes;
    return copy;
  }

  static constexpr size_t kBlockBytes = size_t{64} << 10;
  absl::flat_hash_set<Slot, SlotHash, SlotEq> slots_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

}  // namespace memplan::parsers::hlo_text

#endif  // MEMPLAN_PARSERS_HLO_TEXT_NAME_TABLE_H_
