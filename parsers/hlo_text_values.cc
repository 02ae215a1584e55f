// Structured values of HLO instruction attributes: window, dim_labels,
// slice, padding, replica groups, source-target pairs.
#include <array>
#include <string>

#include "ir/strings.h"
#include "parsers/hlo_text_internal.h"

namespace memplan::parsers::hlo_text {
namespace {

// "3x3", "1_1x0_2": `parts` integers joined by '_' per dimension, dimensions
// joined by 'x'. Appends one array per dimension.
template <size_t N>
bool ParseXList(Scanner& s, std::vector<std::array<int64_t, N>>* out, std::string_view what) {
  while (true) {
    std::array<int64_t, N> item{};
    for (size_t k = 0; k < N; ++k) {
      if (k > 0 && !s.ConsumeChar('_')) return s.Fail(StrCat("expected ", what));
      if (!s.ConsumeInt(&item[k])) return s.Fail(StrCat("expected ", what));
    }
    out->push_back(item);
    if (!s.ConsumeChar('x')) return true;
  }
}

// One side of dim_labels: `batch` and `feature` letters and spatial digits;
// a position per letter. Returns false on a repeated or missing letter.
struct Labels {
  int64_t batch = -1;
  int64_t feature = -1;
  std::vector<int64_t> spatial;  // by spatial index: position
};

bool ReadLabels(Scanner& s, char batch, char feature, Labels* out) {
  const char* start = s.pos();
  std::array<int64_t, 10> by_digit;
  by_digit.fill(-1);
  size_t digits = 0;
  int64_t position = 0;
  for (; !s.AtEnd(); ++position) {
    const char c = s.Peek();
    if (c == batch || c == feature) {
      int64_t& slot = c == batch ? out->batch : out->feature;
      if (slot >= 0) return false;
      slot = position;
    } else if (IsDigit(c)) {
      const int digit = c - '0';
      if (by_digit[digit] >= 0) return false;
      by_digit[digit] = position;
      ++digits;
    } else {
      break;
    }
    s.ConsumeChar(c);
  }
  if (s.pos() == start || out->batch < 0 || out->feature < 0) return false;
  for (size_t d = 0; d < digits; ++d) {
    if (by_digit[d] < 0) return false;  // spatial digits must be 0..n-1
    out->spatial.push_back(by_digit[d]);
  }
  return true;
}

// "[2,4]" into `out`.
bool ParseBracketList(Scanner& s, std::vector<int64_t>* out) {
  if (!s.ConsumeChar('[')) return false;
  if (s.ConsumeChar(']')) return true;
  while (true) {
    int64_t v = 0;
    if (!s.ConsumeInt(&v)) return false;
    out->push_back(v);
    if (s.ConsumeChar(']')) return true;
    if (!s.ConsumeChar(',')) return false;
  }
}

// {{0,1},{2,3}}: lists of integers in braces.
bool ParseNestedIntLists(Scanner& s, std::vector<std::vector<int64_t>>* out) {
  if (!s.Next('{')) return s.Fail("expected '{' starting a list of groups");
  s.Skip();
  if (s.ConsumeChar('}')) return true;
  while (true) {
    if (!ParseIntList(s, &out->emplace_back())) return false;
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or '}' between groups");
  }
}

// A window's fields as read, each with where its key was (nullptr: absent).
struct WindowFields {
  std::vector<std::array<int64_t, 1>> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::array<int64_t, 2>> pad;
  const char *size_at = nullptr, *stride_at = nullptr, *pad_at = nullptr, *lhs_at = nullptr,
             *rhs_at = nullptr, *rev_at = nullptr;
};

constexpr char kWindowKeys[] =
    "expected size=, stride=, pad=, lhs_dilate=, rhs_dilate= or rhs_reversal= in a window";

// The value of window field `key` (its name at `key_at`; `s` is after the
// '='), appended to its list in `f`. False (failed) on an unknown key or a
// malformed value.
bool ParseWindowField(Scanner& s, std::string_view key, const char* key_at, WindowFields* f) {
  if (key == "size") {
    f->size_at = key_at;
    return ParseXList(s, &f->size, "window sizes such as 3x3");
  }
  if (key == "stride") {
    f->stride_at = key_at;
    return ParseXList(s, &f->stride, "window strides such as 2x2");
  }
  if (key == "pad") {
    f->pad_at = key_at;
    return ParseXList(s, &f->pad, "window padding such as 1_1x0_2 (low_high per dimension)");
  }
  if (key == "lhs_dilate") {
    f->lhs_at = key_at;
    return ParseXList(s, &f->lhs_dilate, "base dilations such as 2x2");
  }
  if (key == "rhs_dilate") {
    f->rhs_at = key_at;
    return ParseXList(s, &f->rhs_dilate, "window dilations such as 2x2");
  }
  if (key == "rhs_reversal") {
    f->rev_at = key_at;
    return ParseXList(s, &f->reversal, "window reversals such as 0x1");
  }
  return s.Fail(key_at, kWindowKeys);
}

// False (failed, at the first offending field) unless every field given has
// as many dimensions as size= (which must be given when any other is).
bool CheckWindowRanks(Scanner& s, const WindowFields& f) {
  const size_t rank = f.size.size();
  for (const auto& [at, n] : {std::pair{f.stride_at, f.stride.size()}, std::pair{f.pad_at, f.pad.size()},
                              std::pair{f.lhs_at, f.lhs_dilate.size()},
                              std::pair{f.rhs_at, f.rhs_dilate.size()},
                              std::pair{f.rev_at, f.reversal.size()}}) {
    if (at && n != rank) {
      return s.Fail(at, f.size_at ? StrCat("expected every window field to have ", rank,
                                           " dimensions, as size= has")
                                  : std::string("expected size= in a window with other fields"));
    }
  }
  return true;
}

// `window`'s dimensions from fields CheckWindowRanks accepted; a field not
// given leaves its default.
void FillWindow(const WindowFields& f, ir::Window* window) {
  const size_t rank = f.size.size();
  window->dimensions.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    ir::WindowDimension& d = window->dimensions[i];
    d.size = f.size[i][0];
    if (f.stride_at) d.stride = f.stride[i][0];
    if (f.pad_at) {
      d.padding_low = f.pad[i][0];
      d.padding_high = f.pad[i][1];
    }
    if (f.lhs_at) d.base_dilation = f.lhs_dilate[i][0];
    if (f.rhs_at) d.window_dilation = f.rhs_dilate[i][0];
    if (f.rev_at) d.window_reversal = f.reversal[i][0] != 0;
  }
}

}  // namespace

