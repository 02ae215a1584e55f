#include "predictor/packing_memo.h"

#include <algorithm>
#include <numeric>

namespace memplan::predictor {

std::optional<int64_t> PackingMemo::Scaled(const std::vector<TempBuffer>& temp,
                                           int64_t alignment) const {
  std::shared_ptr<const Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept = kept_;
  }
  if (kept == nullptr || temp.empty() || kept->temp.size() != temp.size() ||
      kept->alignment != alignment) {
    return std::nullopt;
  }
  const int64_t align = std::max<int64_t>(alignment, 1);
  // Sizes as the packing sees them (analyzer::PackingInterval sizes are > 0).
  auto size_of = [](const TempBuffer& b) { return std::max<int64_t>(b.size, 1); };
  int64_t p = size_of(temp[0]), q = size_of(kept->temp[0]);
  const int64_t g = std::gcd(p, q);
  p /= g;
  q /= g;
  for (size_t i = 0; i < temp.size(); ++i) {
    const TempBuffer& a = temp[i];
    const TempBuffer& b = kept->temp[i];
    if (a.start != b.start || a.end != b.end || a.share_with != b.share_with) return std::nullopt;
    const int64_t sa = size_of(a), sb = size_of(b);
    if (sa % align != 0 || sb % align != 0) return std::nullopt;
    if (static_cast<__int128>(sa) * q != static_cast<__int128>(sb) * p) return std::nullopt;
  }
  const __int128 heap = static_cast<__int128>(kept->heap) * p;
  if (heap % q != 0) return std::nullopt;
  return static_cast<int64_t>(heap / q);
}

void PackingMemo::Keep(const std::vector<TempBuffer>& temp, int64_t alignment, int64_t heap) {
  // The kept list's storage is rewritten in place when no reader holds it
  // (readers copy kept_ only under the lock, so a count of one here stays
  // one): a structure's candidates keep lists of one length, and a fresh
  // copy each time would be fresh pages faulted in.
  std::shared_ptr<Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_ != nullptr && kept_.use_count() == 1) kept = std::move(kept_);
  }
  if (kept == nullptr) kept = std::make_shared<Kept>();
  kept->temp.assign(temp.begin(), temp.end());
  kept->alignment = alignment;
  kept->heap = heap;
  std::lock_guard<std::mutex> lock(mutex_);
  kept_ = std::move(kept);
}

namespace {

// Whether `a` and `b` list the same lifetimes and sharing.
bool SameLifetimes(const std::vector<TempBuffer>& a, const std::vector<TempBuffer>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].share_with != b[i].share_with) {
      return false;
    }
  }
  return true;
}

// Sizes as the packing sees them (analyzer::PackingInterval sizes are > 0).
int64_t PackedSize(const TempBuffer& b) { return std::max<int64_t>(b.size, 1); }

}  // namespace

std::optional<int64_t> PackingMemo::FromForms(const std::vector<TempBuffer>& temp,
                                              int64_t alignment) const {
  std::shared_ptr<const KeptForms> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept = forms_;
  }
  if (kept == nullptr || kept->alignment != alignment || !SameLifetimes(temp, *kept->temp)) {
    return std::nullopt;
  }
  std::vector<int64_t> sizes;
  for (auto it = kept->entries.rbegin(); it != kept->entries.rend(); ++it) {
    const FormsEntry& entry = **it;
    // Each class's size here: one for all of its buffers, else no answer.
    sizes.assign(entry.forms.class_sizes().size(), -1);
    bool one_each = true;
    for (size_t b = 0; b < temp.size() && one_each; ++b) {
      int64_t& s = sizes[entry.class_of[b]];
      const int64_t size = PackedSize(temp[b]);
      if (s < 0) s = size;
      one_each = s == size;
    }
    if (!one_each) continue;
    if (std::optional<int64_t> heap = entry.forms.HeapFor(sizes)) return heap;
  }
  return std::nullopt;
}

bool PackingMemo::KeptLifetimes(const std::vector<TempBuffer>& temp, int64_t alignment) const {
  std::shared_ptr<const Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept = kept_;
  }
  return kept != nullptr && kept->alignment == alignment && SameLifetimes(temp, kept->temp);
}

void PackingMemo::KeepForms(const std::vector<TempBuffer>& temp, int64_t alignment,
                            analyzer::PackingForms forms) {
  auto entry = std::make_shared<FormsEntry>();
  const std::vector<int64_t>& classes = forms.class_sizes();
  entry->class_of.resize(temp.size());
  for (size_t b = 0; b < temp.size(); ++b) {
    entry->class_of[b] = static_cast<uint8_t>(
        std::lower_bound(classes.begin(), classes.end(), PackedSize(temp[b])) - classes.begin());
  }
  entry->forms = std::move(forms);
  std::lock_guard<std::mutex> lock(mutex_);
  auto kept = std::make_shared<KeptForms>();
  if (forms_ != nullptr && forms_->alignment == alignment && SameLifetimes(temp, *forms_->temp)) {
    *kept = *forms_;  // pointers: the lifetimes and earlier entries are shared
    if (kept->entries.size() == kMaxForms) kept->entries.erase(kept->entries.begin());
  } else {
    kept->temp = std::make_shared<const std::vector<TempBuffer>>(temp);
    kept->alignment = alignment;
  }
  kept->entries.push_back(std::move(entry));
  forms_ = std::move(kept);
}

std::shared_ptr<const ValueBytesTable> PackingMemo::value_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return value_bytes_;
}

void PackingMemo::ShareValueBytes(std::shared_ptr<const ValueBytesTable> table) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (value_bytes_ == nullptr) value_bytes_ = std::move(table);
}

bool KeptCombined::FormedFrom(const std::vector<PredictedCollective>& list) const {
  if (list.size() != collectives) return false;
  size_t r = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].kind != CollectiveKind::kAllReduce) continue;
    if (r == reduces.size()) return false;
    const Reduce& k = reduces[r++];
    if (k.index != i || k.at != list[i].at || k.source != list[i].source || k.axes != list[i].axes) {
      return false;
    }
  }
  return r == reduces.size();
}

std::shared_ptr<const KeptCombined> PackingMemo::combined() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return combined_;
}

void PackingMemo::KeepCombined(const std::vector<PredictedCollective>& list,
                               std::shared_ptr<const CombinedGroups> combined) {
  auto kept = std::make_shared<KeptCombined>();
  kept->combined = std::move(combined);
  kept->collectives = list.size();
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].kind != CollectiveKind::kAllReduce) continue;
    kept->reduces.push_back({i, list[i].at, list[i].source, list[i].axes});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (combined_ == nullptr) combined_ = std::move(kept);
}

}  // namespace memplan::predictor
