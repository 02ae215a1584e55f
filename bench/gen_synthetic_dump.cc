// Writes a synthetic XLA buffer-assignment dump (older layout: the
// HloLiveRange appended) of a requested size, for benchmarks.
//
//   gen_synthetic_dump OUT.txt [--size-mb=100] [--seed=4]
//
// The program is a stack of identical decoder layers shaped like seed 004
// (samples/xla/seed004_gpu_decode-buffer-assignment.txt): rms-norm fusion,
// cuBLAS gemm custom-calls returning (result, workspace) tuples with
// get-tuple-elements, a convert fusion and a residual add, three weight
// parameters per layer, an embedding gather at the start and logits, a
// donated KV cache updated in place and an output tuple at the end. Layers
// are added until the file holds at least --size-mb megabytes (10^6 bytes).
//
// Everything is self-consistent, as a real dump is:
//  - value ids are unique; every value lies inside its allocation;
//    values sharing bytes of the preallocated-temp allocation never have
//    overlapping live ranges (a small slot allocator places them);
//  - "Total bytes used" is the sum of the allocation sizes;
//  - InstructionSequence numbers every instruction 0..N-1, "max N";
//    every live range lies within [0, N] and starts at its definition and
//    ends at its last use (parameters, constants and outputs live to N);
//  - "Live ranges at P (peak):" lists exactly the values live at the first
//    step P where the most bytes are live (newer style, "name{index}: B bytes
//    (cumulative: C bytes)"), so `memplan analyze` reproduces it.
// The output is a deterministic function of --seed and --size-mb.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

// splitmix64: small, fast, and the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

// Buffered output that either writes to a FILE or only counts bytes.
class Sink {
 public:
  explicit Sink(std::FILE* file) : file_(file) { buffer_.reserve(kFlushAt + 4096); }
  ~Sink() { Flush(); }

  Sink& operator<<(std::string_view s) {
    buffer_.append(s.data(), s.size());
    if (buffer_.size() >= kFlushAt) Flush();
    return *this;
  }
  Sink& operator<<(char c) {
    buffer_.push_back(c);
    return *this;
  }
  Sink& operator<<(int64_t v) {
    char digits[24];
    const auto result = std::to_chars(digits, digits + sizeof(digits), v);
    return *this << std::string_view(digits, static_cast<size_t>(result.ptr - digits));
  }
  Sink& operator<<(int v) { return *this << static_cast<int64_t>(v); }

  void Flush() {
    if (file_ != nullptr && !buffer_.empty() &&
        std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      std::perror("gen_synthetic_dump: write");
      std::exit(1);
    }
    written_ += static_cast<int64_t>(buffer_.size());
    buffer_.clear();
  }
  int64_t written() const { return written_ + static_cast<int64_t>(buffer_.size()); }

 private:
  static constexpr size_t kFlushAt = 1 << 20;
  std::FILE* file_;
  std::string buffer_;
  int64_t written_ = 0;
};

std::string Str(int64_t v) { return std::to_string(v); }

constexpr int64_t kBatch = 32;
constexpr int64_t kHidden = 1024;
constexpr int64_t kVocab = 151936;
constexpr int64_t kWorkspaceBytes = 4194304;
constexpr const char* kTorchOps = "/usr/local/lib/python3.10/site-packages/torch/_ops.py";
constexpr const char* kModel = "/workspace/model/modeling_qwen2.py";
constexpr const char* kBridge =
    "/usr/local/lib/python3.10/site-packages/torch_xla/_dynamo/dynamo_bridge.py";

// One HLO instruction: what "from instruction:" prints, and its step.
struct Instruction {
  std::string name;
  std::string text;   // the HLO text after "%name = "
  int64_t step = -1;  // -1: not in the entry sequence (fused computations)
};