// window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
// rhs_reversal=0x1}; every field but size may be left out.
bool ParseWindow(Scanner& s, ir::Window* window) {
  if (!s.Next('{')) return s.Fail("expected '{' starting a window");
  WindowFields fields;
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) break;
    const char* key_at = s.pos();
    const std::string_view key = s.ConsumeName();
    if (!s.Next('=')) return s.Fail(key_at, kWindowKeys);
    s.Skip();
    if (!ParseWindowField(s, key, key_at, &fields)) return false;
  }
  if (!CheckWindowRanks(s, fields)) return false;
  FillWindow(fields, window);
  return true;
}

// dim_labels=b01f_01io->b01f: the position of each letter is the dimension
// number (b batch, f feature, i/o kernel input/output feature, digits the
// spatial dimensions in order).
bool ParseDimLabels(Scanner& s, ir::ConvolutionDimensionNumbers* out) {
  const char* start = s.pos();
  Labels input, kernel, output;
  const bool ok = ReadLabels(s, 'b', 'f', &input) && s.ConsumeChar('_') &&
                  ReadLabels(s, 'i', 'o', &kernel) && s.Consume("->") &&
                  ReadLabels(s, 'b', 'f', &output) && input.spatial.size() == kernel.spatial.size() &&
                  input.spatial.size() == output.spatial.size();
  if (!ok) {
    return s.Fail(start, "expected dim_labels such as b01f_01io->b01f (each letter once, the "
                         "same spatial digits 0..n-1 on every side)");
  }
  out->input_batch = input.batch;
  out->input_feature = input.feature;
  out->input_spatial = std::move(input.spatial);
  out->kernel_input_feature = kernel.batch;  // 'i' was read as the first letter
  out->kernel_output_feature = kernel.feature;
  out->kernel_spatial = std::move(kernel.spatial);
  out->output_batch = output.batch;
  out->output_feature = output.feature;
  out->output_spatial = std::move(output.spatial);
  return true;
}

