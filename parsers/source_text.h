// An input file held in memory (memory-mapped when large), with the means to
// turn a byte offset into "file:line:column" and to build a parse error that
// names what was expected there.
#ifndef MEMPLAN_PARSERS_SOURCE_TEXT_H_
#define MEMPLAN_PARSERS_SOURCE_TEXT_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace llvm {
class MemoryBuffer;
}

namespace memplan::parsers {

class SourceText {
 public:
  // The most FromFile reads from a file that is not a regular file.
  static constexpr size_t kMaxStreamBytes = size_t{256} << 20;

  // A regular file is mapped read-only. Anything else that is not a
  // directory (a FIFO, /dev/stdin, a device) is read once, as a stream, and
  // refused with InvalidArgument when longer than kMaxStreamBytes (so
  // /dev/zero or /dev/urandom end in an error, not in exhausted memory).
  // NotFound / InvalidArgument naming the path on failure.
  static absl::StatusOr<std::shared_ptr<const SourceText>> FromFile(
      const std::string& path);
  // Copies `contents`; `name` stands for the file name in messages.
  static std::shared_ptr<const SourceText> FromString(std::string name,
                                                      std::string_view contents);

  // Where a run of derived text starts in the text it was derived from:
  // bytes from `derived` on come from `origin` on, until the next entry.
  struct OffsetMapEntry {
    size_t derived = 0;
    size_t origin = 0;
  };
  // A text derived from `origin` by removing or replacing bytes (see
  // parsers/input_text.h): it keeps `origin` alive, and every location it
  // gives (Locate, LocationString, ErrorAt) points into `origin`'s root, the
  // file as read. `map` is sorted by `derived` and starts at 0. When
  // `cr_line_breaks`, a lone '\r' in the root ends a line.
  static std::shared_ptr<const SourceText> Derived(std::shared_ptr<const SourceText> origin,
                                                   std::string text,
                                                   std::vector<OffsetMapEntry> map,
                                                   bool cr_line_breaks);

  // The text this one was derived from, or nullptr for a file as read.
  const SourceText* origin() const { return origin_.get(); }
  // The text as read: the end of the origin() chain (this one when none).
  const SourceText& root() const;
  // `offset` into text() as an offset into root().text().
  size_t RootOffset(size_t offset) const;

  ~SourceText();

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // 1-based line and column of the byte at `offset` (clamped to the text),
  // in the file as read (root()) for a derived text.
  struct LineColumn {
    int64_t line = 1;
    int64_t column = 1;
  };
  LineColumn Locate(size_t offset) const;

  // "name:line:col".
  std::string LocationString(size_t offset) const;
  // Same, for a pointer into text().
  std::string LocationString(const char* at) const {
    return LocationString(static_cast<size_t>(at - text_.data()));
  }

  // Says the bytes in [begin, end) (pointers into text()) will not be read
  // again soon. When the file is memory-mapped, the whole pages among them
  // leave this process's resident memory; the text stays valid and
  // unchanged (a later read maps a page again from the page cache). Else
  // nothing happens.
  void ReleaseResident(const char* begin, const char* end) const;

  // InvalidArgument: "name:line:col: error: expected ...", followed by the
  // offending line and a caret, as a compiler prints it.
  absl::Status ErrorAt(const char* at, std::string_view message) const;

 private:
  SourceText(std::string name, std::unique_ptr<llvm::MemoryBuffer> buffer);
  SourceText(std::string name, std::string contents);
  // Line and column of `offset` into this (root) text.
  LineColumn LocateHere(size_t offset) const;

  std::string name_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;  // when mapped
  std::string owned_;                           // when copied
  std::string_view text_;
  // For a derived text: see Derived().
  std::shared_ptr<const SourceText> origin_;
  std::vector<OffsetMapEntry> map_;
  bool cr_line_breaks_ = false;
};

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_SOURCE_TEXT_H_