struct Value {
  int64_t id = 0;
  int instruction = 0;     // index into Model::instructions
  int tuple_index = -2;    // -2: not a tuple output; -1: the tuple itself {}; k: {k}
  int64_t size = 0;
  std::string shape;       // with layout
  int allocation = -1;
  int64_t offset = 0;
  int64_t start = -1;      // live range, inclusive; -1: none
  int64_t end = -1;
  std::vector<std::string> positions;  // lines after "  "
  std::vector<std::string> uses;       // lines after "  "
};

struct Allocation {
  int64_t size = 0;
  std::string attributes;  // ", parameter 3, shape |..| at ShapeIndex {}" etc.
  std::vector<int> values;
};

struct Model {
  std::vector<Instruction> instructions;
  std::vector<Value> values;
  std::vector<Allocation> allocations;
  int64_t max_time = 0;
  int64_t peak_step = 0;
  std::vector<int> peak_values;  // largest first
};

std::string ArrayShape(std::string_view dtype, std::vector<int64_t> dims, bool layout = true) {
  std::string s(dtype);
  s += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ',';
    s += Str(dims[i]);
  }
  s += ']';
  if (layout) {
    s += '{';
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i > 0) s += ',';
      s += Str(static_cast<int64_t>(dims.size() - 1 - i));
    }
    s += '}';
  }
  return s;
}

int64_t Bytes(std::string_view dtype, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const int64_t width = dtype == "f32" || dtype == "s32" ? 4 : dtype == "s8" ? 1 : 2;
  return n * width;
}

std::string Metadata(std::string_view op_type, std::string_view op_name, std::string_view file,
                     int64_t line, std::string_view extra = "") {
  std::string s = "metadata={op_type=\"";
  s += op_type;
  s += "\" op_name=\"";
  s += op_name;
  s += "\" source_file=\"";
  s += file;
  s += "\" source_line=";
  s += Str(line);
  if (!extra.empty()) {
    s += ' ';
    s += extra;
  }
  s += '}';
  return s;
}

std::string GemmBackendConfig(int64_t lhs_stride, int64_t rhs_stride) {
  return "backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[],"
         "\"gemm_backend_config\":{\"alpha_real\":1,\"alpha_imag\":0,\"beta\":0,"
         "\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],"
         "\"rhs_contracting_dimensions\":[\"1\"],\"lhs_batch_dimensions\":[],"
         "\"rhs_batch_dimensions\":[]},\"precision_config\":{\"operand_precision\":"
         "[\"DEFAULT\",\"DEFAULT\"],\"algorithm\":\"ALG_UNSET\"},\"epilogue\":\"DEFAULT\","
         "\"damax_output\":false,\"lhs_stride\":\"" +
         Str(lhs_stride) + "\",\"rhs_stride\":\"" + Str(rhs_stride) +
         "\",\"grad_x\":false,\"grad_y\":false},\"force_earliest_schedule\":false}";
}

class Builder {
 public:
  Builder(uint64_t seed, int64_t layers) : seed_(seed), layers_(layers) {}

