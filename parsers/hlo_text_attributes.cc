// Attributes of HLO instructions: which keys are typed and where each goes;
// metadata, called computations, dimension numbers and text-valued
// attributes (structured values are in hlo_text_values.cc).
#include <algorithm>
#include <string>

#include "ir/strings.h"
#include "parsers/hlo_text_internal.h"

namespace memplan::parsers::hlo_text {
namespace {

// Attributes XLA prints that memplan reads as text only: kept in
// HloAttributes::unknown without a warning. Sorted.
constexpr std::string_view kUntypedXlaAttributes[] = {
    "algorithm",
    "api_version",
    "async_execution_thread",
    "channel_type",
    "composite",
    "constrain_layout",
    "cross_program_prefetch_index",
    "custom_call_has_side_effect",
    "custom_call_schedule",
    "delta",
    "distribution",
    "domain",
    "dot_sparsity",
    "epsilon",
    "exponent_bits",
    "feature_index",
    "fft_length",
    "fft_type",
    "indices_are_sorted",
    "infeed_config",
    "is_composite",
    "is_cross_program_prefetch",
    "is_host_transfer",
    "is_stable",
    "k",
    "largest",
    "left_side",
    "lhs_ragged_dims",
    "lower",
    "mantissa_bits",
    "operand_layout_constraints",
    "operand_precision",
    "origin",
    "outfeed_config",
    "outfeed_shape",
    "output_to_operand_aliasing",
    "padding_type",
    "parameter_replication",
    "rhs_group_dims",
    "result_accuracy",
    "schedule",
    "sparsity",
    "statistics",
    "transpose_a",
    "type",
    "unique_indices",
    "unit_diagonal",
};

bool IsUntypedXlaAttribute(std::string_view key) {
  return std::binary_search(std::begin(kUntypedXlaAttributes), std::end(kUntypedXlaAttributes),
                            key);
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

// One computation name, or a braced list of them.
bool ParseCalls(Scanner& s, ir::CallRole role, bool first, InstructionNames& names) {
  auto add = [&](NameRef ref) {
    // XLA's called_computations() order: while body before condition, true
    // before false, select before scatter, whatever order the text has.
    if (first) {
      names.calls.insert(names.calls.begin(), {ref, role});
    } else {
      names.calls.push_back({ref, role});
    }
  };
  if (s.Peek() != '{') {
    const char* at = s.pos();
    const std::string_view name = s.ConsumeReference();
    if (name.empty()) return s.Fail("expected a computation name");
    add({name, at});
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
    names.calls.push_back({{name, at}, role});
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

// Keys that name computations, with the role they give.
bool ParseCallAttribute(Scanner& s, std::string_view key, ir::Opcode opcode,
                        InstructionNames& names, bool* handled) {
  using R = ir::CallRole;
  *handled = true;
  if (key == "calls") return ParseCalls(s, opcode == ir::Opcode::kFusion ? R::kFused : R::kCalled, false, names);
  if (key == "to_apply") {
    const R role = opcode == ir::Opcode::kSort        ? R::kComparator
                   : opcode == ir::Opcode::kCustomCall ? R::kCalled
                                                       : R::kToApply;
    return ParseCalls(s, role, false, names);
  }
  if (key == "body") return ParseCalls(s, R::kWhileBody, true, names);
  if (key == "condition") return ParseCalls(s, R::kWhileCondition, false, names);
  if (key == "branch_computations") return ParseCalls(s, R::kBranch, false, names);
  if (key == "true_computation") return ParseCalls(s, R::kBranch, true, names);
  if (key == "false_computation") return ParseCalls(s, R::kBranch, false, names);
  if (key == "called_computations") return ParseCalls(s, R::kCalled, false, names);
  if (key == "select") return ParseCalls(s, R::kSelect, true, names);
  if (key == "scatter") return ParseCalls(s, R::kScatter, false, names);
  *handled = false;
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

// Gather, scatter and dot dimension numbers: one list or integer each.
bool ParseDimensionNumber(Scanner& s, std::string_view key, ir::Opcode opcode,
                          const InstructionSink& sink, bool* handled) {
  *handled = true;
  if (key == "lhs_contracting_dims") return ParseIntList(s, &Dot(sink.attributes()).lhs_contracting);
  if (key == "rhs_contracting_dims") return ParseIntList(s, &Dot(sink.attributes()).rhs_contracting);
  if (key == "lhs_batch_dims") return ParseIntList(s, &Dot(sink.attributes()).lhs_batch);
  if (key == "rhs_batch_dims") return ParseIntList(s, &Dot(sink.attributes()).rhs_batch);
  if (key == "offset_dims") return ParseIntList(s, &Gather(sink.attributes()).offset_dims);
  if (key == "collapsed_slice_dims") {
    return ParseIntList(s, &Gather(sink.attributes()).collapsed_slice_dims);
  }
  if (key == "start_index_map") return ParseIntList(s, &Gather(sink.attributes()).start_index_map);
  if (key == "operand_batching_dims") {
    return ParseIntList(s, &Gather(sink.attributes()).operand_batching_dims);
  }
  if (key == "start_indices_batching_dims") {
    return ParseIntList(s, &Gather(sink.attributes()).start_indices_batching_dims);
  }
  if (key == "slice_sizes") return ParseIntList(s, &sink.attributes().gather_slice_sizes);
  if (key == "index_vector_dim") {
    ir::HloAttributes& a = sink.attributes();
    return ParseInt(s, opcode == ir::Opcode::kScatter ? &Scatter(a).index_vector_dim
                                                      : &Gather(a).index_vector_dim,
                    key);
  }
  if (key == "update_window_dims") {
    return ParseIntList(s, &Scatter(sink.attributes()).update_window_dims);
  }
  if (key == "inserted_window_dims") {
    return ParseIntList(s, &Scatter(sink.attributes()).inserted_window_dims);
  }
  if (key == "scatter_dims_to_operand_dims") {
    return ParseIntList(s, &Scatter(sink.attributes()).scatter_dims_to_operand_dims);
  }
  if (key == "input_batching_dims") {
    return ParseIntList(s, &Scatter(sink.attributes()).input_batching_dims);
  }
  if (key == "scatter_indices_batching_dims") {
    return ParseIntList(s, &Scatter(sink.attributes()).scatter_indices_batching_dims);
  }
  *handled = false;
  return true;
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
  ir::Instruction& instruction = *sink.instruction;
  const ir::Opcode opcode = instruction.opcode;
  // The most frequent keys first.
  if (key == "metadata") return ParseMetadata(s, warner, &instruction.metadata);
  if (key == "dimensions") return ParseIntList(s, &sink.attributes().dimensions);
  if (key == "kind") {
    sink.attributes().fusion_kind = s.ConsumeName();
    if (sink.attributes().fusion_kind.empty()) return s.Fail("expected a fusion kind such as kLoop");
    return true;
  }
  if (key == "backend_config") {
    ir::HloAttributes& a = sink.attributes();
    if (s.Peek() == '"') {
      if (!s.ConsumeQuoted(&a.backend_config)) return s.Fail("expected '\"' closing backend_config");
      return true;
    }
    return ParseBracedText(s, &a.backend_config, key);
  }
  bool handled = false;
  if (!ParseCallAttribute(s, key, opcode, *sink.names, &handled)) return false;
  if (handled) return true;
  if (!ParseDimensionNumber(s, key, opcode, sink, &handled)) return false;
  if (handled) return true;

  if (key == "index") return ParseInt(s, &sink.attributes().tuple_index, key);
  if (key == "iota_dimension") return ParseInt(s, &sink.attributes().iota_dimension, key);
  if (key == "frontend_attributes") {
    return ParseBracedText(s, &sink.attributes().frontend_attributes, key);
  }
  if (key == "sharding") return ParseBracedText(s, &sink.attributes().sharding, key);
  if (key == "direction") {
    sink.attributes().comparison_direction = s.ConsumeName();
    if (sink.attributes().comparison_direction.empty()) {
      return s.Fail("expected a comparison direction such as LT");
    }
    return true;
  }
  if (key == "custom_call_target") {
    if (!s.ConsumeQuoted(&sink.attributes().custom_call_target)) {
      return s.Fail("expected a quoted custom_call_target");
    }
    return true;
  }
  if (key == "window") {
    ir::HloAttributes& a = sink.attributes();
    a.window.emplace();
    return ParseWindow(s, &*a.window);
  }
  if (key == "dim_labels") {
    ir::HloAttributes& a = sink.attributes();
    a.convolution.emplace();
    return ParseDimLabels(s, &*a.convolution);
  }
  if (key == "feature_group_count") return ParseInt(s, &sink.attributes().feature_group_count, key);
  if (key == "batch_group_count") return ParseInt(s, &sink.attributes().batch_group_count, key);
  if (key == "slice") return ParseSlice(s, &sink.attributes().slice);
  if (key == "dynamic_slice_sizes") return ParseIntList(s, &sink.attributes().dynamic_slice_sizes);
  if (key == "padding") return ParsePadding(s, &sink.attributes().padding);
  if (key == "replica_groups") return ParseReplicaGroups(s, &sink.attributes().replica_groups);
  if (key == "channel_id") return ParseInt(s, &sink.attributes().channel_id, key);
  if (key == "use_global_device_ids") {
    if (!s.ConsumeBool(&sink.attributes().use_global_device_ids)) {
      return s.Fail("expected true or false");
    }
    return true;
  }
  if (key == "source_target_pairs") {
    return ParseSourceTargetPairs(s, &sink.attributes().source_target_pairs);
  }
  if (key == "control-predecessors") return ParseNameList(s, &sink.names->control_predecessors);

  std::string_view value;
  if (!ConsumeValueText(s, &value)) return false;
  sink.attributes().unknown.push_back({key, value});
  if (!IsUntypedXlaAttribute(key)) {
    warner.Warn(StrCat("unknown HLO attribute '", key, "' (kept as text)"), key_at);
  }
  return true;
}

}  // namespace memplan::parsers::hlo_text
