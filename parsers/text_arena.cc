#include "parsers/text_arena.h"

#include <cstring>

namespace memplan::parsers {

TextArena::TextArena(size_t block_bytes) : block_bytes_(block_bytes == 0 ? 1 : block_bytes) {}

std::string_view TextArena::Copy(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > left_) {
    // A text longer than a quarter block gets a block of its own, so that a
    // long one does not waste the rest of the current block.
    if (text.size() > block_bytes_ / 4) {
      blocks_.push_back(std::unique_ptr<char[]>(new char[text.size()]));
      capacity_ += text.size();
      bytes_ += text.size();
      std::memcpy(blocks_.back().get(), text.data(), text.size());
      return {blocks_.back().get(), text.size()};
    }
    blocks_.push_back(std::unique_ptr<char[]>(new char[block_bytes_]));
    capacity_ += block_bytes_;
    next_ = blocks_.back().get();
    left_ = block_bytes_;
  }
  std::memcpy(next_, text.data(), text.size());
  const std::string_view copy(next_, text.size());
  next_ += text.size();
  left_ -= text.size();
  bytes_ += text.size();
  return copy;
}

std::string_view TextInterner::Intern(std::string_view text) {
  if (text.empty()) return {};
  if (auto it = seen_.find(text); it != seen_.end()) return *it;
  const std::string_view copy = arena_.Copy(text);
  seen_.insert(copy);
  return copy;
}

}  // namespace memplan::parsers
