// The typed attributes of an HLO instruction that memplan's analyses read:
// dimension numbers, windows, slices, padding, gather/scatter numbers,
// replica groups and the like, as XLA's HloInstruction holds them. The HLO
// text parser and the HloProto reader fill the same structs, so both inputs
// give the same graph. Text an analysis does not need (backend_config,
// frontend_attributes, a sharding not yet parsed) stays as text; attributes
// memplan does not know are kept as (key, value) text and counted.
#ifndef MEMPLAN_IR_HLO_ATTRIBUTES_H_
#define MEMPLAN_IR_HLO_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/boxed.h"
#include "ir/iota.h"
#include "ir/sharding.h"
#include "ir/thin_vector.h"

namespace memplan::ir {

// dot: lhs_batch_dims, lhs_contracting_dims, rhs_batch_dims, rhs_contracting_dims.
struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch;
  std::vector<int64_t> rhs_batch;
  std::vector<int64_t> lhs_contracting;
  std::vector<int64_t> rhs_contracting;
  friend bool operator==(const DotDimensionNumbers&, const DotDimensionNumbers&) = default;
};

// One spatial dimension of a window: "size=3 stride=2 pad=1_1 lhs_dilate=1
// rhs_dilate=1 rhs_reversal=0" (XLA prints the dimensions joined by 'x').
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // rhs_dilate
  int64_t base_dilation = 1;    // lhs_dilate
  bool window_reversal = false;
  friend bool operator==(const WindowDimension&, const WindowDimension&) = default;
};

struct Window {
  std::vector<WindowDimension> dimensions;
  friend bool operator==(const Window&, const Window&) = default;
};

// Which dimension of input, kernel and output is batch, feature and spatial:
// XLA prints it as dim_labels, e.g. "b01f_01io->b01f".
struct ConvolutionDimensionNumbers {
  int64_t input_batch = 0;
  int64_t input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0;
  int64_t kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0;
  int64_t output_feature = 0;
  std::vector<int64_t> output_spatial;
  friend bool operator==(const ConvolutionDimensionNumbers&,
                         const ConvolutionDimensionNumbers&) = default;
};

// slice={[0:8:1], [2:4]}: [start, limit) with a stride, per dimension.
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  friend bool operator==(const SliceDimension&, const SliceDimension&) = default;
};

// padding=0_0x1_2_1: low, high and interior padding per dimension.
struct PadDimension {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  friend bool operator==(const PadDimension&, const PadDimension&) = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  friend bool operator==(const GatherDimensionNumbers&, const GatherDimensionNumbers&) = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  friend bool operator==(const ScatterDimensionNumbers&, const ScatterDimensionNumbers&) = default;
};

// replica_groups={{0,1},{2,3}} (explicit) or replica_groups=[2,2]<=[4]
// (iota: dims are [number of groups, group size]). Empty groups mean "all
// devices in one group", as XLA reads them.
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> explicit_groups;
  Boxed<IotaDevices> iota;

  bool empty() const { return explicit_groups.empty() && !iota.has_value(); }
  // The groups as lists of device (or replica/partition) ids, whichever form
  // was given. InvalidArgument for an inconsistent iota form.
  absl::StatusOr<std::vector<std::vector<int64_t>>> Groups() const;
  friend bool operator==(const ReplicaGroups&, const ReplicaGroups&) = default;
};

// An attribute the parser does not model, kept as written.
struct UnknownAttribute {
  std::string_view key;
  std::string_view value;
  friend bool operator==(const UnknownAttribute&, const UnknownAttribute&) = default;
};

// Everything beyond opcode, shape, operands, called computations and
// metadata. The large, seldom-set fields (dimension numbers, the sharding)
// are Boxed: an optional on the heap, one pointer wide when empty. Fields not meaningful for an opcode stay empty. Text fields are
// views into input the owning Program keeps alive.
struct HloAttributes {
  // broadcast, reduce, transpose, concatenate, reverse, sort, all-gather,
  // reduce-scatter, all-to-all: "dimensions={...}".
  ThinVector<int64_t> dimensions;
  int64_t iota_dimension = -1;     // iota
  int64_t parameter_number = -1;   // parameter
  int64_t tuple_index = -1;        // get-tuple-element "index=N"

  Boxed<DotDimensionNumbers> dot;
  Boxed<Window> window;  // convolution, reduce-window, select-and-scatter
  Boxed<ConvolutionDimensionNumbers> convolution;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;

  ThinVector<SliceDimension> slice;         // slice
  ThinVector<int64_t> dynamic_slice_sizes;  // dynamic-slice
  ThinVector<PadDimension> padding;         // pad

  Boxed<GatherDimensionNumbers> gather;
  ThinVector<int64_t> gather_slice_sizes;
  Boxed<ScatterDimensionNumbers> scatter;

  // Collectives.
  ReplicaGroups replica_groups;
  int64_t channel_id = 0;  // 0: none
  bool use_global_device_ids = false;
  ThinVector<std::pair<int64_t, int64_t>> source_target_pairs;  // collective-permute

  std::string_view custom_call_target;    // custom-call
  std::string_view fusion_kind;           // fusion: "kLoop", "kInput", "kOutput", "kCustom"
  std::string_view comparison_direction;  // compare: "EQ", "LT", ...

  // The instruction's sharding (sharding={...}, HloInstructionProto field
  // 40), as XLA states it; absent when none is stated or it did not read
  // (then sharding_text still holds it and the parser warned).
  Boxed<HloSharding> sharding;
  std::string_view sharding_text;  // the text as written (text input only)
  std::string_view backend_config;       // as written, quotes removed
  std::string_view frontend_attributes;  // as written, braces included

  ThinVector<UnknownAttribute> unknown;

  friend bool operator==(const HloAttributes&, const HloAttributes&) = default;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_HLO_ATTRIBUTES_H_
