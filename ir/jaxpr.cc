#include "ir/jaxpr.h"

#include <string>
#include <utility>

namespace memplan::ir {

namespace {

// numpy's long names to JAX's short ones, as jax's short_dtype_name does:
// float -> f, uint -> u, int -> i, complex -> c.
std::string ShortName(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {"float", "f"}, {"uint", "u"}, {"int", "i"}, {"complex", "c"}};
  std::string s(name);
  for (const auto& [from, to] : kRules) {
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
      if (s.compare(i, from.size(), from) == 0) {
        out += to;
        i += from.size();
      } else {
        out += s[i++];
      }
    }
    s = std::move(out);
  }
  return s;
}

}  // namespace

DType JaxDTypeFromName(std::string_view name) {
  const std::string s = ShortName(name);
  struct Entry {
    std::string_view name;
    DType type;
  };
  static constexpr Entry kTable[] = {
      {"bool", DType::kPred},      {"i1", DType::kS1},          {"i2", DType::kS2},
      {"i4", DType::kS4},          {"i8", DType::kS8},          {"i16", DType::kS16},
      {"i32", DType::kS32},        {"i64", DType::kS64},        {"u1", DType::kU1},
      {"u2", DType::kU2},          {"u4", DType::kU4},          {"u8", DType::kU8},
      {"u16", DType::kU16},        {"u32", DType::kU32},        {"u64", DType::kU64},
      {"bf16", DType::kBF16},      {"f16", DType::kF16},        {"f32", DType::kF32},
      {"f64", DType::kF64},        {"c64", DType::kC64},        {"c128", DType::kC128},
      {"f4_e2m1fn", DType::kF4E2M1FN}, {"f8_e5m2", DType::kF8E5M2}, {"f8_e4m3", DType::kF8E4M3},
      {"f8_e4m3fn", DType::kF8E4M3FN}, {"f8_e4m3b11fnuz", DType::kF8E4M3B11FNUZ},
      {"f8_e5m2fnuz", DType::kF8E5M2FNUZ}, {"f8_e4m3fnuz", DType::kF8E4M3FNUZ},
      {"f8_e3m4", DType::kF8E3M4}, {"f8_e8m0fnu", DType::kF8E8M0FNU},
  };
  for (const Entry& e : kTable) {
    if (e.name == s) return e.type;
  }
  return DType::kInvalid;
}

