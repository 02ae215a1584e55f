#include "parsers/hlo_proto_module.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_join.h"
#include "ir/mesh_axes_groups.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/hlo_graph_checks.h"
#include "parsers/hlo_primitive_type.h"
#include "parsers/op_sharding.h"
#include "parsers/proto/hlo_subset.pb.h"

namespace memplan::parsers {
namespace {

namespace pb = ::memplan::xla_subset;

constexpr int kMaxTupleDepth = 64;

std::string_view View(const std::string& s) { return s; }

template <typename Repeated>
std::vector<int64_t> Ints(const Repeated& values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

class ProtoModuleBuilder {
 public:
  ProtoModuleBuilder(const pb::HloModuleProto& proto, ir::Module& module,
                     ir::Diagnostics& diagnostics)
      : proto_(proto), module_(module), diagnostics_(diagnostics) {}

  absl::Status Build() {
    module_.name = View(proto_.name());
    RETURN_IF_ERROR(AddComputations());
    RETURN_IF_ERROR(ResolveEdges());
    RETURN_IF_ERROR(ReadEntry());
    ReadHeader();
    ReadStackFrames();
    if (std::optional<GraphProblem> problem = FindGraphProblem(module_)) {
      return absl::InvalidArgumentError(StrCat("HloModuleProto '", proto_.name(), "': ",
                                               Where(*problem), problem->expected));
    }
    return absl::OkStatus();
  }

 private:
  // The computation's instructions in schedule order when the schedule
  // orders exactly them, else in the proto's order.
  std::vector<const pb::HloInstructionProto*> InstructionOrder(const pb::HloComputationProto& c) {
    std::vector<const pb::HloInstructionProto*> order;
    order.reserve(c.instructions_size());
    for (const pb::HloInstructionProto& instruction : c.instructions()) order.push_back(&instruction);
    auto it = proto_.schedule().sequences().find(c.id());
    if (it == proto_.schedule().sequences().end() ||
        it->second.instruction_ids_size() != c.instructions_size()) {
      return order;
    }
    absl::flat_hash_map<int64_t, const pb::HloInstructionProto*> by_id;
    for (const pb::HloInstructionProto* instruction : order) by_id.emplace(instruction->id(), instruction);
    std::vector<const pb::HloInstructionProto*> scheduled;
    scheduled.reserve(order.size());
    for (int64_t id : it->second.instruction_ids()) {
      auto found = by_id.find(id);
      if (found == by_id.end()) return order;
      scheduled.push_back(found->second);
      by_id.erase(found);  // each once
    }
    return scheduled;
  }

  absl::Status AddComputations() {
    size_t total = 0;
    for (const pb::HloComputationProto& c : proto_.computations()) total += c.instructions_size();
    module_.Reserve(total, proto_.computations_size());
    for (const pb::HloComputationProto& c : proto_.computations()) {
      ir::Computation computation;
      computation.name = View(c.name());
      computation.unique_id = c.id();
      const ir::ComputationId id = module_.AddComputation(std::move(computation));
      if (!computations_by_id_.emplace(c.id(), id).second) {
        return absl::InvalidArgumentError(StrCat("HloModuleProto '", proto_.name(),
                                                 "': computation id ", c.id(), " is used twice"));
      }
      for (const pb::HloInstructionProto* instruction : InstructionOrder(c)) {
        RETURN_IF_ERROR(AddInstruction(*instruction, c, id));
      }
    }
    return absl::OkStatus();
  }

  absl::Status AddInstruction(const pb::HloInstructionProto& proto, const pb::HloComputationProto& c,
                              ir::ComputationId computation) {
    ir::Instruction instruction;
    instruction.computation = computation;
    instruction.name = View(proto.name());
    instruction.opcode_text = View(proto.opcode());
    instruction.opcode = ir::OpcodeFromName(instruction.opcode_text);
    if (instruction.opcode == ir::Opcode::kUnknown) {
      diagnostics_.Warn(StrCat("unknown HLO opcode '", proto.opcode(), "' (kept as written)"),
                        StrCat("HloModuleProto instruction '", proto.name(), "'"));
    }
    instruction.shape = module_.InternShape(Shape(proto.shape(), 0));
    instruction.metadata = module_.StoreMetadata(Metadata(proto.metadata()));
    instruction.unique_id = proto.id();
    instruction.is_root = proto.id() == c.root_id();
    const ir::InstructionId id = module_.AddInstruction(std::move(instruction));
    if (!instructions_by_id_.emplace(proto.id(), id).second) {
      return Error(proto, StrCat("instruction id ", proto.id(), " is used twice"));
    }
    protos_.push_back(&proto);
    ir::Computation& owner = module_.mutable_computation(computation);
    owner.instructions.push_back(id);
    if (module_.instruction(id).is_root) owner.root = id;
    ReadAttributes(proto, id);
    if (module_.instruction(id).opcode == ir::Opcode::kParameter) {
      const int64_t number = proto.parameter_number();
      if (number < 0 || number >= c.instructions_size()) {
        return Error(proto, StrCat("expected a parameter number below ", c.instructions_size(),
                                   ", not ", number));
      }
      if (owner.parameters.size() <= static_cast<size_t>(number)) owner.parameters.resize(number + 1);
      if (owner.parameters[number].valid()) {
        return Error(proto, StrCat("parameter number ", number, " is used twice"));
      }
      owner.parameters[number] = id;
    }
    return absl::OkStatus();
  }

  absl::Status ResolveEdges() {
    for (size_t k = 0; k < protos_.size(); ++k) {
      const pb::HloInstructionProto& proto = *protos_[k];
      ir::Instruction& instruction = module_.mutable_instruction(ir::InstructionId(static_cast<int64_t>(k)));
      instruction.operands.reserve(proto.operand_ids_size());
      for (int64_t operand : proto.operand_ids()) {
        auto it = instructions_by_id_.find(operand);
        if (it == instructions_by_id_.end()) {
          return Error(proto, StrCat("operand id ", operand, " names no instruction"));
        }
        instruction.operands.push_back(it->second);
      }
      for (int64_t predecessor : proto.control_predecessor_ids()) {
        auto it = instructions_by_id_.find(predecessor);
        if (it == instructions_by_id_.end()) {
          return Error(proto, StrCat("control predecessor id ", predecessor, " names no instruction"));
        }
        instruction.control_predecessors.push_back(it->second);
      }
      const int count = proto.called_computation_ids_size();
      for (int i = 0; i < count; ++i) {
        auto it = computations_by_id_.find(proto.called_computation_ids(i));
        if (it == computations_by_id_.end()) {
          return Error(proto, StrCat("called computation id ", proto.called_computation_ids(i),
                                     " names no computation"));
        }
        instruction.calls.push_back({it->second, RoleOf(instruction.opcode, i)});
      }
    }
    return absl::OkStatus();
  }

  static ir::CallRole RoleOf(ir::Opcode opcode, int index) {
    using O = ir::Opcode;
    using R = ir::CallRole;
    switch (opcode) {
      case O::kFusion:
        return R::kFused;
      case O::kWhile:
        return index == 0 ? R::kWhileBody : R::kWhileCondition;
      case O::kConditional:
        return R::kBranch;
      case O::kSort:
        return R::kComparator;
      case O::kSelectAndScatter:
        return index == 0 ? R::kSelect : R::kScatter;
      case O::kReduce:
      case O::kAllReduce:
      case O::kAllReduceStart:
      case O::kMap:
      case O::kScatter:
      case O::kReduceWindow:
      case O::kReduceScatter:
      case O::kCall:
        return R::kToApply;
      default:
        return R::kCalled;
    }
  }

  absl::Status ReadEntry() {
    const std::string& name = proto_.entry_computation_name();
    auto it = computations_by_id_.find(proto_.entry_computation_id());
    if (it != computations_by_id_.end() &&
        (name.empty() || module_.computation(it->second).name == name)) {
      module_.entry = it->second;
      return absl::OkStatus();
    }
    for (const ir::Computation& c : module_.computations()) {
      if (c.name == name) {
        module_.entry = c.id;
        return absl::OkStatus();
      }
    }
    if (proto_.computations_size() == 0) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat("HloModuleProto '", proto_.name(),
                                             "': the entry computation (id ",
                                             proto_.entry_computation_id(), ", name '", name,
                                             "') is not in it"));
  }

  void ReadHeader() {
    ir::ModuleHeader& header = module_.header;
    header.is_scheduled = !proto_.schedule().sequences().empty();
    if (proto_.has_host_program_shape()) {
      for (const pb::ShapeProto& parameter : proto_.host_program_shape().parameters()) {
        header.entry_parameter_shapes.push_back(module_.InternShape(Shape(parameter, 0)));
      }
      header.entry_result_shape = Shape(proto_.host_program_shape().result(), 0);
    }
    if (proto_.has_device_assignment()) {
      header.replica_count = std::max(1, proto_.device_assignment().replica_count());
      header.num_partitions = std::max(1, proto_.device_assignment().computation_count());
    }
    for (const auto& entry : proto_.input_output_alias().entries()) {
      ir::InputOutputAlias alias;
      alias.output_index.assign(entry.output_shape_index().begin(), entry.output_shape_index().end());
      alias.parameter_number = entry.parameter_number();
      alias.parameter_index.assign(entry.parameter_shape_index().begin(),
                                   entry.parameter_shape_index().end());
      alias.must_alias = entry.kind() == pb::MUST_ALIAS;
      header.input_output_aliases.push_back(std::move(alias));
    }
    for (const auto& entry : proto_.buffer_donor().entries()) {
      ir::BufferDonor donor;
      donor.parameter_number = entry.parameter_number();
      donor.parameter_index.assign(entry.parameter_shape_index().begin(),
                                   entry.parameter_shape_index().end());
      header.buffer_donors.push_back(std::move(donor));
    }
    if (!proto_.frontend_attributes().map().empty()) {
      header.other.push_back({"frontend_attributes", FrontendAttributes(proto_.frontend_attributes())});
    }
  }

  void ReadStackFrames() {
    const pb::StackFrameIndexProto& index = proto_.stack_frame_index();
    auto name_at = [](const auto& names, int64_t id) -> std::string_view {
      return id >= 1 && id <= names.size() ? View(names[id - 1]) : std::string_view();
    };
    for (const auto& frame : index.stack_frames()) {
      ir::SourceFrame out;
      const int64_t loc = frame.file_location_id();
      if (loc >= 1 && loc <= index.file_locations_size()) {
        const auto& location = index.file_locations(static_cast<int>(loc - 1));
        out.file = name_at(index.file_names(), location.file_name_id());
        out.function = name_at(index.function_names(), location.function_name_id());
        out.line = location.line();
        out.column = location.column();
      }
      out.parent_id = frame.parent_frame_id();
      const int64_t id = static_cast<int64_t>(module_.stack_frames.size()) + 1;
      if (out.parent_id < 0 || out.parent_id >= id) {
        // As the text parser: a parent added after its callee would be a cycle.
        diagnostics_.Warn("stack frame whose parent_frame_id is not below its own id (parent dropped)",
                          StrCat("HloModuleProto stack frame ", id));
        out.parent_id = 0;
      }
      module_.stack_frames.push_back(out);
    }
  }

  ir::Shape Shape(const pb::ShapeProto& proto, int depth) {
    ir::Shape shape;
    shape.dtype = DTypeFromPrimitiveType(proto.element_type());
    if (depth > kMaxTupleDepth) return shape;
    shape.dims.reserve(proto.dimensions_size());
    for (int i = 0; i < proto.dimensions_size(); ++i) {
      const int64_t dim = proto.dimensions(i);
      // XLA stores an unbounded dynamic size as INT64_MIN; the text prints '?'.
      shape.dims.push_back(dim < 0 ? -1 : dim);
      if (dim < 0 || (i < proto.is_dynamic_dimension_size() && proto.is_dynamic_dimension(i))) {
        // Empty until a dimension is dynamic (ir/shape.h).
        shape.dynamic_dims.resize(static_cast<size_t>(proto.dimensions_size()), false);
        shape.dynamic_dims[static_cast<size_t>(i)] = true;
      }
    }
    for (const pb::ShapeProto& element : proto.tuple_shapes()) {
      shape.tuple_elements.push_back(Shape(element, depth + 1));
    }
    if (proto.has_layout() && shape.IsArray()) {
      ir::Layout layout;
      layout.minor_to_major = Ints(proto.layout().minor_to_major());
      layout.element_size_bits = static_cast<int>(proto.layout().element_size_in_bits());
      layout.memory_space = proto.layout().memory_space();
      layout.details = LayoutDetails(proto.layout());
      // XLA prints no layout for a scalar whose layout says nothing.
      if (!shape.dims.empty() || !layout.details.empty()) shape.layout = std::move(layout);
    }
    return shape;
  }

  // What XLA prints after ':' in a layout, for the parts memplan reads:
  // tiles, tail padding, index and pointer types, element size, memory
  // space and dynamic-shape prefix ("T(8,128)(2,1)E(4)S(1)").
  std::string_view LayoutDetails(const pb::LayoutProto& layout) {
    std::string details;
    if (layout.tiles_size() > 0) {
      details += "T";
      for (const pb::TileProto& tile : layout.tiles()) {
        details += "(";
        for (int i = 0; i < tile.dimensions_size(); ++i) {
          if (i > 0) details += ",";
          const int64_t d = tile.dimensions(i);
          if (d == -1) {
            details += "*";  // a combined dimension
          } else {
            StrAppend(&details, d);
          }
        }
        details += ")";
      }
    }
    const int64_t tail = layout.tail_padding_alignment_in_elements();
    if (tail != 0 && tail != 1) StrAppend(&details, "L(", tail, ")");
    if (layout.index_primitive_type() != 0) {
      StrAppend(&details, "#(", ir::DTypeName(DTypeFromPrimitiveType(layout.index_primitive_type())), ")");
    }
    if (layout.pointer_primitive_type() != 0) {
      StrAppend(&details, "*(", ir::DTypeName(DTypeFromPrimitiveType(layout.pointer_primitive_type())), ")");
    }
    if (layout.element_size_in_bits() != 0) StrAppend(&details, "E(", layout.element_size_in_bits(), ")");
    if (layout.memory_space() != 0) StrAppend(&details, "S(", layout.memory_space(), ")");
    if (layout.dynamic_shape_metadata_prefix_bytes() > 0) {
      StrAppend(&details, "M(", layout.dynamic_shape_metadata_prefix_bytes(), ")");
    }
    if (details.empty()) return {};
    auto it = interned_.find(details);
    if (it != interned_.end()) return it->second;
    const std::string_view view = module_.Intern(details);
    interned_.emplace(std::move(details), view);
    return view;
  }

  static ir::OpMetadata Metadata(const pb::OpMetadata& m) {
    ir::OpMetadata metadata;
    metadata.op_type = View(m.op_type());
    metadata.op_name = View(m.op_name());
    metadata.source_file = View(m.source_file());
    metadata.source_line = m.source_line();
    metadata.stack_frame_id = m.stack_frame_id();
    return metadata;
  }

  // {key="value",...} sorted by key, as XLA prints frontend attributes; a
  // value that is itself a braced dictionary prints without quotes.
  std::string_view FrontendAttributes(const pb::FrontendAttributes& attributes) {
    std::vector<std::pair<std::string_view, std::string_view>> sorted;
    for (const auto& [key, value] : attributes.map()) sorted.emplace_back(key, value);
    std::sort(sorted.begin(), sorted.end());
    std::string text = "{";
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0) text += ",";
      const auto& [key, value] = sorted[i];
      if (value.size() >= 2 && value.front() == '{' && value.back() == '}') {
        StrAppend(&text, key, "=", value);
      } else {
        StrAppend(&text, key, "=\"", FromAbsl(absl::CEscape(ToAbsl(value))), "\"");
      }
    }
    text += "}";
    return module_.Intern(std::move(text));
  }

