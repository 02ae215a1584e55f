#include "parsers/hlo_proto_parser.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/hlo_proto_module.h"
#include "parsers/proto/hlo_subset.pb.h"

namespace memplan::parsers {
namespace {

namespace pb = ::memplan::xla_subset;

std::string_view View(const std::string& s) { return s; }

ir::Shape ShapeFromProto(const pb::ShapeProto& proto, int depth = 0) {
  ir::Shape shape;
  shape.dtype = DTypeFromPrimitiveType(proto.element_type());
  if (depth > 64) return shape;
  for (int64_t d : proto.dimensions()) shape.dims.push_back(d);
  for (int i = 0; i < proto.dimensions_size(); ++i) {
    if (i < proto.is_dynamic_dimension_size() && proto.is_dynamic_dimension(i)) {
      // Empty until a dimension is dynamic (ir/shape.h).
      shape.dynamic_dims.resize(static_cast<size_t>(proto.dimensions_size()), false);
      shape.dynamic_dims[static_cast<size_t>(i)] = true;
    }
  }
  for (const pb::ShapeProto& element : proto.tuple_shapes()) {
    shape.tuple_elements.push_back(ShapeFromProto(element, depth + 1));
  }
  if (proto.has_layout() && shape.IsArray()) {
    ir::Layout layout;
    for (int64_t d : proto.layout().minor_to_major()) layout.minor_to_major.push_back(d);
    layout.memory_space = proto.layout().memory_space();
    shape.layout = std::move(layout);
  }
  return shape;
}

// Proto ids of instructions to their dense ids.
struct ProtoIds {
  absl::flat_hash_map<int64_t, ir::InstructionId> instructions;
};

// The module's graph (parsers/hlo_proto_module.h) and the map from the
// proto's instruction ids to the graph's.
absl::StatusOr<ProtoIds> BuildModule(const pb::HloModuleProto& proto, const SourceText& source,
                                     ir::Program& program) {
  absl::Status built = ModuleFromProto(proto, &program.module, &program.diagnostics);
  if (!built.ok()) {
    return source.ErrorAt(source.text().data(),
                          StrCat("expected a consistent HloModuleProto: ", built.message()));
  }
  ProtoIds ids;
  ids.instructions.reserve(program.module.instruction_count());
  for (const ir::Instruction& instruction : program.module.instructions()) {
    ids.instructions.emplace(instruction.unique_id, instruction.id);
  }
  return ids;
}

ir::Value ValueFromLogicalBuffer(const pb::LogicalBufferProto& buffer, const ProtoIds& ids,
                                 ir::Program& program) {
  ir::Value value;
  value.id = ir::ValueId(buffer.id());
  value.size = buffer.size();
  value.color = buffer.color();
  for (int64_t i : buffer.defined_at().shape_index()) value.index.push_back(i);
  auto it = ids.instructions.find(buffer.defined_at().instruction_id());
  if (it == ids.instructions.end()) {
    program.diagnostics.Warn("logical buffer defined by an instruction the module lacks",
                             StrCat("logical buffer ", buffer.id()));
    return value;
  }
  value.instruction = it->second;
  const ir::Shape& shape = program.module.instruction(it->second).shape;
  if (const ir::Shape* subshape = ir::Subshape(shape, value.index)) value.shape = *subshape;
  return value;
}

ir::Allocation AllocationFromProto(const pb::BufferAllocationProto& proto) {
  ir::Allocation a;
  a.id = ir::AllocationId(proto.index());
  a.size = proto.size();
  a.color = proto.color();
  if (proto.is_entry_computation_parameter()) {
    a.parameter_number = proto.parameter_number();
    for (int64_t i : proto.parameter_shape_index()) a.parameter_index.push_back(i);
  }
  a.is_constant = proto.is_constant();
  a.is_thread_local = proto.is_thread_local();
  a.maybe_live_out = proto.maybe_live_out();
  // BufferAllocation::IsPreallocatedTempBuffer, which the proto does not store.
  a.is_preallocated_temp = !proto.is_entry_computation_parameter() && !proto.maybe_live_out() &&
                           !proto.is_thread_local() && !proto.is_constant();
  return a;
}

ir::HeapTrace HeapTraceFromProto(
    const pb::HeapSimulatorTrace& proto,
    const absl::flat_hash_map<std::string_view, ir::InstructionId>& by_name) {
  ir::HeapTrace trace;
  trace.allocation = ir::AllocationId(proto.buffer_allocation_index());
  trace.whole_module = proto.whole_module_simulation();
  trace.events.reserve(proto.events_size());
  for (const auto& e : proto.events()) {
    ir::HeapTraceEvent event;
    switch (e.kind()) {
      case pb::HeapSimulatorTrace::Event::FREE:
        event.kind = ir::HeapTraceEvent::Kind::kFree;
        break;
      case pb::HeapSimulatorTrace::Event::SHARE_WITH:
        event.kind = ir::HeapTraceEvent::Kind::kShareWith;
        break;
      default:
        event.kind = ir::HeapTraceEvent::Kind::kAlloc;
        break;
    }
    event.buffer = ir::ValueId(e.buffer_id());
    event.share_with = ir::ValueId(e.share_with_canonical_id());
    auto it = by_name.find(View(e.instruction_name()));
    if (it != by_name.end()) event.instruction = it->second;
    trace.events.push_back(event);
  }
  return trace;
}

// Schedule of the entry computation, when the module has one.
void ReadSchedule(const pb::HloModuleProto& module, const ProtoIds& ids, ir::Program& program) {
  auto it = module.schedule().sequences().find(module.entry_computation_id());
  if (it == module.schedule().sequences().end()) return;
  for (int64_t id : it->second.instruction_ids()) {
    auto found = ids.instructions.find(id);
    if (found == ids.instructions.end()) {
      program.diagnostics.Warn("schedule names an instruction id the module lacks (dropped)",
                               StrCat("instruction id ", id));
      continue;
    }
    program.schedule.instructions.push_back(found->second);
  }
  program.schedule.max_time = static_cast<ir::ScheduleStep>(program.schedule.instructions.size());
}

// The buffer assignment's logical buffers and allocations as values and
// allocations over the module.
void ReadAssignment(const pb::BufferAssignmentProto& assignment, const ProtoIds& ids,
                    ir::Program& program) {
  absl::flat_hash_map<int64_t, size_t> value_index;
  for (const pb::LogicalBufferProto& buffer : assignment.logical_buffers()) {
    if (!value_index.emplace(buffer.id(), program.values.size()).second) {
      program.diagnostics.Warn("logical buffer listed twice (first kept)",
                               StrCat("logical buffer ", buffer.id()));
      continue;
    }
    program.values.push_back(ValueFromLogicalBuffer(buffer, ids, program));
  }
  for (const pb::BufferAllocationProto& proto_allocation : assignment.buffer_allocations()) {
    ir::Allocation allocation = AllocationFromProto(proto_allocation);
    for (const auto& assigned : proto_allocation.assigned()) {
      auto it = value_index.find(assigned.logical_buffer_id());
      if (it == value_index.end()) {
        program.diagnostics.Warn("allocation assigns an unknown logical buffer",
                                 StrCat("allocation ", allocation.id.value()));
        continue;
      }
      ir::Value& value = program.values[it->second];
      if (value.allocation.valid()) continue;
      value.allocation = allocation.id;
      value.offset = assigned.offset();
      value.size = assigned.size();
      allocation.values.push_back(value.id);
    }
    program.allocations.push_back(std::move(allocation));
  }
  // The trace names instructions; the module's names are unique.
  absl::flat_hash_map<std::string_view, ir::InstructionId> by_name;
  for (const ir::Instruction& i : program.module.instructions()) by_name.emplace(i.name, i.id);
  for (const pb::HeapSimulatorTrace& trace : assignment.heap_simulator_traces()) {
    program.heap_traces.push_back(HeapTraceFromProto(trace, by_name));
  }
}

absl::Status BuildProgram(const pb::HloProto& proto, const SourceText& source,
                          ir::Program& program) {
  if (!proto.has_buffer_assignment()) {
    return source.ErrorAt(source.text().data(),
                          "expected an HloProto with a buffer_assignment (field 3); dump after "
                          "optimizations with --xla_dump_hlo_as_proto");
  }
  ASSIGN_OR_RETURN(const ProtoIds ids, BuildModule(proto.hlo_module(), source, program));
  ReadSchedule(proto.hlo_module(), ids, program);
  ReadAssignment(proto.buffer_assignment(), ids, program);
  return absl::OkStatus();
}

// Sorts values and allocations by id (the proto may list them in any
// order); an allocation index listed twice is an error, as in the text dump.
absl::Status FinishProgram(const SourceText& source, ir::Program& program) {
  std::sort(program.values.begin(), program.values.end(),
            [](const ir::Value& a, const ir::Value& b) { return a.id < b.id; });
  std::stable_sort(program.allocations.begin(), program.allocations.end(),
                   [](const ir::Allocation& a, const ir::Allocation& b) { return a.id < b.id; });
  if (!program.allocations.empty() && program.allocations.front().id.value() < 0) {
    return source.ErrorAt(source.text().data(),
                          StrCat("expected buffer allocation indices of 0 or more, not ",
                                 program.allocations.front().id.value()));
  }
  if (!program.values.empty() && program.values.front().id.value() < 0) {
    return source.ErrorAt(source.text().data(),
                          StrCat("expected logical buffer ids of 0 or more, not ",
                                 program.values.front().id.value()));
  }
  for (size_t i = 1; i < program.allocations.size(); ++i) {
    if (program.allocations[i].id == program.allocations[i - 1].id) {
      return source.ErrorAt(
          source.text().data(),
          StrCat("expected each buffer allocation index once; allocation ",
                 program.allocations[i].id.value(), " is listed twice"));
    }
  }
  for (ir::Value& value : program.values) {
    if (value.shape.dtype != ir::DType::kInvalid) {
      value.shape_text = program.Intern(ir::ShapeToString(value.shape));
    }
    if (value.allocation.valid()) continue;
    program.diagnostics.Warn("logical buffer assigned to no allocation", program.ValueName(value));
  }
  program.notes.push_back({ir::NoteCode::kProtoHasNoLiveRanges, {}, {}});
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeHloProto(std::string_view head, std::string_view file_name) {
  if (file_name.ends_with(".hlo.pb") || file_name.ends_with(".pb")) return true;
  // Field 1 (hlo_module), wire type 2: tag byte 0x0a, and binary content.
  return !head.empty() && head[0] == '\x0a' &&
         head.find('\0') != std::string_view::npos;
}

absl::StatusOr<ir::Program> ParseHloProto(
    const std::vector<std::shared_ptr<const SourceText>>& files, ir::Program program) {
  if (files.empty()) return absl::InvalidArgumentError("no HloProto file given");
  const SourceText& source = *files.front();
  auto proto = std::make_shared<pb::HloProto>();
  if (source.text().size() > static_cast<size_t>(INT32_MAX) ||
      !proto->ParseFromArray(source.text().data(), static_cast<int>(source.text().size()))) {
    return source.ErrorAt(source.text().data(),
                          "expected a binary HloProto (protobuf); the file does not decode");
  }
  program.input_format = "hlo-proto";
  program.assignment_source = ir::AssignmentSource::kXla;  // BuildProgram requires one
  if (!proto->hlo_module().name().empty()) program.module_name = proto->hlo_module().name();
  program.source_files.push_back(source.name());
  program.KeepAlive(files.front());
  RETURN_IF_ERROR(BuildProgram(*proto, source, program));
  program.KeepAlive(proto);
  RETURN_IF_ERROR(FinishProgram(source, program));
  return program;
}

}  // namespace memplan::parsers