  Model Build() {
    // Entry parameters first, as XLA sequences them.
    const int embedding = AddParameter(0, "bf16", {kVocab, kHidden});
    const int kv_cache = AddParameter(1, "bf16", {2, 4233, 16, 8, 128});
    const int ids = AddParameter(2, "s32", {kBatch});
    std::vector<int> norm_w, in_w, out_w;
    std::vector<int64_t> widths;
    for (int64_t l = 0; l < layers_; ++l) {
      // The MLP width of layer l varies (1..8 x 768) so that one layer is the
      // peak; drawn from (seed, l) alone so that a prefix of layers does not
      // depend on how many follow.
      Rng layer_rng(seed_ * 0x100000001b3ULL + static_cast<uint64_t>(l));
      widths.push_back(768 * layer_rng.Uniform(1, 8));
      norm_w.push_back(AddParameter(3 + 3 * l, "bf16", {kHidden}));
      in_w.push_back(AddParameter(4 + 3 * l, "bf16", {widths.back(), kHidden}));
      out_w.push_back(AddParameter(5 + 3 * l, "bf16", {kHidden, widths.back() / 2}));
    }
    const int64_t constants = 2 + layers_ / 1000;
    for (int64_t c = 0; c < constants; ++c) AddConstant(c);
    AddThreadLocalReduction();

    // loop_gather_fusion: the embedding lookup, the first residual.
    const std::string h_shape = ArrayShape("f32", {kBatch, kHidden});
    int hidden = AddArrayValue(
        "loop_gather_fusion",
        h_shape + " fusion(" + Operand(embedding) + ", " + Operand(ids) +
            "), kind=kLoop, calls=%fused_gather, " +
            Metadata("xla__select", "model.embed_tokens/xla__select", kModel, 1011),
        "f32", {kBatch, kHidden});
    Use(embedding, "loop_gather_fusion, operand 0");
    Use(ids, "loop_gather_fusion, operand 1");

    for (int64_t l = 0; l < layers_; ++l) {
      hidden = AddLayer(l, hidden, widths[l], norm_w[l], in_w[l], out_w[l]);
    }

    // Logits, a copy of the last hidden state, the in-place KV update, the
    // output tuple.
    const int logits = AddArrayValue(
        "gemm_fusion_dot.logits",
        ArrayShape("bf16", {kBatch, kVocab}) + " fusion(" + Operand(hidden) + ", " +
            Operand(embedding) + "), kind=kCustom, calls=%gemm_fusion_dot.logits_computation, " +
            Metadata("aten__mm", "lm_head/aten__mm", kTorchOps, 756),
        "bf16", {kBatch, kVocab});
    Use(hidden, "gemm_fusion_dot.logits, operand 0");
    Use(embedding, "gemm_fusion_dot.logits, operand 1");
    const int final_hidden = AddArrayValue(
        "copy.final",
        ArrayShape("bf16", {kBatch, kHidden}) + " convert(" + Operand(hidden) + "), " +
            Metadata("xla__cast", "model.norm/xla__cast", kTorchOps, 756),
        "bf16", {kBatch, kHidden});
    Use(hidden, "copy.final, operand 0");
    const int kv_update = AddArrayValue(
        "dynamic-update-slice.kv",
        values_[kv_cache].shape + " dynamic-update-slice(" + Operand(kv_cache) + ", " +
            Operand(logits) + "), " +
            Metadata("xla__update_slice", "kv_cache/xla__update_slice", kTorchOps, 756),
        "bf16", {2, 4233, 16, 8, 128});
    Use(kv_cache, "dynamic-update-slice.kv, operand 0");
    Use(logits, "dynamic-update-slice.kv, operand 1");
    const std::string out_shape_no_layout =
        "(" + ArrayShape("bf16", {kBatch, kVocab}, false) + ", " +
        ArrayShape("bf16", {kBatch, kHidden}, false) + ", " +
        ArrayShape("bf16", {2, 4233, 16, 8, 128}, false) + ")";
    const std::string out_shape = "(" + values_[logits].shape + ", " +
                                  values_[final_hidden].shape + ", " +
                                  values_[kv_update].shape + ")";
    const int tuple_instr =
        AddInstruction("tuple.out", out_shape + " tuple(" + Operand(logits) + ", " +
                                        Operand(final_hidden) + ", " + Operand(kv_update) + ")");
    const int tuple = AddValue(tuple_instr, -1, 8 * 3, out_shape);
    int k = 0;
    for (int v : {logits, final_hidden, kv_update}) {
      values_[v].positions.push_back("tuple.out {" + Str(k) + "}");
      Use(v, "tuple.out, operand " + Str(k));
      ++k;
    }

    const int64_t max_time = static_cast<int64_t>(sequence_length_);
    // Live ranges: definition to last use (a value nothing reads, such as a
    // gemm workspace, dies where it is born); parameters, constants and
    // outputs live to the end, except the donated KV cache, which dies where
    // its in-place update is born.
    for (Value& v : values_) {
      if (v.start >= 0 && v.end < 0) v.end = v.start;
    }
    for (int v : parameters_) values_[v].end = max_time;
    for (int v : constants_) values_[v].end = max_time;
    for (int v : {logits, final_hidden, kv_update, tuple}) values_[v].end = max_time;
    values_[kv_cache].end = values_[kv_update].start;

    // Allocations: parameters (the KV cache donated: it also holds its
    // in-place update), outputs, constants, thread-locals, then one
    // preallocated-temp for everything else.
    for (int p : parameters_) {
      const Value& v = values_[p];
      std::string attributes = ", parameter " + Str(parameter_numbers_[v.id]) + ", shape |" +
                               ShapeWithoutLayout(v.shape) + "| at ShapeIndex {}";
      if (p == kv_cache) attributes += ", maybe-live-out";
      const int a = NewAllocation(v.size, attributes);
      Place(p, a, 0);
      if (p == kv_cache) Place(kv_update, a, 0);
    }
    Place(logits, NewAllocation(values_[logits].size, ", maybe-live-out"), 0);
    Place(final_hidden, NewAllocation(values_[final_hidden].size, ", maybe-live-out"), 0);
    Place(tuple, NewAllocation(values_[tuple].size,
                               ", output shape is |" + out_shape_no_layout + "|, maybe-live-out"),
          0);
    for (int c : constants_) Place(c, NewAllocation(values_[c].size, ", constant"), 0);
    for (int t : thread_locals_) Place(t, NewAllocation(values_[t].size, ", thread-local"), 0);
    PlaceTemporaries();

    Model model;
    model.max_time = max_time;
    model.instructions = std::move(instructions_);
    model.values = std::move(values_);
    model.allocations = std::move(allocations_);
    for (Allocation& a : model.allocations) {
      std::sort(a.values.begin(), a.values.end(), [&](int x, int y) {
        return model.values[x].id < model.values[y].id;
      });
    }
    FindPeak(model);
    return model;
  }

