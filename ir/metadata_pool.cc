#include "ir/metadata_pool.h"

#include "ir/block_list.h"

namespace memplan::ir {
namespace {

const OpMetadata& NoMetadata() {
  static const OpMetadata* const kNone = new OpMetadata();
  return *kNone;
}

}  // namespace

SharedMetadata::SharedMetadata() : metadata_(&NoMetadata()) {}

struct MetadataPool::Storage {
  BlockList<OpMetadata, 1024> records;
};

MetadataPool::MetadataPool(const MetadataPool& other) : kept_(other.kept_) {
  if (other.own_ != nullptr) kept_.push_back(other.own_);
}

MetadataPool& MetadataPool::operator=(const MetadataPool& other) {
  if (this != &other) *this = MetadataPool(other);
  return *this;
}

MetadataPool::~MetadataPool() = default;

SharedMetadata MetadataPool::Store(const OpMetadata& metadata) {
  if (metadata == OpMetadata()) return SharedMetadata();
  if (own_ == nullptr) own_ = std::make_shared<Storage>();
  BlockList<OpMetadata, 1024>& records = own_->records;
  if (!records.empty() && records[records.size() - 1] == metadata) {
    return SharedMetadata(&records[records.size() - 1]);
  }
  return SharedMetadata(&records.emplace_back(metadata));
}

size_t MetadataPool::size() const { return own_ != nullptr ? own_->records.size() : 0; }

}  // namespace memplan::ir
