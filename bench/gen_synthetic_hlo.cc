// Writes a synthetic HLO module text (as XLA's --xla_dump_hlo_as_text
// prints an optimized, SPMD-partitioned GPU module) of a requested size, for
// the HLO text parser's benchmark.
//
//   gen_synthetic_hlo OUT.txt [--size-mb=100] [--seed=7]
//
// The module stacks decoder layers until the file holds at least --size-mb
// megabytes (10^6 bytes). Each layer has its weights as entry parameters
// (with shardings and metadata), fused computations for an RMS norm, a
// softmax and a GELU (reduce with to_apply, broadcasts, converts,
// elementwise ops, each with op_name metadata and stack frame ids or
// source_file/source_line), cuBLAS gemm custom-calls returning (result,
// workspace) tuples with their get-tuple-elements and long JSON
// backend_configs, dots with batch and contracting dimensions, collectives
// (all-gather, all-reduce and reduce-scatter with explicit and iota replica
// groups and channel ids, collective-permute with source-target pairs),
// dynamic slices and updates, TPU-style tiled layouts in memory space 1
// with copy-start/copy-done, and every few layers a while loop with its
// condition and body, a gather, a scatter and a convolution. The header has
// entry_computation_layout, input_output_alias and the stack-frame tables.
// Names are unique, operands defined before use, parameters numbered
// 0..n-1: memplan parses it with no warning. Same arguments, same bytes.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
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

// A string builder with << for text and integers.
class Text {
 public:
  Text& operator<<(std::string_view s) {
    s_.append(s.data(), s.size());
    return *this;
  }
  Text& operator<<(char c) {
    s_.push_back(c);
    return *this;
  }
  Text& operator<<(int64_t v) {
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof(digits), v);
    s_.append(digits, static_cast<size_t>(r.ptr - digits));
    return *this;
  }
  Text& operator<<(int v) { return *this << static_cast<int64_t>(v); }
  const std::string& str() const { return s_; }
  size_t size() const { return s_.size(); }

 private:
  std::string s_;
};

constexpr int64_t kBatch = 8;
constexpr int64_t kSeq = 2048;
constexpr int64_t kHidden = 4096;
constexpr int64_t kShard = 8;  // devices
constexpr int64_t kHeads = 32;
constexpr int64_t kFrames = 4000;  // stack frames in the tables
constexpr const char* kFiles[] = {
    "/workspace/model/modeling_llama.py", "/workspace/train/train_step.py",
    "/usr/local/lib/python3.11/site-packages/flax/linen/linear.py",
    "/usr/local/lib/python3.11/site-packages/jax/_src/nn/functions.py",
    "/usr/local/lib/python3.11/site-packages/optax/_src/transform.py"};