 private:
  int AddInstruction(std::string name, std::string text, bool in_sequence = true) {
    Instruction instruction;
    instruction.name = std::move(name);
    instruction.text = std::move(text);
    if (in_sequence) instruction.step = sequence_length_++;
    instructions_.push_back(std::move(instruction));
    return static_cast<int>(instructions_.size() - 1);
  }

  int AddValue(int instruction, int tuple_index, int64_t size, std::string shape) {
    Value v;
    // Ids grow with gaps, as HloValue ids do (some ids belong to values
    // buffer assignment does not list).
    next_id_ += 1 + static_cast<int64_t>(id_rng_.Next() % 4 == 0);
    v.id = next_id_;
    v.instruction = instruction;
    v.tuple_index = tuple_index;
    v.size = size;
    v.shape = std::move(shape);
    const Instruction& defining = instructions_[instruction];
    v.positions.push_back(tuple_index == -2   ? defining.name
                          : tuple_index == -1 ? defining.name + " {}"
                                              : defining.name + " {" + Str(tuple_index) + "}");
    if (defining.step >= 0) v.start = defining.step;
    values_.push_back(std::move(v));
    return static_cast<int>(values_.size() - 1);
  }

  int AddArrayValue(std::string name, std::string text, std::string_view dtype,
                    std::vector<int64_t> dims) {
    const int instruction = AddInstruction(std::move(name), std::move(text));
    return AddValue(instruction, -2, Bytes(dtype, dims), ArrayShape(dtype, dims));
  }

  // Records a use by the most recently added instruction: the live range
  // reaches its step.
  void Use(int value, std::string use) {
    Value& v = values_[value];
    v.uses.push_back(std::move(use));
    const int64_t step = instructions_.back().step;
    if (v.start >= 0 && step >= 0) v.end = std::max(v.end, step);
  }

  std::string Operand(int value) const {
    const Value& v = values_[value];
    return v.shape + " %" + instructions_[v.instruction].name;
  }

  static std::string ShapeWithoutLayout(const std::string& shape) {
    const size_t brace = shape.find('{');
    return brace == std::string::npos ? shape : shape.substr(0, brace);
  }