  // Dot, convolution, gather and scatter dimension numbers; whether any
  // was set.
  static bool ReadDimensionNumbers(const pb::HloInstructionProto& p, ir::HloAttributes& a) {
    bool any = false;
    if (p.has_dot_dimension_numbers()) {
      const pb::DotDimensionNumbers& d = p.dot_dimension_numbers();
      a.dot = ir::DotDimensionNumbers{Ints(d.lhs_batch_dimensions()), Ints(d.rhs_batch_dimensions()),
                                      Ints(d.lhs_contracting_dimensions()), Ints(d.rhs_contracting_dimensions())};
      any = true;
    }
    if (p.has_convolution_dimension_numbers()) {
      const pb::ConvolutionDimensionNumbers& d = p.convolution_dimension_numbers();
      a.convolution = ir::ConvolutionDimensionNumbers{
          d.input_batch_dimension(),          d.input_feature_dimension(),
          Ints(d.input_spatial_dimensions()), d.kernel_input_feature_dimension(),
          d.kernel_output_feature_dimension(), Ints(d.kernel_spatial_dimensions()),
          d.output_batch_dimension(),         d.output_feature_dimension(),
          Ints(d.output_spatial_dimensions())};
      any = true;
    }
    if (p.has_gather_dimension_numbers()) {
      const pb::GatherDimensionNumbers& d = p.gather_dimension_numbers();
      a.gather = ir::GatherDimensionNumbers{Ints(d.offset_dims()), Ints(d.collapsed_slice_dims()),
                                            Ints(d.start_index_map()), d.index_vector_dim(),
                                            Ints(d.operand_batching_dims()),
                                            Ints(d.start_indices_batching_dims())};
      any = true;
    }
    if (p.has_scatter_dimension_numbers()) {
      const pb::ScatterDimensionNumbers& d = p.scatter_dimension_numbers();
      a.scatter = ir::ScatterDimensionNumbers{
          Ints(d.update_window_dims()), Ints(d.inserted_window_dims()),
          Ints(d.scatter_dims_to_operand_dims()), d.index_vector_dim(),
          Ints(d.input_batching_dims()), Ints(d.scatter_indices_batching_dims())};
      any = true;
    }
    return any;
  }

