// The reader behind parsers/hlo_sharding_parser.h, shared by its two
// source files (the tiled forms in hlo_sharding_parser.cc, the named-mesh
// form in hlo_sharding_named.cc). Not an interface: use the functions of
// hlo_sharding_parser.h.
#ifndef MEMPLAN_PARSERS_HLO_SHARDING_READER_H_
#define MEMPLAN_PARSERS_HLO_SHARDING_READER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/sharding.h"
#include "parsers/sharding_limits.h"

namespace memplan::parsers::hlo_sharding_text {

using ir::AxisRef;
using ir::HloSharding;
using ir::NamedSharding;
using ir::OpShardingType;

// A recursive-descent reader over one sharding. Every Parse* returns false
// with the error set (the first failure wins) and pos() at the failing byte.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  size_t pos() const { return pos_; }
  size_t error_pos() const { return error_pos_; }
  const std::string& error() const { return error_; }

  // '{' then a tuple or a single sharding.
  bool ParseTop(HloSharding* out);

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool StartsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  // "[1,2,3]" (possibly empty when `allow_empty`).
  bool ParseIntList(char open, char close, std::vector<int64_t>* out, std::string_view what,
                    bool allow_empty = false, size_t max_entries = kMaxShardingListLength);
  void SkipSpace();
  bool Fail(std::string_view message);
  bool Expect(char c, std::string_view message);
  bool ConsumeWord(std::string_view word);
  bool ParseInt(int64_t* out, std::string_view what);
  bool ParseNonNegative(int64_t* out, std::string_view what);
  bool CheckDeviceCount(const std::vector<int64_t>& dims, size_t at);
  // After "devices=": "[2,2]0,1,2,3" or "[2,2]<=[4]" or "[2,2]<=[2,2]T(1,0)".
  bool ParseTileAssignment(ir::TileAssignment* out);
  // "{...}" with nested braces and quoted strings, kept as the text inside.
  bool ParseBraced(std::string* inside);
  // "metadata={op_name=...}" or "metadata={{...}, {...}}".
  bool ParseMetadata(std::vector<std::string>* out);
  bool ParseSubgroupTypes(std::vector<OpShardingType>* out);
  // The words of a single (not named-mesh) sharding body, as seen so far.
  struct BodyWords {
    bool replicated = false, manual = false, unknown = false, unreduced = false;
    bool maximal = false;
    std::optional<int64_t> device;  // device=N
    bool has_tiles = false;         // devices=...
  };
  // The words of a single sharding up to and with its closing '}'.
  bool ParseSingleBody(HloSharding* out);
  // One word of a single sharding body: a kind into `words`, anything else
  // (tiles, subgroups, shard group, metadata) into `out`.
  bool ParseBodyWord(HloSharding* out, BodyWords* words);
  // Sets out->kind from `words`: exactly one kind, 'maximal' with its
  // device, subgroup dims only on tiles and fewer than the tile dims.
  bool SetBodyKind(const BodyWords& words, HloSharding* out);
  bool ParseTuple(HloSharding* out);
  // An axis name: 'quoted' or a bare identifier.
  bool ParseAxisName(std::string* name);
  bool ParseAxisRef(const NamedSharding& named, AxisRef* out);
  bool ParseAxisRefSet(const NamedSharding& named, std::vector<AxisRef>* out);
  // {mesh['x'=2,'y'=2](, device_ids=(..))?, [dims](, replicated={..})...}
  // or {mesh[..], replicated|unreduced|manual} or {maximal_mesh[device_id=N]}.
  bool ParseNamedBody(HloSharding* out);
  bool ParseMeshAxes(ir::Mesh* mesh);
  // After "device_ids=": "(8,3,7,...)" or "([4,16]T(1,0))".
  bool ParseMeshDeviceIds(ir::Mesh* mesh);
  bool ParseDimShardings(NamedSharding* named);

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
};

// A character of a bare word or axis name.
bool IsIdentChar(char c);

}  // namespace memplan::parsers::hlo_sharding_text

#endif  // MEMPLAN_PARSERS_HLO_SHARDING_READER_H_