  int AddParameter(int64_t number, std::string_view dtype, std::vector<int64_t> dims) {
    const std::string name = "p" + Str(number) + "." + Str(hlo_id_ += 2) + ".0";
    const int instruction = AddInstruction(
        name, ArrayShape(dtype, dims) + " parameter(" + Str(number) + "), " +
                  Metadata("xla__device_data", "xla__device_data", kBridge, 355));
    const int v = AddValue(instruction, -2, Bytes(dtype, dims), ArrayShape(dtype, dims));
    parameters_.push_back(v);
    parameter_numbers_.resize(static_cast<size_t>(values_[v].id) + 1);
    parameter_numbers_[values_[v].id] = number;
    return v;
  }

  void AddConstant(int64_t c) {
    const std::string name = "constant." + Str(100 + c);
    const int instruction = AddInstruction(name, "s32[] constant(" + Str(c) + ")");
    constants_.push_back(AddValue(instruction, -2, 4, "s32[]"));
  }

  // The scalar add of a reduction: values in a fused computation, with no
  // live range in the entry schedule (as x.65, y.66, add.127 in seed 004).
  void AddThreadLocalReduction() {
    const int x = AddValue(AddInstruction("x.65", "f32[] parameter(0)", false), -2, 4, "f32[]");
    const int y = AddValue(AddInstruction("y.66", "f32[] parameter(1)", false), -2, 4, "f32[]");
    const int add = AddValue(
        AddInstruction("add.127", "f32[] add(f32[] %x.65, f32[] %y.66)", false), -2, 4, "f32[]");
    values_[x].uses.push_back("add.127, operand 0");
    values_[y].uses.push_back("add.127, operand 1");
    thread_locals_ = {x, y, add};
  }

  // A cuBLAS gemm custom-call returning (result, workspace): three values,
  // the tuple itself, the result {0} and the workspace {1}. Returns {0}.
  int AddGemm(const std::string& name, const std::string& gte, int lhs, int weight,
              int64_t n, int64_t l) {
    const std::string result = ArrayShape("bf16", {kBatch, n});
    const std::string workspace = ArrayShape("s8", {kWorkspaceBytes});
    const std::string tuple_shape = "(" + result + ", " + workspace + ")";
    const int instruction = AddInstruction(
        name, tuple_shape + " custom-call(" + Operand(lhs) + ", " + Operand(weight) +
                  "), custom_call_target=\"__cublas$gemm\", " +
                  Metadata("aten__mm", "model.layers." + Str(l) + ".mlp/aten__mm", kTorchOps,
                           756) +
                  ", " + GemmBackendConfig(kBatch * 1024, n * 1024));
    Use(lhs, name + ", operand 0");
    Use(weight, name + ", operand 1");
    const int whole = AddValue(instruction, -1, 16, tuple_shape);
    const int out = AddValue(instruction, 0, Bytes("bf16", {kBatch, n}), result);
    const int ws = AddValue(instruction, 1, kWorkspaceBytes, workspace);
    temporaries_.insert(temporaries_.end(), {whole, out, ws});
    // get-tuple-element: defines no value; {0} gains a position.
    AddInstruction(gte, result + " get-tuple-element(" + tuple_shape + " %" + name +
                            "), index=0");
    Use(whole, gte + ", operand 0 {}");
    values_[out].positions.push_back(gte);
    return out;
  }

