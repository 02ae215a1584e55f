// Compact copies of the pieces of an input's text that a parse keeps
// (instruction names, shape texts, metadata strings), so that the input
// itself can be let go once the parse ends. Without it the IR's views point
// into the mapped file, and any pass that reads them keeps (or brings back)
// the whole file in resident memory.
#ifndef MEMPLAN_PARSERS_TEXT_ARENA_H_
#define MEMPLAN_PARSERS_TEXT_ARENA_H_

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace memplan::parsers {

// Owns copies of texts, packed end to end in blocks. A view Copy returns
// stays valid, and its bytes unchanged, for as long as the arena lives (the
// arena is neither copied nor moved: blocks never move).
class TextArena {
 public:
  // Texts are packed into blocks of `block_bytes` (a longer text gets a
  // block of its own).
  explicit TextArena(size_t block_bytes = size_t{64} << 10);
  TextArena(const TextArena&) = delete;
  TextArena& operator=(const TextArena&) = delete;

  // A copy of `text` (the empty view for an empty text).
  std::string_view Copy(std::string_view text);

  // Bytes of text held (what Copy was given, summed).
  size_t bytes() const { return bytes_; }
  // Bytes of blocks allocated.
  size_t capacity() const { return capacity_; }

 private:
  size_t block_bytes_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
  size_t bytes_ = 0;
  size_t capacity_ = 0;
};

// Copies into an arena once per distinct text: an input repeats most of
// what it keeps (a dump's shape texts and source file names), and equal
// texts then share one copy. The index of texts seen lives here, not in the
// arena: drop the interner when the parse ends and keep the arena.
class TextInterner {
 public:
  // `arena` must outlive this object.
  explicit TextInterner(TextArena& arena) : arena_(arena) {}

  // The arena's copy of a text equal to `text`, made on first sight.
  std::string_view Intern(std::string_view text);

  // Distinct texts interned.
  size_t size() const { return seen_.size(); }

 private:
  TextArena& arena_;
  absl::flat_hash_set<std::string_view> seen_;  // views into arena_
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_TEXT_ARENA_H_