constexpr const char* kFunctions[] = {"__call__", "attention", "mlp", "rms_norm", "train_step",
                                      "loss_fn", "apply", "dot_general", "softmax", "gelu"};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  // The whole module, with layers added until it reaches `target` bytes.
  std::string Build(int64_t target) {
    while (static_cast<int64_t>(computations_.size() + entry_.size()) < target) AddLayer();
    Text out;
    WriteHeader(out);
    WriteStackFrames(out);
    out << computations_.str();
    WriteEntry(out);
    return out.str();
  }

  int64_t layers() const { return layer_; }
  int64_t parameters() const { return static_cast<int64_t>(parameter_shapes_.size()); }

 private:
  std::string Metadata(std::string_view op, std::string_view what) {
    Text m;
    m << "metadata={op_type=\"" << op << "\" op_name=\"jit(train_step)/jit(main)/transformer/layer_"
      << layer_ << "/" << what << "/" << op << "\"";
    if (rng_.Uniform(0, 3) == 0) {
      m << " source_file=\"" << kFiles[rng_.Uniform(0, 4)] << "\" source_line=" << rng_.Uniform(10, 900);
    } else {
      m << " stack_frame_id=" << rng_.Uniform(1, kFrames);
    }
    m << "}";
    return m.str();
  }

  std::string Name(std::string_view base) {
    Text n;
    n << base << "." << ++counter_;
    return n.str();
  }

  std::string Parameter(std::string_view shape, std::string_view what) {
    const std::string name = Name("param");
    entry_ << "  %" << name << " = " << shape << " parameter(" << parameters() << "), sharding={devices=[1,"
           << kShard << "]<=[" << kShard << "]}, metadata={op_name=\"params['layer_" << layer_ << "']['"
           << what << "']\"}\n";
    parameter_shapes_.emplace_back(shape);
    return name;
  }

  // A fused computation of `params` parameters of `shape` and a chain of
  // elementwise ops with a reduce; returns its name.
  std::string FusedComputation(std::string_view what, int params, std::string_view shape,
                               std::string_view scalar_type) {
    const std::string name = Name(std::string("fused_") + std::string(what));
    Text& c = computations_;
    c << "%" << name << " (";
    for (int i = 0; i < params; ++i) c << (i ? ", " : "") << "param_" << i << "." << counter_ << ": " << shape;
    c << ") -> " << shape << " {\n";
    std::vector<std::string> values;
    for (int i = 0; i < params; ++i) {
      Text p;
      p << "param_" << i << "." << counter_;
      values.push_back(p.str());
      c << "  %" << p.str() << " = " << shape << "{2,1,0} parameter(" << i << ")\n";
    }
    const std::string f32 = "f32[" + std::to_string(kBatch) + "," + std::to_string(kSeq / kShard) + "," +
                            std::to_string(kHidden) + "]{2,1,0}";
    const std::string red = "f32[" + std::to_string(kBatch) + "," + std::to_string(kSeq / kShard) + "]{1,0}";
    const std::string cv = Name("convert");
    c << "  %" << cv << " = " << f32 << " convert(%" << values[0] << "), " << Metadata("convert_element_type", what) << "\n";
    const std::string sq = Name("multiply");
    c << "  %" << sq << " = " << f32 << " multiply(%" << cv << ", %" << cv << "), " << Metadata("mul", what) << "\n";
    const std::string zero = Name("constant");
    c << "  %" << zero << " = f32[] constant(0)\n";
    const std::string sum = Name("reduce");
    c << "  %" << sum << " = " << red << " reduce(%" << sq << ", %" << zero << "), dimensions={2}, to_apply=%region_add, "
      << Metadata("reduce_sum", what) << "\n";
    const std::string bc = Name("broadcast");
    c << "  %" << bc << " = " << f32 << " broadcast(%" << sum << "), dimensions={0,1}, " << Metadata("broadcast_in_dim", what) << "\n";
    std::string last = bc;
    for (int i = 1; i < params; ++i) {
      const std::string cv2 = Name("convert");
      c << "  %" << cv2 << " = " << f32 << " convert(%" << values[i] << ")\n";
      const std::string op = Name(i % 2 ? "add" : "multiply");
      c << "  %" << op << " = " << f32 << (i % 2 ? " add(%" : " multiply(%") << last << ", %" << cv2 << "), "
        << Metadata(i % 2 ? "add" : "mul", what) << "\n";
      last = op;
    }
    const std::string rs = Name("rsqrt");
    c << "  %" << rs << " = " << f32 << " rsqrt(%" << last << "), " << Metadata("rsqrt", what) << "\n";
    c << "  ROOT %" << Name("convert") << " = " << shape << "{2,1,0} convert(%" << rs << ")" << ", " << Metadata("convert_element_type", what) << "\n";
    c << "}\n\n";
    (void)scalar_type;
    return name;
  }

  std::string GemmConfig() {
    Text b;
    b << "backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[],\"gemm_backend_config\":{"
      << "\"alpha_real\":1,\"alpha_imag\":0,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],"
      << "\"rhs_contracting_dimensions\":[\"1\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},"
      << "\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"],\"algorithm\":\"ALG_UNSET\"},"
      << "\"epilogue\":\"DEFAULT\",\"lhs_stride\":\"" << rng_.Uniform(1, 1 << 24) << "\",\"rhs_stride\":\""
      << rng_.Uniform(1, 1 << 24) << "\",\"grad_x\":false,\"grad_y\":false,\"damax_output\":false},"
      << "\"force_earliest_schedule\":false}";
    return b.str();
  }

  void AddLayer() {
    const std::string act = "bf16[" + std::to_string(kBatch) + "," + std::to_string(kSeq / kShard) + "," +
                            std::to_string(kHidden) + "]";
    const std::string act_l = act + "{2,1,0}";
    const std::string flat = "bf16[" + std::to_string(kBatch * kSeq / kShard) + "," + std::to_string(kHidden) + "]{1,0}";
    const std::string w = "bf16[" + std::to_string(kHidden) + "," + std::to_string(kHidden / kShard) + "]{1,0}";
    const std::string ln = "bf16[" + std::to_string(kHidden) + "]{0}";
    Text& e = entry_;
    if (x_.empty()) x_ = Parameter(act_l, "embeddings");

    const std::string w_qkv = Parameter(w, "w_qkv");
    const std::string w_out = Parameter(w, "w_out");
    const std::string w_up = Parameter(w, "w_up");
    const std::string ln1 = Parameter(ln, "ln1_scale");

    const std::string norm_c = FusedComputation("rms_norm", 2, act, "f32");
    const std::string norm = Name("rms_norm_fusion");
    e << "  %" << norm << " = " << act_l << " fusion(%" << x_ << ", %" << ln1 << "), kind=kLoop, calls=%" << norm_c
      << ", " << Metadata("rms_norm", "attention") << ", backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[],\"fusion_backend_config\":{\"kind\":\"__triton\"}}\n";
    const std::string bit = Name("bitcast");
    e << "  %" << bit << " = " << flat << " bitcast(%" << norm << ")\n";
    const std::string ag = Name("all-gather");
    e << "  %" << ag << " = bf16[" << kHidden << "," << kHidden << "]{1,0} all-gather(%" << w_qkv << "), channel_id="
      << ++channel_ << ", replica_groups=[1," << kShard << "]<=[" << kShard << "], dimensions={1}, use_global_device_ids=true, "
      << Metadata("all_gather", "attention") << "\n";
    const std::string gemm = Name("custom-call");
    e << "  %" << gemm << " = (" << flat << ", s8[4194304]{0}) custom-call(%" << bit << ", %" << ag
      << "), custom_call_target=\"__cublas$gemm\", " << Metadata("dot_general", "attention/qkv") << ", " << GemmConfig() << "\n";
    const std::string qkv = Name("get-tuple-element");
    e << "  %" << qkv << " = " << flat << " get-tuple-element(%" << gemm << "), index=0\n";
    const std::string q = Name("bitcast");
    const std::string heads = "bf16[" + std::to_string(kBatch) + "," + std::to_string(kHeads) + "," +
                              std::to_string(kSeq / kShard) + ",128]{3,2,1,0}";
    e << "  %" << q << " = " << heads << " bitcast(%" << qkv << ")\n";
    const std::string scores = Name("dot");
    const std::string sc_shape = "f32[" + std::to_string(kBatch) + "," + std::to_string(kHeads) + "," +
                                 std::to_string(kSeq / kShard) + "," + std::to_string(kSeq / kShard) + "]{3,2,1,0}";
    e << "  %" << scores << " = " << sc_shape << " dot(%" << q << ", %" << q
      << "), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}, "
      << "operand_precision={default,default}, " << Metadata("dot_general", "attention/scores") << "\n";
    const std::string soft_c = FusedComputation("softmax", 1, act, "f32");
    const std::string soft = Name("softmax_fusion");
    e << "  %" << soft << " = " << act_l << " fusion(%" << q << "), kind=kInput, calls=%" << soft_c << ", "
      << Metadata("softmax", "attention") << "\n";
    const std::string ds = Name("dynamic-slice");
    const std::string idx = Name("constant");
    e << "  %" << idx << " = s32[] constant(" << rng_.Uniform(0, 64) << ")\n";
    e << "  %" << ds << " = bf16[" << kBatch << ",64," << kHidden << "]{2,1,0} dynamic-slice(%" << soft << ", %" << idx
      << ", %" << idx << ", %" << idx << "), dynamic_slice_sizes={" << kBatch << ",64," << kHidden << "}, "
      << Metadata("dynamic_slice", "attention/cache") << "\n";
    const std::string dus = Name("dynamic-update-slice");
    e << "  %" << dus << " = " << act_l << " dynamic-update-slice(%" << soft << ", %" << ds << ", %" << idx << ", %"
      << idx << ", %" << idx << "), " << Metadata("dynamic_update_slice", "attention/cache") << "\n";
    const std::string gemm2 = Name("custom-call");
    e << "  %" << gemm2 << " = (" << flat << ", s8[4194304]{0}) custom-call(%" << dus << ", %" << w_out
      << "), custom_call_target=\"__cublas$gemm\", " << Metadata("dot_general", "attention/out") << ", " << GemmConfig() << "\n";
    const std::string out = Name("get-tuple-element");
    e << "  %" << out << " = " << flat << " get-tuple-element(%" << gemm2 << "), index=0\n";
    const std::string ar = Name("all-reduce");
    e << "  %" << ar << " = " << flat << " all-reduce(%" << out << "), channel_id=" << ++channel_
      << ", replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=%region_add, "
      << Metadata("psum", "attention") << "\n";
    const std::string res_c = FusedComputation("residual", 2, act, "f32");
    const std::string res = Name("add_fusion");
    e << "  %" << res << " = " << act_l << " fusion(%" << x_ << ", %" << ar << "), kind=kLoop, calls=%" << res_c
      << ", " << Metadata("add", "residual") << "\n";
    const std::string gelu_c = FusedComputation("gelu", 3, act, "f32");
    const std::string gelu = Name("gelu_fusion");
    e << "  %" << gelu << " = " << act_l << " fusion(%" << res << ", %" << norm << ", %" << dus << "), kind=kLoop, calls=%"
      << gelu_c << ", " << Metadata("gelu", "mlp") << "\n";
    const std::string gemm3 = Name("custom-call");
    e << "  %" << gemm3 << " = (" << flat << ", s8[4194304]{0}) custom-call(%" << gelu << ", %" << w_up
      << "), custom_call_target=\"__cublas$gemm\", " << Metadata("dot_general", "mlp/up") << ", " << GemmConfig() << "\n";
    const std::string up = Name("get-tuple-element");
    e << "  %" << up << " = " << flat << " get-tuple-element(%" << gemm3 << "), index=0\n";
    const std::string rs = Name("reduce-scatter");
    e << "  %" << rs << " = bf16[" << kBatch * kSeq / kShard / kShard << "," << kHidden << "]{1,0} reduce-scatter(%" << up
      << "), channel_id=" << ++channel_ << ", replica_groups=[2,4]<=[4,2]T(1,0), use_global_device_ids=true, dimensions={0}, to_apply=%region_add, "
      << Metadata("reduce_scatter", "mlp") << "\n";
    const std::string perm = Name("collective-permute");
    e << "  %" << perm << " = bf16[" << kBatch * kSeq / kShard / kShard << "," << kHidden << "]{1,0} collective-permute(%" << rs
      << "), channel_id=" << ++channel_ << ", source_target_pairs={{0,1},{1,2},{2,3},{3,4},{4,5},{5,6},{6,7},{7,0}}, "
      << Metadata("ppermute", "mlp") << "\n";
    const std::string cs = Name("copy-start");
    const std::string tiled = "bf16[" + std::to_string(kBatch * kSeq / kShard / kShard) + "," + std::to_string(kHidden) +
                              "]{1,0:T(8,128)(2,1)S(1)}";
    e << "  %" << cs << " = (" << tiled << ", bf16[" << kBatch * kSeq / kShard / kShard << "," << kHidden
      << "]{1,0:T(8,128)(2,1)}, u32[]{:S(2)}) copy-start(%" << perm << "), cross_program_prefetch_index=0\n";
    const std::string cd = Name("copy-done");
    e << "  %" << cd << " = " << tiled << " copy-done(%" << cs << ")\n";
    const std::string next = Name("bitcast");
    e << "  %" << next << " = " << act_l << " bitcast(%" << up << ")\n";
    outputs_.push_back(cd);
    x_ = next;
    if (layer_ % 8 == 7) AddLoopGatherScatterConv(act_l);
    ++layer_;
  }

  void AddLoopGatherScatterConv(const std::string& act_l) {
    Text& c = computations_;
    Text& e = entry_;
    const std::string state = "(s32[], " + act_l + ")";
    const std::string cond = Name("while_condition");
    c << "%" << cond << " (loop_state: " << state << ") -> pred[] {\n"
      << "  %loop_state." << counter_ << " = " << state << " parameter(0)\n"
      << "  %i." << counter_ << " = s32[] get-tuple-element(%loop_state." << counter_ << "), index=0\n"
      << "  %limit." << counter_ << " = s32[] constant(4)\n"
      << "  ROOT %lt." << counter_ << " = pred[] compare(%i." << counter_ << ", %limit." << counter_
      << "), direction=LT, " << Metadata("lt", "loop") << "\n}\n\n";
    const int64_t k = counter_;
    const std::string body = Name("while_body");
    c << "%" << body << " (loop_state: " << state << ") -> " << state << " {\n"
      << "  %body_state." << counter_ << " = " << state << " parameter(0)\n"
      << "  %j." << counter_ << " = s32[] get-tuple-element(%body_state." << counter_ << "), index=0\n"
      << "  %one." << counter_ << " = s32[] constant(1)\n"
      << "  %next." << counter_ << " = s32[] add(%j." << counter_ << ", %one." << counter_ << "), " << Metadata("add", "loop") << "\n"
      << "  %h." << counter_ << " = " << act_l << " get-tuple-element(%body_state." << counter_ << "), index=1\n"
      << "  %h2." << counter_ << " = " << act_l << " multiply(%h." << counter_ << ", %h." << counter_ << "), " << Metadata("mul", "loop") << "\n"
      << "  ROOT %tuple." << counter_ << " = " << state << " tuple(%next." << counter_ << ", %h2." << counter_ << ")\n}\n\n";
    (void)k;
    const std::string zero = Name("constant");
    e << "  %" << zero << " = s32[] constant(0)\n";
    const std::string init = Name("tuple");
    e << "  %" << init << " = " << state << " tuple(%" << zero << ", %" << x_ << ")\n";
    const std::string loop = Name("while");
    e << "  %" << loop << " = " << state << " while(%" << init << "), condition=%" << cond << ", body=%" << body
      << ", " << Metadata("while", "loop") << ", backend_config={\"known_trip_count\":{\"n\":\"4\"},\"known_init_step\":{\"init\":\"0\",\"step\":\"1\"}}\n";
    const std::string h = Name("get-tuple-element");
    e << "  %" << h << " = " << act_l << " get-tuple-element(%" << loop << "), index=1\n";

    const std::string ids = Name("iota");
    e << "  %" << ids << " = s32[64,1]{1,0} iota(), iota_dimension=0\n";
    const std::string g = Name("gather");
    e << "  %" << g << " = bf16[64," << kHidden << "]{1,0} gather(%" << h << ", %" << ids
      << "), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,"
      << kHidden << "}, indices_are_sorted=true, " << Metadata("gather", "embed") << "\n";
    const std::string s = Name("scatter");
    e << "  %" << s << " = bf16[1024," << kHidden << "]{1,0} scatter(%" << g << ", %" << ids << ", %" << g
      << "), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
      << "to_apply=%region_add, " << Metadata("scatter_add", "embed") << "\n";
    const std::string conv = Name("convolution");
    e << "  %" << conv << " = bf16[8,64,64,256]{3,2,1,0} convolution(%" << s << ", %" << g
      << "), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=1, "
      << Metadata("conv_general_dilated", "vision") << "\n";
    const std::string pad = Name("pad");
    e << "  %" << pad << " = bf16[8,66,66,256]{3,2,1,0} pad(%" << conv << ", %" << zero << "), padding=0_0x1_1x1_1x0_0, "
      << Metadata("pad", "vision") << "\n";
    const std::string sl = Name("slice");
    e << "  %" << sl << " = bf16[8,32,32,256]{3,2,1,0} slice(%" << pad << "), slice={[0:8], [0:64:2], [0:64:2], [0:256]}, "
      << Metadata("slice", "vision") << "\n";
    outputs_.push_back(sl);
  }

  void WriteHeader(Text& out) {
    out << "HloModule jit_train_step, is_scheduled=true, input_output_alias={ ";
    for (int64_t i = 0; i < 8 && i < parameters(); ++i) {
      out << (i ? ", " : "") << "{" << i << "}: (" << i << ", {}, may-alias)";
    }
    out << " }, entry_computation_layout={(";
    for (int64_t i = 0; i < parameters(); ++i) {
      if (i) out << ", ";
      if (i % 5 == 0 && i) out << "/*index=" << i << "*/";
      out << parameter_shapes_[i];
    }
    out << ")->(";
    for (size_t i = 0; i < outputs_shapes().size(); ++i) {
      if (i) out << ", ";
      if (i % 5 == 0 && i) out << "/*index=" << static_cast<int64_t>(i) << "*/";
      out << outputs_shapes()[i];
    }
    out << ")}, allow_spmd_sharding_propagation_to_parameters={false}, allow_spmd_sharding_propagation_to_output={false}, num_partitions="
        << kShard << "\n\n";
  }

  const std::vector<std::string>& outputs_shapes() {
    if (output_shapes_.empty()) {
      for (const std::string& name : outputs_) {
        output_shapes_.push_back(name.starts_with("copy-done")
                                     ? "bf16[" + std::to_string(kBatch * kSeq / kShard / kShard) + "," +
                                           std::to_string(kHidden) + "]{1,0:T(8,128)(2,1)S(1)}"
                                     : std::string("bf16[8,32,32,256]{3,2,1,0}"));
      }
    }
    return output_shapes_;
  }

  void WriteStackFrames(Text& out) {
    out << "FileNames\n";
    for (int64_t i = 0; i < 5; ++i) out << i + 1 << " \"" << kFiles[i] << "\"\n";
    out << "\nFunctionNames\n";
    for (int64_t i = 0; i < 10; ++i) out << i + 1 << " \"" << kFunctions[i] << "\"\n";
    out << "\nFileLocations\n";
    for (int64_t i = 0; i < 500; ++i) {
      const int64_t line = rng_.Uniform(1, 2000);
      out << i + 1 << " {file_name_id=" << rng_.Uniform(1, 5) << " function_name_id=" << rng_.Uniform(1, 10)
          << " line=" << line << " end_line=" << line << " column=" << rng_.Uniform(1, 80) << " end_column="
          << rng_.Uniform(1, 80) << "}\n";
    }
    out << "\nStackFrames\n";
    for (int64_t i = 0; i < kFrames; ++i) {
      // As XLA prints them: the parent one above its stored id.
      const int64_t parent = i == 0 ? 0 : rng_.Uniform(0, i - 1) + 1;
      out << i + 1 << " {file_location_id=" << rng_.Uniform(1, 500) << " parent_frame_id=" << parent + 1 << "}\n";
    }
    out << "\n\n%region_add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
        << "  ROOT %add = f32[] add(%x, %y)\n}\n\n";
  }

  void WriteEntry(Text& out) {
    out << "ENTRY %main.1 (";
    for (int64_t i = 0; i < parameters(); ++i) {
      out << (i ? ", " : "") << "Arg_" << i << ": " << parameter_shapes_[i];
    }
    out << ") -> (";
    for (size_t i = 0; i < outputs_shapes().size(); ++i) out << (i ? ", " : "") << outputs_shapes()[i];
    out << ") {\n" << entry_.str();
    out << "  ROOT %tuple.out = (";
    for (size_t i = 0; i < outputs_shapes().size(); ++i) {
      if (i) out << ", ";
      if (i % 5 == 0 && i) out << "/*index=" << static_cast<int64_t>(i) << "*/";
      out << outputs_shapes()[i];
    }
    out << ") tuple(";
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (i) out << ", ";
      if (i % 5 == 0 && i) out << "/*index=" << static_cast<int64_t>(i) << "*/";
      out << "%" << outputs_[i];
    }
    out << ")\n}\n\n";
  }

  Rng rng_;
  Text computations_;
  Text entry_;
  int64_t layer_ = 0;
  int64_t counter_ = 0;
  int64_t channel_ = 0;
  std::string x_;
  std::vector<std::string> parameter_shapes_;
  std::vector<std::string> outputs_;
  std::vector<std::string> output_shapes_;
};

