// Instructions' metadata kept out of line: most of a large module's
// instructions carry no metadata, or the same as the instruction before
// them, so an instruction holds one pointer (SharedMetadata) into storage
// its module owns (MetadataPool) instead of XLA's five fields inline.
#ifndef MEMPLAN_IR_METADATA_POOL_H_
#define MEMPLAN_IR_METADATA_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "ir/metadata.h"

namespace memplan::ir {

// A read-only view of an OpMetadata that some MetadataPool (or static
// storage) owns: one pointer. Default: empty metadata (the input gives
// none). Reads as a `const OpMetadata&`; to change an instruction's
// metadata, store the new one (Module::StoreMetadata) and assign it.
class SharedMetadata {
 public:
  SharedMetadata();
  // Requires `metadata` to outlive every copy of this view.
  explicit SharedMetadata(const OpMetadata* metadata) : metadata_(metadata) {}

  const OpMetadata& operator*() const { return *metadata_; }
  const OpMetadata* operator->() const { return metadata_; }
  operator const OpMetadata&() const { return *metadata_; }  // NOLINT: reads as the metadata
  const OpMetadata* get() const { return metadata_; }

  // By content, as OpMetadata compares.
  friend bool operator==(const SharedMetadata& a, const SharedMetadata& b) {
    return *a.metadata_ == *b.metadata_;
  }

 private:
  const OpMetadata* metadata_;
};

// Keeps instructions' metadata at stable addresses. Empty metadata takes
// no storage (the static empty one), and metadata equal to the last one
// stored is shared with it (consecutive instructions of one source
// operation); anything else gets a record of its own. (No lookup by
// content: metadata names an instruction's op_name, which differs from
// one instruction to the next in practice, so a hash index would cost
// more than it shares.)
//
// A copy of a pool keeps the records made so far alive (shared with the
// original) and stores new ones in storage of its own: copies never write
// to shared storage, so copies used on different threads are safe.
class MetadataPool {
 public:
  MetadataPool() = default;
  MetadataPool(const MetadataPool& other);
  MetadataPool& operator=(const MetadataPool& other);
  MetadataPool(MetadataPool&&) noexcept = default;
  MetadataPool& operator=(MetadataPool&&) noexcept = default;
  ~MetadataPool();

  // A view of a record equal to `metadata`; valid for as long as this pool
  // or any copy of it lives. Its text fields are views as given (the
  // module keeps their text alive).
  SharedMetadata Store(const OpMetadata& metadata);

  // Records stored in this pool's own storage.
  size_t size() const;

 private:
  struct Storage;
  std::shared_ptr<Storage> own_;  // made on first non-empty Store
  std::vector<std::shared_ptr<const Storage>> kept_;  // copied pools' records
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_METADATA_POOL_H_