  int AddLayer(int64_t l, int hidden, int64_t width, int norm_w, int in_w, int out_w) {
    const std::string layer = "model.layers." + Str(l);
    const int64_t line = 200 + l % 97;
    const std::string norm_name = "fusion." + Str(l);
    const int normed = AddArrayValue(
        norm_name,
        ArrayShape("bf16", {kBatch, kHidden}) + " fusion(" + Operand(hidden) + ", " +
            Operand(norm_w) + "), kind=kCustom, calls=%fused_rms_norm." + Str(l) + ", " +
            Metadata("aten__rms_norm", layer + ".input_layernorm/aten__rms_norm", kModel, line) +
            ", backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[],"
            "\"fusion_backend_config\":{\"kind\":\"__triton\"},\"force_earliest_schedule\":false}",
        "bf16", {kBatch, kHidden});
    Use(hidden, norm_name + ", operand 0");
    Use(norm_w, norm_name + ", operand 1");
    temporaries_.push_back(normed);

    const std::string gemm0 = "custom-call." + Str(2 * l) + ".0";
    const std::string gte0 = "get-tuple-element." + Str(2 * l) + ".0";
    const int up = AddGemm(gemm0, gte0, normed, in_w, width, l);

    const std::string convert_name = "loop_convert_fusion." + Str(l);
    const int converted = AddArrayValue(
        convert_name,
        ArrayShape("bf16", {kBatch, width / 2}) + " fusion(" +
            ArrayShape("bf16", {kBatch, width}) + " %" + gte0 + "), kind=kLoop, calls=%fused_convert." +
            Str(l) + ", " +
            Metadata("xla__cast", "xla__cast", kTorchOps, 756,
                     "deduplicated_name=\"loop_convert_fusion\""),
        "bf16", {kBatch, width / 2});
    Use(up, convert_name + ", operand 0");
    temporaries_.push_back(converted);

    const std::string gemm1 = "custom-call." + Str(2 * l + 1) + ".0";
    const std::string gte1 = "get-tuple-element." + Str(2 * l + 1) + ".0";
    const int down = AddGemm(gemm1, gte1, converted, out_w, kHidden, l);

    const std::string add_name = "loop_add_fusion." + Str(l);
    const int next = AddArrayValue(
        add_name,
        ArrayShape("f32", {kBatch, kHidden}) + " fusion(" + ArrayShape("bf16", {kBatch, kHidden}) +
            " %" + gte1 + ", " + Operand(hidden) + "), kind=kLoop, calls=%fused_add." + Str(l) +
            ", " + Metadata("aten__add", layer + "/aten__add", kModel, line + 3),
        "f32", {kBatch, kHidden});
    Use(down, add_name + ", operand 0");
    Use(hidden, add_name + ", operand 1");
    temporaries_.push_back(next);
    if (l == 0) temporaries_.push_back(hidden);  // loop_gather_fusion
    return next;
  }

  int NewAllocation(int64_t size, std::string attributes) {
    Allocation a;
    a.size = size;
    a.attributes = std::move(attributes);
    allocations_.push_back(std::move(a));
    return static_cast<int>(allocations_.size() - 1);
  }

  void Place(int value, int allocation, int64_t offset) {
    values_[value].allocation = allocation;
    values_[value].offset = offset;
    allocations_[allocation].values.push_back(value);
  }

  // Packs the temporaries into one preallocated-temp allocation: slots of
  // one (64-byte aligned) size are reused by a value whose live range
  // starts after the slot's last occupant ended.
  void PlaceTemporaries() {
    std::sort(temporaries_.begin(), temporaries_.end(), [&](int a, int b) {
      return std::make_pair(values_[a].start, values_[a].id) <
             std::make_pair(values_[b].start, values_[b].id);
    });
    using Slot = std::pair<int64_t, int64_t>;  // (busy until step, offset)
    std::vector<std::pair<int64_t, std::priority_queue<Slot, std::vector<Slot>, std::greater<>>>>
        classes;
    int64_t top = 0;
    const int allocation = NewAllocation(0, ", preallocated-temp");
    for (int t : temporaries_) {
      Value& v = values_[t];
      const int64_t slot_size = (v.size + 63) / 64 * 64;
      auto it = std::find_if(classes.begin(), classes.end(),
                             [&](const auto& c) { return c.first == slot_size; });
      if (it == classes.end()) {
        classes.emplace_back(slot_size, decltype(it->second)());
        it = classes.end() - 1;
      }
      auto& free = it->second;
      int64_t offset;
      if (!free.empty() && free.top().first < v.start) {
        offset = free.top().second;
        free.pop();
      } else {
        offset = top;
        top += slot_size;
      }
      free.push({v.end, offset});
      Place(t, allocation, offset);
    }
    allocations_[allocation].size = top;
  }