bool ParseFlag(std::string_view arg, std::string_view name, int64_t* out) {
  if (!arg.starts_with(name)) return false;
  arg.remove_prefix(name.size());
  const auto result = std::from_chars(arg.data(), arg.data() + arg.size(), *out);
  if (result.ec != std::errc() || result.ptr != arg.data() + arg.size() || *out < 0) {
    std::fprintf(stderr, "gen_synthetic_hlo: bad value in '%.*s'\n",
                 static_cast<int>(name.size() + arg.size()), name.data());
    std::exit(2);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  int64_t size_mb = 100;
  int64_t seed = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (ParseFlag(arg, "--size-mb=", &size_mb) || ParseFlag(arg, "--seed=", &seed)) continue;
    if (arg.starts_with("-") || path != nullptr) {
      std::fprintf(stderr, "usage: %s OUT.txt [--size-mb=100] [--seed=7]\n", argv[0]);
      return 2;
    }
    path = argv[i];
  }
  if (path == nullptr) {
    std::fprintf(stderr, "usage: %s OUT.txt [--size-mb=100] [--seed=7]\n", argv[0]);
    return 2;
  }
  Generator generator(static_cast<uint64_t>(seed));
  const std::string text = generator.Build(size_mb * 1000 * 1000);
  std::FILE* file = std::fopen(path, "wb");
  if (file == nullptr || std::fwrite(text.data(), 1, text.size(), file) != text.size() ||
      std::fclose(file) != 0) {
    std::perror(path);
    return 1;
  }
  std::fprintf(stderr, "gen_synthetic_hlo: wrote %s: %zu bytes, %lld layers, %lld entry parameters\n", path,
               text.size(), static_cast<long long>(generator.layers()),
               static_cast<long long>(generator.parameters()));
  return 0;
}