int64_t JaxprAval::ElementCount() const {
  if (!known) return -1;
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d != 0 && n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

int64_t JaxprAval::ByteSize() const {
  if (dtype_name == "float0") return 0;
  const int64_t n = ElementCount();
  if (n < 0 || dtype == DType::kInvalid) return -1;
  const int64_t per = DTypeStorageBytes(dtype);
  if (per > 0 && n > INT64_MAX / per) return -1;
  return n * per;
}

std::optional<int64_t> JaxprParamValue::AsInt() const {
  // NumPy's scalar integers print as their constructor: np.int64(2).
  if (kind == Kind::kCall && elements.size() == 1 && keys.size() <= 1 &&
      (keys.empty() || keys[0].empty()) &&
      (text == "np.int64" || text == "np.int32" || text == "np.int16" || text == "np.int8" ||
       text == "np.uint64" || text == "np.uint32" || text == "np.uint16" || text == "np.uint8")) {
    return elements[0].AsInt();
  }
  if (kind != Kind::kNumber || text.empty()) return std::nullopt;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return text[0] == '-' ? -v : v;
}

std::optional<std::vector<int64_t>> JaxprParamValue::AsIntList() const {
  if (kind != Kind::kTuple && kind != Kind::kList) return std::nullopt;
  std::vector<int64_t> out;
  for (const JaxprParamValue& e : elements) {
    const std::optional<int64_t> v = e.AsInt();
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

const JaxprParam* JaxprEqn::FindParam(std::string_view name) const {
  for (const JaxprParam& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<DotDimensionNumbers> DotGeneralDimensions(const JaxprEqn& eqn) {
  const JaxprParam* p = eqn.FindParam("dimension_numbers");
  if (p == nullptr) return std::nullopt;
  const JaxprParamValue& v = p->value;
  if (v.kind != JaxprParamValue::Kind::kTuple || v.elements.size() != 2) return std::nullopt;
  const JaxprParamValue& contracting = v.elements[0];
  const JaxprParamValue& batch = v.elements[1];
  if (contracting.elements.size() != 2 || batch.elements.size() != 2) return std::nullopt;
  DotDimensionNumbers d;
  const auto lc = contracting.elements[0].AsIntList(), rc = contracting.elements[1].AsIntList();
  const auto lb = batch.elements[0].AsIntList(), rb = batch.elements[1].AsIntList();
  if (!lc || !rc || !lb || !rb) return std::nullopt;
  d.lhs_contracting = *lc;
  d.rhs_contracting = *rc;
  d.lhs_batch = *lb;
  d.rhs_batch = *rb;
  return d;
}

namespace {

// The int list of the keyword argument `key` of a call value; nullopt when absent.
std::optional<std::vector<int64_t>> KeywordIntList(const JaxprParamValue& call, std::string_view key) {
  for (size_t i = 0; i < call.elements.size() && i < call.keys.size(); ++i) {
    if (call.keys[i] == key) return call.elements[i].AsIntList();
  }
  return std::nullopt;
}

// A tuple or list of int lists ("((1, 1), (0, 2))"); nullopt otherwise.
std::optional<std::vector<std::vector<int64_t>>> IntListList(const JaxprParamValue& v) {
  if (v.kind != JaxprParamValue::Kind::kTuple && v.kind != JaxprParamValue::Kind::kList) {
    return std::nullopt;
  }
  std::vector<std::vector<int64_t>> out;
  for (const JaxprParamValue& e : v.elements) {
    std::optional<std::vector<int64_t>> list = e.AsIntList();
    if (!list) return std::nullopt;
    out.push_back(*std::move(list));
  }
  return out;
}

std::optional<std::vector<int64_t>> ParamIntList(const JaxprEqn& eqn, std::string_view name) {
  const JaxprParam* p = eqn.FindParam(name);
  return p == nullptr ? std::nullopt : p->value.AsIntList();
}

}  // namespace

std::optional<ConvolutionDimensionNumbers> ConvGeneralDimensions(const JaxprEqn& eqn) {
  const JaxprParam* p = eqn.FindParam("dimension_numbers");
  if (p == nullptr || p->value.kind != JaxprParamValue::Kind::kCall) return std::nullopt;
  const auto lhs = KeywordIntList(p->value, "lhs_spec");
  const auto rhs = KeywordIntList(p->value, "rhs_spec");
  const auto out = KeywordIntList(p->value, "out_spec");
  if (!lhs || !rhs || !out || lhs->size() < 2 || lhs->size() != rhs->size() ||
      lhs->size() != out->size()) {
    return std::nullopt;
  }
  ConvolutionDimensionNumbers d;
  d.input_batch = (*lhs)[0];
  d.input_feature = (*lhs)[1];
  d.input_spatial.assign(lhs->begin() + 2, lhs->end());
  d.kernel_output_feature = (*rhs)[0];
  d.kernel_input_feature = (*rhs)[1];
  d.kernel_spatial.assign(rhs->begin() + 2, rhs->end());
  d.output_batch = (*out)[0];
  d.output_feature = (*out)[1];
  d.output_spatial.assign(out->begin() + 2, out->end());
  return d;
}

std::optional<Window> ConvGeneralWindow(const JaxprEqn& eqn,
                                        const std::vector<int64_t>& kernel_spatial_sizes) {
  const size_t rank = kernel_spatial_sizes.size();
  const auto strides = ParamIntList(eqn, "window_strides");
  const JaxprParam* padding = eqn.FindParam("padding");
  const auto pads = padding == nullptr ? std::nullopt : IntListList(padding->value);
  if (!strides || !pads || strides->size() != rank || pads->size() != rank) return std::nullopt;
  auto dilation = [&](std::string_view name) -> std::optional<std::vector<int64_t>> {
    if (eqn.FindParam(name) == nullptr) return std::vector<int64_t>(rank, 1);
    std::optional<std::vector<int64_t>> d = ParamIntList(eqn, name);
    if (d && d->size() != rank) return std::nullopt;
    return d;
  };
  const auto base = dilation("lhs_dilation");
  const auto window = dilation("rhs_dilation");
  if (!base || !window) return std::nullopt;
  Window w;
  for (size_t s = 0; s < rank; ++s) {
    if ((*pads)[s].size() != 2) return std::nullopt;
    WindowDimension d;
    d.size = kernel_spatial_sizes[s];
    d.stride = (*strides)[s];
    d.padding_low = (*pads)[s][0];
    d.padding_high = (*pads)[s][1];
    d.base_dilation = (*base)[s];
    d.window_dilation = (*window)[s];
    w.dimensions.push_back(d);
  }
  return w;
}

}  // namespace memplan::ir