  static void FindPeak(Model& model) {
    std::vector<int64_t> delta(static_cast<size_t>(model.max_time) + 2, 0);
    for (const Value& v : model.values) {
      if (v.start < 0) continue;
      delta[v.start] += v.size;
      delta[v.end + 1] -= v.size;
    }
    int64_t live = 0;
    int64_t best = -1;
    for (int64_t step = 0; step <= model.max_time; ++step) {
      live += delta[step];
      if (live > best) {
        best = live;
        model.peak_step = step;
      }
    }
    for (int i = 0; i < static_cast<int>(model.values.size()); ++i) {
      const Value& v = model.values[i];
      if (v.start >= 0 && v.start <= model.peak_step && model.peak_step <= v.end) {
        model.peak_values.push_back(i);
      }
    }
    std::sort(model.peak_values.begin(), model.peak_values.end(), [&](int a, int b) {
      const Value& x = model.values[a];
      const Value& y = model.values[b];
      return x.size != y.size ? x.size > y.size : x.id < y.id;
    });
  }

  uint64_t seed_;
  int64_t layers_;
  Rng id_rng_{seed_ ^ 0x5eed};
  int64_t next_id_ = 17;
  int64_t hlo_id_ = 0;
  int64_t sequence_length_ = 0;
  std::vector<Instruction> instructions_;
  std::vector<Value> values_;
  std::vector<Allocation> allocations_;
  std::vector<int> parameters_, constants_, thread_locals_, temporaries_;
  std::vector<int64_t> parameter_numbers_;  // by value id
};

// "custom-call.3.0{1}" as BufferLiveRange and the peak list name values.
void WriteIndexedName(Sink& out, const Model& m, const Value& v) {
  out << m.instructions[v.instruction].name;
  if (v.tuple_index >= 0) {
    out << '{' << v.tuple_index << '}';
  } else {
    out << "{}";
  }
}

// "<581 custom-call.19.0{1} @0>"
void WriteValueRef(Sink& out, const Model& m, const Value& v) {
  out << '<' << v.id << ' ' << m.instructions[v.instruction].name;
  if (v.tuple_index == -1) out << "{}";
  if (v.tuple_index >= 0) out << '{' << v.tuple_index << '}';
  out << " @0>";
}

std::string HumanSize(int64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f%s", value, kUnits[unit]);
  return buffer;
}

void Write(const Model& m, Sink& out) {
  out << "BufferAssignment:\n";
  int64_t total = 0;
  for (size_t a = 0; a < m.allocations.size(); ++a) {
    const Allocation& allocation = m.allocations[a];
    total += allocation.size;
    out << "allocation " << static_cast<int64_t>(a) << ": size " << allocation.size
        << allocation.attributes << ":\n";
    for (int i : allocation.values) {
      const Value& v = m.values[i];
      out << " value: ";
      WriteValueRef(out, m, v);
      out << " (size=" << v.size << ",offset=" << v.offset << "): " << v.shape << '\n';
    }
  }
  out << "\nTotal bytes used: " << total << " (" << HumanSize(total) << ")\n\nUsed values:\n";
  std::vector<int> by_id(m.values.size());
  for (size_t i = 0; i < by_id.size(); ++i) by_id[i] = static_cast<int>(i);
  std::sort(by_id.begin(), by_id.end(),
            [&](int a, int b) { return m.values[a].id < m.values[b].id; });
  for (int i : by_id) {
    const Value& v = m.values[i];
    WriteValueRef(out, m, v);
    out << "\n positions:\n";
    for (const std::string& p : v.positions) out << "  " << p << '\n';
    out << " uses:\n";
    for (const std::string& u : v.uses) out << "  " << u << '\n';
    const Instruction& instruction = m.instructions[v.instruction];
    out << " from instruction: %" << instruction.name << " = " << instruction.text << '\n';
  }
  out << "\n\nHloLiveRange (max " << m.max_time << "):\n  InstructionSequence:\n";
  for (const Instruction& instruction : m.instructions) {
    if (instruction.step >= 0) out << "    " << instruction.step << ':' << instruction.name << '\n';
  }
  out << "  BufferLiveRange:\n";
  for (const Value& v : m.values) {  // definition order
    if (v.start < 0) continue;
    out << "    ";
    WriteIndexedName(out, m, v);
    out << ':' << v.start << '-' << v.end << '\n';
  }
  out << "  Live ranges at " << m.peak_step << " (peak):\n";
  int64_t cumulative = 0;
  for (int i : m.peak_values) {
    const Value& v = m.values[i];
    cumulative += v.size;
    out << "    ";
    WriteIndexedName(out, m, v);
    out << ": " << v.size << " bytes (cumulative: " << cumulative << " bytes)\n";
  }
}