  // The window, group counts, slices, dynamic-slice and gather slice sizes
  // and padding; whether any was set.
  static bool ReadWindowsAndSlices(const pb::HloInstructionProto& p, ir::HloAttributes& a) {
    bool any = false;
    if (p.has_window()) {
      a.window.emplace();
      for (const pb::WindowDimension& d : p.window().dimensions()) {
        a.window->dimensions.push_back({d.size(), d.stride(), d.padding_low(), d.padding_high(),
                                        d.window_dilation(), d.base_dilation(), d.window_reversal()});
      }
      any = true;
    }
    if (p.feature_group_count() > 1) {
      a.feature_group_count = p.feature_group_count();
      any = true;
    }
    if (p.batch_group_count() > 1) {
      a.batch_group_count = p.batch_group_count();
      any = true;
    }
    for (const auto& d : p.slice_dimensions()) {
      a.slice.push_back({d.start(), d.limit(), d.stride()});
      any = true;
    }
    if (p.dynamic_slice_sizes_size() > 0) {
      a.dynamic_slice_sizes = Ints(p.dynamic_slice_sizes());
      any = true;
    }
    for (const auto& d : p.padding_config().dimensions()) {
      a.padding.push_back({d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
      any = true;
    }
    if (p.gather_slice_sizes_size() > 0) {
      a.gather_slice_sizes = Ints(p.gather_slice_sizes());
      any = true;
    }
    return any;
  }

  void ReadAttributes(const pb::HloInstructionProto& p, ir::InstructionId id) {
    using O = ir::Opcode;
    const O opcode = module_.instruction(id).opcode;
    ir::HloAttributes a;
    bool any = false;
    auto set = [&any](auto& field, auto value) {
      field = std::move(value);
      any = true;
    };
    if (opcode == O::kParameter) set(a.parameter_number, p.parameter_number());
    if (opcode == O::kGetTupleElement) set(a.tuple_index, p.tuple_index());
    if (opcode == O::kIota && p.dimensions_size() > 0) {
      set(a.iota_dimension, p.dimensions(0));  // XLA stores iota_dimension in dimensions
    } else if (p.dimensions_size() > 0) {
      set(a.dimensions, Ints(p.dimensions()));
    }
    any |= ReadDimensionNumbers(p, a);
    any |= ReadWindowsAndSlices(p, a);
    ReadReplicaGroups(p, a, any);
    if (p.channel_id() > 0) set(a.channel_id, p.channel_id());
    if (p.use_global_device_ids()) set(a.use_global_device_ids, true);
    for (const pb::SourceTarget& pair : p.source_target_pairs()) {
      a.source_target_pairs.emplace_back(pair.source(), pair.target());
      any = true;
    }
    if (!p.custom_call_target().empty()) set(a.custom_call_target, View(p.custom_call_target()));
    if (!p.fusion_kind().empty()) set(a.fusion_kind, View(p.fusion_kind()));
    if (!p.comparison_direction().empty()) set(a.comparison_direction, View(p.comparison_direction()));
    if (!p.backend_config().empty()) set(a.backend_config, View(p.backend_config()));
    if (p.has_sharding()) {
      absl::StatusOr<ir::HloSharding> sharding = OpShardingFromBytes(p.sharding());
      if (sharding.ok()) {
        set(a.sharding, *std::move(sharding));
      } else {
        diagnostics_.Warn(StrCat("sharding not understood (ignored): ", sharding.status().message()),
                          StrCat("HloModuleProto instruction '", p.name(), "'"));
      }
    }
    if (!p.frontend_attributes().map().empty()) {
      set(a.frontend_attributes, FrontendAttributes(p.frontend_attributes()));
    }
    if (any) module_.mutable_attributes(id) = std::move(a);
  }

  static ir::MeshAxesGroups MeshAxes(const pb::MeshAxesReplicaGroupListProto& list) {
    ir::MeshAxesGroups mesh;
    for (const pb::ReplicaGroupMeshProto::MeshAxis& axis : list.mesh().axes()) {
      mesh.axis_sizes.push_back(axis.size());
    }
    mesh.device_ids = Ints(list.mesh().device_ids());
    if (list.mesh().has_iota_transform()) {
      mesh.device_reshape_dims = Ints(list.mesh().iota_transform().reshape_dims());
      mesh.device_transpose_perm = Ints(list.mesh().iota_transform().transpose_perm());
    }
    for (const pb::ReplicaGroupAxisRefProto& ref : list.axes()) {
      ir::MeshAxesGroups::AxisRef r;
      r.axis = ref.mesh_axis_index();
      if (ref.has_sub_axis_info()) {
        r.is_sub_axis = true;
        r.pre_size = ref.sub_axis_info().pre_size();
        r.sub_size = ref.sub_axis_info().size();
      }
      mesh.group_axes.push_back(r);
    }
    return mesh;
  }

  void ReadReplicaGroups(const pb::HloInstructionProto& p, ir::HloAttributes& a, bool& any) {
    if (p.has_mesh_axes_replica_group_list()) {
      absl::StatusOr<ir::ReplicaGroups> groups =
          ir::MeshAxesToReplicaGroups(MeshAxes(p.mesh_axes_replica_group_list()));
      if (groups.ok()) {
        a.replica_groups = *std::move(groups);
        any = true;
      } else {
        diagnostics_.Warn(StrCat("replica groups not understood (ignored): ",
                                 groups.status().message()),
                          StrCat("HloModuleProto instruction '", p.name(), "'"));
      }
      return;
    }
    const pb::CollectiveDeviceListProto& list = p.collective_device_list();
    if (list.has_iota_replica_group_list()) {
      const pb::IotaReplicaGroupListProto& iota = list.iota_replica_group_list();
      ir::IotaDevices devices;
      devices.dims = {iota.num_replica_groups(), iota.num_devices_per_group()};
      devices.reshape_dims = Ints(iota.iota_reshape_dims());
      devices.transpose_perm = Ints(iota.iota_transpose_perm());
      a.replica_groups.iota = std::move(devices);
      any = true;
      return;
    }
    const auto& groups = list.replica_groups_size() > 0 ? list.replica_groups() : p.replica_groups();
    for (const pb::ReplicaGroup& group : groups) {
      a.replica_groups.explicit_groups.push_back(Ints(group.replica_ids()));
      any = true;
    }
  }

  absl::Status Error(const pb::HloInstructionProto& proto, std::string_view message) const {
    return absl::InvalidArgumentError(StrCat("HloModuleProto '", proto_.name(), "', instruction '",
                                             proto.name(), "': ", message));
  }

  std::string Where(const GraphProblem& problem) const {
    std::string where;
    if (module_.contains(problem.computation)) {
      StrAppend(&where, "computation '", module_.computation(problem.computation).name, "'");
    }
    if (module_.contains(problem.instruction)) {
      StrAppend(&where, where.empty() ? "" : ", ", "instruction '",
                module_.instruction(problem.instruction).name, "'");
    }
    return where.empty() ? where : where + ": ";
  }

  const pb::HloModuleProto& proto_;
  ir::Module& module_;
  ir::Diagnostics& diagnostics_;
  absl::flat_hash_map<int64_t, ir::InstructionId> instructions_by_id_;
  absl::flat_hash_map<int64_t, ir::ComputationId> computations_by_id_;
  std::vector<const pb::HloInstructionProto*> protos_;  // by InstructionId
  absl::flat_hash_map<std::string, std::string_view> interned_;
};

}  // namespace

absl::Status ModuleFromProto(const xla_subset::HloModuleProto& proto, ir::Module* module,
                             ir::Diagnostics* diagnostics) {
  ProtoModuleBuilder builder(proto, *module, *diagnostics);
  return builder.Build();
}

}  // namespace memplan::parsers
