// Attributes of HLO instructions: which keys are typed and where each goes;
// metadata, called computations, dimension numbers and text-valued
// attributes (structured values are in hlo_text_values.cc).
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "ir/strings.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/hlo_text_internal.h"

namespace memplan::parsers::hlo_text {
namespace {

// Instruction attribute keys. kUntyped: attributes XLA prints that memplan
// keeps as text only (HloAttributes::unknown), without a warning.
// Fewer than 64 (InstructionNames::typed_keys_seen has a bit for each).
enum class Key : uint8_t {
  kUnknown,
  kUntyped,
  kMetadata,
  kDimensions,
  kKind,
  kBackendConfig,
  kCalls,
  kToApply,
  kBody,
  kCondition,
  kBranchComputations,
  kTrueComputation,
  kFalseComputation,
  kCalledComputations,
  kSelect,
  kScatter,
  kLhsContractingDims,
  kRhsContractingDims,
  kLhsBatchDims,
  kRhsBatchDims,
  kOffsetDims,
  kCollapsedSliceDims,
  kStartIndexMap,
  kOperandBatchingDims,
  kStartIndicesBatchingDims,
  kSliceSizes,
  kIndexVectorDim,
  kUpdateWindowDims,
  kInsertedWindowDims,
  kScatterDimsToOperandDims,
  kInputBatchingDims,
  kScatterIndicesBatchingDims,
  kIndex,
  kIotaDimension,
  kFrontendAttributes,
  kSharding,
  kDirection,
  kCustomCallTarget,
  kWindow,
  kDimLabels,
  kFeatureGroupCount,
  kBatchGroupCount,
  kSlice,
  kDynamicSliceSizes,
  kPadding,
  kReplicaGroups,
  kChannelId,
  kUseGlobalDeviceIds,
  kSourceTargetPairs,
  kControlPredecessors,
  kCount,
};
static_assert(static_cast<int>(Key::kCount) <= 64, "one bit per key");

Key LookupKey(std::string_view key) {
  static const auto* const kKeys = new absl::flat_hash_map<absl::string_view, Key>{
      {"metadata", Key::kMetadata},
      {"dimensions", Key::kDimensions},
      {"kind", Key::kKind},
      {"backend_config", Key::kBackendConfig},
      {"calls", Key::kCalls},
      {"to_apply", Key::kToApply},
      {"body", Key::kBody},
      {"condition", Key::kCondition},
      {"branch_computations", Key::kBranchComputations},
      {"true_computation", Key::kTrueComputation},
      {"false_computation", Key::kFalseComputation},
      {"called_computations", Key::kCalledComputations},
      {"select", Key::kSelect},
      {"scatter", Key::kScatter},
      {"lhs_contracting_dims", Key::kLhsContractingDims},
      {"rhs_contracting_dims", Key::kRhsContractingDims},
      {"lhs_batch_dims", Key::kLhsBatchDims},
      {"rhs_batch_dims", Key::kRhsBatchDims},
      {"offset_dims", Key::kOffsetDims},
      {"collapsed_slice_dims", Key::kCollapsedSliceDims},
      {"start_index_map", Key::kStartIndexMap},
      {"operand_batching_dims", Key::kOperandBatchingDims},
      {"start_indices_batching_dims", Key::kStartIndicesBatchingDims},
      {"slice_sizes", Key::kSliceSizes},
      {"index_vector_dim", Key::kIndexVectorDim},
      {"update_window_dims", Key::kUpdateWindowDims},
      {"inserted_window_dims", Key::kInsertedWindowDims},
      {"scatter_dims_to_operand_dims", Key::kScatterDimsToOperandDims},
      {"input_batching_dims", Key::kInputBatchingDims},
      {"scatter_indices_batching_dims", Key::kScatterIndicesBatchingDims},
      {"index", Key::kIndex},
      {"iota_dimension", Key::kIotaDimension},
      {"frontend_attributes", Key::kFrontendAttributes},
      {"sharding", Key::kSharding},
      {"direction", Key::kDirection},
      {"custom_call_target", Key::kCustomCallTarget},
      {"window", Key::kWindow},
      {"dim_labels", Key::kDimLabels},
      {"feature_group_count", Key::kFeatureGroupCount},
      {"batch_group_count", Key::kBatchGroupCount},
      {"slice", Key::kSlice},
      {"dynamic_slice_sizes", Key::kDynamicSliceSizes},
      {"padding", Key::kPadding},
      {"replica_groups", Key::kReplicaGroups},
      {"channel_id", Key::kChannelId},
      {"use_global_device_ids", Key::kUseGlobalDeviceIds},
      {"source_target_pairs", Key::kSourceTargetPairs},
      {"control-predecessors", Key::kControlPredecessors},
      // XLA's, kept as text.
      {"algorithm", Key::kUntyped},
      {"api_version", Key::kUntyped},
      {"async_execution_thread", Key::kUntyped},
      {"channel_type", Key::kUntyped},
      {"composite", Key::kUntyped},
      {"constrain_layout", Key::kUntyped},
      {"cross_program_prefetch_index", Key::kUntyped},
      {"custom_call_has_side_effect", Key::kUntyped},
      {"custom_call_schedule", Key::kUntyped},
      {"delta", Key::kUntyped},
      {"distribution", Key::kUntyped},
      {"domain", Key::kUntyped},
      {"dot_sparsity", Key::kUntyped},
      {"epsilon", Key::kUntyped},
      {"exponent_bits", Key::kUntyped},
      {"feature_index", Key::kUntyped},
      {"fft_length", Key::kUntyped},
      {"fft_type", Key::kUntyped},
      {"indices_are_sorted", Key::kUntyped},
      {"infeed_config", Key::kUntyped},
      {"is_composite", Key::kUntyped},
      {"is_cross_program_prefetch", Key::kUntyped},
      {"is_host_transfer", Key::kUntyped},
      {"is_stable", Key::kUntyped},
      {"k", Key::kUntyped},
      {"largest", Key::kUntyped},
      {"left_side", Key::kUntyped},
      {"lhs_ragged_dims", Key::kUntyped},
      {"lower", Key::kUntyped},
      {"mantissa_bits", Key::kUntyped},
      {"operand_layout_constraints", Key::kUntyped},
      {"operand_precision", Key::kUntyped},
      {"origin", Key::kUntyped},
      {"outfeed_config", Key::kUntyped},
      {"outfeed_shape", Key::kUntyped},
      {"output_to_operand_aliasing", Key::kUntyped},
      {"padding_type", Key::kUntyped},
      {"parameter_replication", Key::kUntyped},
      {"rhs_group_dims", Key::kUntyped},
      {"result_accuracy", Key::kUntyped},
      {"schedule", Key::kUntyped},
      {"sparsity", Key::kUntyped},
      {"statistics", Key::kUntyped},
      {"transpose_a", Key::kUntyped},
      {"type", Key::kUntyped},
      {"unique_indices", Key::kUntyped},
      {"unit_diagonal", Key::kUntyped},
  };
  auto it = kKeys->find(ToAbsl(key));
  return it == kKeys->end() ? Key::kUnknown : it->second;
}

// metadata={op_type="..." op_name="..." source_file="..." source_line=N
// stack_frame_id=N ...}: quoted values kept escaped, between the quotes.
bool ParseMetadata(Scanner& s, Warner& warner, ir::OpMetadata* metadata) {
  if (!s.Next('{')) return s.Fail("expected '{' starting metadata");
  while (true) {
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    const char* key_at = s.pos();
    const std::string_view key = s.ConsumeName();
    if (key.empty() || !s.Next('=')) return s.Fail(key_at, "expected key=value or '}' in metadata");
    s.Skip();
    std::string_view* text = nullptr;
    int64_t* number = nullptr;
    if (key == "op_name") {
      text = &metadata->op_name;
    } else if (key == "op_type") {
      text = &metadata->op_type;
    } else if (key == "source_file") {
      text = &metadata->source_file;
    } else if (key == "source_line") {
      number = &metadata->source_line;
    } else if (key == "stack_frame_id") {
      number = &metadata->stack_frame_id;
    }
    if (text) {
      if (!s.ConsumeQuoted(text)) return s.Fail(StrCat("expected a quoted ", key));
    } else if (number) {
      if (!s.ConsumeInt(number)) return s.Fail(StrCat("expected an integer ", key));
    } else {
      std::string_view ignored;
      if (!ConsumeValueText(s, &ignored)) return false;
      if (key != "deduplicated_name" && key != "scheduling_name" && key != "source_end_line" &&
          key != "source_column" && key != "source_end_column" && key != "profile_type" &&
          key != "size_of_generated_code_in_bytes" &&
          key != "size_of_memory_working_set_in_bytes" && key != "preserve_layout") {
        warner.Warn(StrCat("unknown metadata field '", key, "' (ignored)"), key_at);
      }
    }
  }
}

// One computation name, or a braced list of them. `rank` 0 puts it before
// the others (ParseInstruction sorts by rank).
bool ParseCalls(Scanner& s, ir::CallRole role, int rank, InstructionNames& names) {
  if (s.Peek() != '{') {
    const char* at = s.pos();
    const std::string_view name = s.ConsumeReference();
    if (name.empty()) return s.Fail("expected a computation name");
    names.calls.push_back({{name, at}, role, rank});
    return true;
  }
  s.ConsumeChar('{');
  s.Skip();
  if (s.ConsumeChar('}')) return true;
  while (true) {
    s.Skip();
    const char* at = s.pos();
    const std::string_view name = s.ConsumeReference();
    if (name.empty()) return s.Fail("expected a computation name");
    names.calls.push_back({{name, at}, role, rank});
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or '}' in a list of computations");
  }
}

bool ParseNameList(Scanner& s, std::vector<NameRef>* out) {
  if (!s.Next('{')) return s.Fail("expected '{' starting a list of instructions");
  s.Skip();
  if (s.ConsumeChar('}')) return true;
  while (true) {
    s.Skip();
    const char* at = s.pos();
    const std::string_view name = s.ConsumeReference();
    if (name.empty()) return s.Fail("expected an instruction name");
    out->push_back({name, at});
    s.Skip();
    if (s.ConsumeChar('}')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or '}' in a list of instructions");
  }
}

bool ParseInt(Scanner& s, int64_t* out, std::string_view key) {
  if (!s.ConsumeInt(out)) return s.Fail(StrCat("expected an integer value for ", key));
  return true;
}

ir::GatherDimensionNumbers& Gather(ir::HloAttributes& a) {
  if (!a.gather) a.gather.emplace();
  return *a.gather;
}
ir::ScatterDimensionNumbers& Scatter(ir::HloAttributes& a) {
  if (!a.scatter) a.scatter.emplace();
  return *a.scatter;
}
ir::DotDimensionNumbers& Dot(ir::HloAttributes& a) {
  if (!a.dot) a.dot.emplace();
  return *a.dot;
}

// A braced value kept as written, braces included.
bool ParseBracedText(Scanner& s, std::string_view* out, std::string_view key) {
  const char* start = s.pos();
  if (!s.SkipBalanced('{', '}')) {
    return s.Fail(StrCat("expected a balanced {...} value for ", key));
  }
  *out = std::string_view(start, static_cast<size_t>(s.pos() - start));
  return true;
}

}  // namespace

bool ParseAttribute(Scanner& s, Warner& warner, std::string_view key, const char* key_at,
                    const InstructionSink& sink) {
  using R = ir::CallRole;
  using O = ir::Opcode;
  ir::Instruction& instruction = *sink.instruction;
  const O opcode = instruction.opcode;
  InstructionNames& names = *sink.names;
  const Key k = LookupKey(key);
  if (k != Key::kUnknown && k != Key::kUntyped) {
    const uint64_t bit = uint64_t{1} << static_cast<int>(k);
    if (names.typed_keys_seen & bit) {
      return s.Fail(key_at, StrCat("expected each attribute once, but '", key, "' is repeated"));
    }
    names.typed_keys_seen |= bit;
  }
  switch (k) {
    case Key::kMetadata:
    {
      ir::OpMetadata metadata;
      if (!ParseMetadata(s, warner, &metadata)) return false;
      instruction.metadata = sink.store_metadata(metadata);
      return true;
    }
    case Key::kDimensions:
      return ParseIntList(s, &sink.attributes().dimensions);
    case Key::kKind: {
      std::string_view& kind = sink.attributes().fusion_kind;
      kind = s.ConsumeName();
      return !kind.empty() || s.Fail("expected a fusion kind such as kLoop");
    }
    case Key::kBackendConfig: {
      ir::HloAttributes& a = sink.attributes();
      if (s.Peek() != '"') return ParseBracedText(s, &a.backend_config, key);
      return s.ConsumeQuoted(&a.backend_config) || s.Fail("expected '\"' closing backend_config");
    }
    // Called computations, with the role the key gives them.
    case Key::kCalls:
      return ParseCalls(s, opcode == O::kFusion ? R::kFused : R::kCalled, 1, names);
    case Key::kToApply:
      return ParseCalls(s, opcode == O::kSort         ? R::kComparator
                           : opcode == O::kCustomCall ? R::kCalled
                                                      : R::kToApply,
                        1, names);
    case Key::kBody:
      return ParseCalls(s, R::kWhileBody, 0, names);
    case Key::kCondition:
      return ParseCalls(s, R::kWhileCondition, 1, names);
    case Key::kBranchComputations:
      return ParseCalls(s, R::kBranch, 1, names);
    case Key::kTrueComputation:
      return ParseCalls(s, R::kBranch, 0, names);
    case Key::kFalseComputation:
      return ParseCalls(s, R::kBranch, 1, names);
    case Key::kCalledComputations:
      return ParseCalls(s, R::kCalled, 1, names);
    case Key::kSelect:
      return ParseCalls(s, R::kSelect, 0, names);
    case Key::kScatter:
      return ParseCalls(s, R::kScatter, 1, names);
    // Dot, gather and scatter dimension numbers.
    case Key::kLhsContractingDims:
      return ParseIntList(s, &Dot(sink.attributes()).lhs_contracting);
    case Key::kRhsContractingDims:
      return ParseIntList(s, &Dot(sink.attributes()).rhs_contracting);
    case Key::kLhsBatchDims:
      return ParseIntList(s, &Dot(sink.attributes()).lhs_batch);
    case Key::kRhsBatchDims:
      return ParseIntList(s, &Dot(sink.attributes()).rhs_batch);
    case Key::kOffsetDims:
      return ParseIntList(s, &Gather(sink.attributes()).offset_dims);
    case Key::kCollapsedSliceDims:
      return ParseIntList(s, &Gather(sink.attributes()).collapsed_slice_dims);
    case Key::kStartIndexMap:
      return ParseIntList(s, &Gather(sink.attributes()).start_index_map);
    case Key::kOperandBatchingDims:
      return ParseIntList(s, &Gather(sink.attributes()).operand_batching_dims);
    case Key::kStartIndicesBatchingDims:
      return ParseIntList(s, &Gather(sink.attributes()).start_indices_batching_dims);
    case Key::kSliceSizes:
      return ParseIntList(s, &sink.attributes().gather_slice_sizes);
    case Key::kIndexVectorDim: {
      ir::HloAttributes& a = sink.attributes();
      return ParseInt(s, opcode == O::kScatter ? &Scatter(a).index_vector_dim : &Gather(a).index_vector_dim,
                      key);
    }
    case Key::kUpdateWindowDims:
      return ParseIntList(s, &Scatter(sink.attributes()).update_window_dims);
    case Key::kInsertedWindowDims:
      return ParseIntList(s, &Scatter(sink.attributes()).inserted_window_dims);
    case Key::kScatterDimsToOperandDims:
      return ParseIntList(s, &Scatter(sink.attributes()).scatter_dims_to_operand_dims);
    case Key::kInputBatchingDims:
      return ParseIntList(s, &Scatter(sink.attributes()).input_batching_dims);
    case Key::kScatterIndicesBatchingDims:
      return ParseIntList(s, &Scatter(sink.attributes()).scatter_indices_batching_dims);
    case Key::kIndex:
      return ParseInt(s, &sink.attributes().tuple_index, key);
    case Key::kIotaDimension:
      return ParseInt(s, &sink.attributes().iota_dimension, key);
    case Key::kFrontendAttributes:
      return ParseBracedText(s, &sink.attributes().frontend_attributes, key);
    case Key::kSharding: {
      ir::HloAttributes& a = sink.attributes();
      if (!ParseBracedText(s, &a.sharding_text, key)) return false;
      size_t consumed = 0;
      absl::StatusOr<ir::HloSharding> sharding = ParseHloSharding(a.sharding_text, &consumed);
      if (sharding.ok() && consumed == a.sharding_text.size()) {
        a.sharding = *std::move(sharding);
      } else {
        warner.Warn(StrCat("sharding not understood (kept as text): ",
                           sharding.ok() ? "text after the sharding" : sharding.status().message()),
                    a.sharding_text.data() + std::min(consumed, a.sharding_text.size()));
      }
      return true;
    }
    case Key::kDirection: {
      std::string_view& direction = sink.attributes().comparison_direction;
      direction = s.ConsumeName();
      return !direction.empty() || s.Fail("expected a comparison direction such as LT");
    }
    case Key::kCustomCallTarget:
      return s.ConsumeQuoted(&sink.attributes().custom_call_target) ||
             s.Fail("expected a quoted custom_call_target");
    case Key::kWindow: {
      ir::HloAttributes& a = sink.attributes();
      a.window.emplace();
      return ParseWindow(s, &*a.window);
    }
    case Key::kDimLabels: {
      ir::HloAttributes& a = sink.attributes();
      a.convolution.emplace();
      return ParseDimLabels(s, &*a.convolution);
    }
    case Key::kFeatureGroupCount:
      return ParseInt(s, &sink.attributes().feature_group_count, key);
    case Key::kBatchGroupCount:
      return ParseInt(s, &sink.attributes().batch_group_count, key);
    case Key::kSlice:
      return ParseSlice(s, &sink.attributes().slice);
    case Key::kDynamicSliceSizes:
      return ParseIntList(s, &sink.attributes().dynamic_slice_sizes);
    case Key::kPadding:
      return ParsePadding(s, &sink.attributes().padding);
    case Key::kReplicaGroups:
      return ParseReplicaGroups(s, &sink.attributes().replica_groups);
    case Key::kChannelId:
      return ParseInt(s, &sink.attributes().channel_id, key);
    case Key::kUseGlobalDeviceIds:
      return s.ConsumeBool(&sink.attributes().use_global_device_ids) || s.Fail("expected true or false");
    case Key::kSourceTargetPairs:
      return ParseSourceTargetPairs(s, &sink.attributes().source_target_pairs);
    case Key::kControlPredecessors:
      return ParseNameList(s, &names.control_predecessors);
    case Key::kUntyped:
    case Key::kUnknown:
    case Key::kCount:
      break;
  }
  std::string_view value;
  if (!ConsumeValueText(s, &value)) return false;
  sink.attributes().unknown.push_back({key, value});
  if (k == Key::kUnknown) {
    warner.Warn(StrCat("unknown HLO attribute '", key, "' (kept as text)"), key_at);
  }
  return true;
}

}  // namespace memplan::parsers::hlo_text