int64_t SizeFor(uint64_t seed, int64_t layers) {
  Sink counter(nullptr);
  Write(Builder(seed, layers).Build(), counter);
  return counter.written();
}

bool ParseFlag(std::string_view arg, std::string_view name, int64_t* out) {
  if (!arg.starts_with(name)) return false;
  arg.remove_prefix(name.size());
  const auto result = std::from_chars(arg.data(), arg.data() + arg.size(), *out);
  if (result.ec != std::errc() || result.ptr != arg.data() + arg.size() || *out < 0) {
    std::fprintf(stderr, "gen_synthetic_dump: bad value in '%.*s'\n",
                 static_cast<int>(name.size() + arg.size()), name.data());
    std::exit(2);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  int64_t size_mb = 100;
  int64_t seed = 4;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (ParseFlag(arg, "--size-mb=", &size_mb) || ParseFlag(arg, "--seed=", &seed)) continue;
    if (arg.starts_with("-") || path != nullptr) {
      std::fprintf(stderr, "usage: %s OUT.txt [--size-mb=100] [--seed=4]\n", argv[0]);
      return 2;
    }
    path = argv[i];
  }
  if (path == nullptr) {
    std::fprintf(stderr, "usage: %s OUT.txt [--size-mb=100] [--seed=4]\n", argv[0]);
    return 2;
  }
  const int64_t target = size_mb * 1000 * 1000;

  // Layers for the target size: measure two small programs, extrapolate,
  // then grow until the target is met.
  const uint64_t s = static_cast<uint64_t>(seed);
  const int64_t base = SizeFor(s, 16);
  const int64_t per_layer = std::max<int64_t>(1, (SizeFor(s, 80) - base) / 64);
  int64_t layers = std::max<int64_t>(1, 16 + (target - base + per_layer - 1) / per_layer);
  // Later layers print longer numbers: correct the estimate proportionally,
  // then take the fewest layers that reach the target.
  for (int round = 0; round < 4; ++round) {
    const int64_t size = SizeFor(s, layers);
    const int64_t next = std::max<int64_t>(
        1, static_cast<int64_t>(static_cast<double>(layers) * static_cast<double>(target) /
                                static_cast<double>(size)));
    if (next == layers) break;
    layers = next;
  }
  while (layers > 1 && SizeFor(s, layers - 1) >= target) --layers;
  while (SizeFor(s, layers) < target) ++layers;

  const Model model = Builder(s, layers).Build();
  std::FILE* file = std::fopen(path, "wb");
  if (file == nullptr) {
    std::perror(path);
    return 1;
  }
  int64_t written = 0;
  {
    Sink out(file);
    Write(model, out);
    out.Flush();
    written = out.written();
  }
  if (std::fclose(file) != 0) {
    std::perror(path);
    return 1;
  }
  std::fprintf(stderr,
               "gen_synthetic_dump: wrote %s: %lld bytes, %lld layers, %zu values, "
               "%zu allocations, %lld steps, peak at step %lld\n",
               path, static_cast<long long>(written), static_cast<long long>(layers),
               model.values.size(), model.allocations.size(),
               static_cast<long long>(model.max_time), static_cast<long long>(model.peak_step));
  return 0;
}