// slice={[0:8], [2:10:2]}.
bool ParseSlice(Scanner& s, ir::ThinVector<ir::SliceDimension>* out) {
  if (!s.Next('{')) return s.Fail("expected '{' starting slice bounds");
  s.Skip();
  if (s.ConsumeChar('}')) return true;
  while (true) {
    s.Skip();
    ir::SliceDimension d;
    if (!s.ConsumeChar('[') || !s.ConsumeInt(&d.start) || !s.ConsumeChar(':') ||
        !s.ConsumeInt(&d.limit)) {
      return s.Fail("expected a slice dimension such as [0:8] or [0:8:2]");
    }
    if (s.ConsumeChar(':') && !s.ConsumeInt(&d.stride)) return s.Fail("expected a slice stride");
    if (!s.ConsumeChar(']')) return s.Fail("expected ']' closing a slice dimension");
    out->push_back(d);
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or '}' in slice bounds");
  }
}

// padding=0_0x1_2_1: low_high[_interior] per dimension, joined by 'x'
// (empty for a scalar).
bool ParsePadding(Scanner& s, ir::ThinVector<ir::PadDimension>* out) {
  if (s.Peek() != '-' && !IsDigit(s.Peek())) return true;
  while (true) {
    ir::PadDimension d;
    if (!s.ConsumeInt(&d.low) || !s.ConsumeChar('_') || !s.ConsumeInt(&d.high)) {
      return s.Fail("expected padding such as 0_0x1_2_1 (low_high[_interior] per dimension)");
    }
    if (s.ConsumeChar('_') && !s.ConsumeInt(&d.interior)) {
      return s.Fail("expected the interior padding after '_'");
    }
    out->push_back(d);
    if (!s.ConsumeChar('x')) return true;
  }
}

// replica_groups={{0,1},{2,3}}, the iota form [2,4]<=[8], [4,2]<=[2,4]T(1,0), or
// the mesh-axes form mesh['x'=2,'y'=4] {'x'}.
bool ParseReplicaGroups(Scanner& s, ir::ReplicaGroups* out) {
  if (s.StartsWith("mesh[")) return ParseMeshAxesReplicaGroups(s, out);
  if (s.Peek() != '[') return ParseNestedIntLists(s, &out->explicit_groups);
  const char* start = s.pos();
  ir::IotaDevices iota;
  bool ok = ParseBracketList(s, &iota.dims) && s.Consume("<=") &&
            ParseBracketList(s, &iota.reshape_dims);
  if (ok && s.ConsumeChar('T')) {
    ok = s.ConsumeChar('(');
    while (ok && !s.ConsumeChar(')')) {
      int64_t v = 0;
      ok = s.ConsumeInt(&v);
      iota.transpose_perm.push_back(v);
      if (ok && s.Peek() != ')') ok = s.ConsumeChar(',');
    }
  }
  if (!ok) {
    return s.Fail(start, "expected replica groups such as {{0,1},{2,3}} or [2,4]<=[8] or "
                         "[4,2]<=[2,4]T(1,0)");
  }
  out->iota = std::move(iota);
  return true;
}

// source_target_pairs={{0,1},{1,2}}.
bool ParseSourceTargetPairs(Scanner& s, ir::ThinVector<std::pair<int64_t, int64_t>>* out) {
  std::vector<std::vector<int64_t>> lists;
  const char* start = s.pos();
  if (!ParseNestedIntLists(s, &lists)) return false;
  for (const std::vector<int64_t>& pair : lists) {
    if (pair.size() != 2) return s.Fail(start, "expected source-target pairs such as {{0,1},{1,2}}");
    out->emplace_back(pair[0], pair[1]);
  }
  return true;
}

}  // namespace memplan::parsers::hlo_text
