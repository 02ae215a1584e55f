// Pieces the HLO text parser's files share (parsers/hlo_text_*.cc); not for
// use elsewhere. The instruction parser reads names, not ids: what an
// instruction names is returned as NameRefs for the module parser (or the
// one-line entry point) to resolve.
#ifndef MEMPLAN_PARSERS_HLO_TEXT_INTERNAL_H_
#define MEMPLAN_PARSERS_HLO_TEXT_INTERNAL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "ir/diagnostics.h"
#include "ir/module.h"
#include "parsers/hlo_text_scanner.h"
#include "parsers/source_text.h"

namespace memplan::parsers::hlo_text {

// A name as the text spells it (without '%') and where. XLA prints a
// get-tuple-element at its users as "%x#N" (and no line of its own): then
// `name` is x, `tuple_index` N and `element` the whole "x#N".
struct NameRef {
  NameRef() = default;
  NameRef(std::string_view name, const char* at) : name(name), at(at) {}
  std::string_view name;
  const char* at = nullptr;
  int64_t tuple_index = -1;
  std::string_view element;
};

struct CallRef {
  NameRef name;
  ir::CallRole role = ir::CallRole::kCalled;
  // 0 for the computation XLA lists first whatever the text's order (while
  // body, true branch, select), else 1.
  int rank = 1;
};

// What one instruction names, in XLA's order (calls as XLA's
// called_computations(): while body before condition, true before false,
// select before scatter).
struct InstructionNames {
  std::vector<NameRef> operands;
  std::vector<CallRef> calls;
  std::vector<NameRef> control_predecessors;
  // Typed attribute keys already read (bit per key), to reject repeats.
  uint64_t typed_keys_seen = 0;
  void clear() {
    operands.clear();
    calls.clear();
    control_predecessors.clear();
    typed_keys_seen = 0;
  }
};

// Turns "first occurrence of a warning kind" into file:line:col. Warnings
// come in text order, so each lookup scans forward from the previous one:
// linear in the text however many kinds there are.
class Warner {
 public:
  Warner(const SourceText& source, ir::Diagnostics& diagnostics)
      : source_(source), diagnostics_(diagnostics), line_start_(source.text().data()) {}
  void Warn(std::string_view kind, const char* at);

 private:
  const SourceText& source_;
  ir::Diagnostics& diagnostics_;
  const char* scanned_ = nullptr;  // bytes before this are counted
  const char* line_start_;
  int64_t line_ = 1;
};

// Where the instruction parser writes. `attributes` creates the
// instruction's attribute set on first use (it refers to a callable that
// must outlive the sink: bind a named lambda, not a temporary).
struct InstructionSink {
  ir::Instruction* instruction;
  absl::FunctionRef<ir::HloAttributes&()> attributes;
  // The shared copy of a shape read, for the instruction (Module::InternShape).
  absl::FunctionRef<ir::SharedShape(const ir::Shape&)> intern_shape;
  // The stored copy of metadata read, for the instruction (Module::StoreMetadata).
  absl::FunctionRef<ir::SharedMetadata(const ir::OpMetadata&)> store_metadata;
  InstructionNames* names;
};

// One instruction at the scanner (after Skip()): "[ROOT] [%]name = shape
// opcode(operands)[, attribute=value]...". Stops after the last attribute.
bool ParseInstruction(Scanner& s, Warner& warner, const InstructionSink& sink);

// One attribute value for `key` of an instruction with `opcode`, the scanner
// just past '='. Typed attributes go to sink.attributes(), names to
// sink.names, metadata to the instruction; others are kept as text.
bool ParseAttribute(Scanner& s, Warner& warner, std::string_view key, const char* key_at,
                    const InstructionSink& sink);

// The text of an attribute value memplan does not type: a quoted string, a
// balanced {...}, or a run up to the next top-level ',' or line end
// (brackets and parentheses balanced: "[2,4]<=[8]", "b01f_01io->b01f").
bool ConsumeValueText(Scanner& s, std::string_view* value);

// A shape at the scanner ("f32[8]{0}", "(f32[], s32[2]{0})").
bool ParseShapeAt(Scanner& s, ir::Shape* shape);
// The same, checking the shape without keeping it (no allocation).
bool SkipShapeAt(Scanner& s);

// Structured attribute values (hlo_text_values.cc), the scanner at the
// value: window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=.. rhs_dilate=..
// rhs_reversal=..}; dim_labels=b01f_01io->b01f; slice={[0:8], [0:8:2]};
// padding=0_0x1_2_1; replica_groups={{0,1},{2,3}} or [2,4]<=[8] or
// [4,2]<=[2,4]T(1,0) or mesh['x'=2,'y'=4] {'x'}; source_target_pairs=
// {{0,1},{1,2}}.
bool ParseWindow(Scanner& s, ir::Window* window);
bool ParseDimLabels(Scanner& s, ir::ConvolutionDimensionNumbers* out);
bool ParseSlice(Scanner& s, ir::ThinVector<ir::SliceDimension>* out);
bool ParsePadding(Scanner& s, ir::ThinVector<ir::PadDimension>* out);
bool ParseReplicaGroups(Scanner& s, ir::ReplicaGroups* out);
bool ParseSourceTargetPairs(Scanner& s, ir::ThinVector<std::pair<int64_t, int64_t>>* out);
// The mesh-axes form of replica groups (hlo_text_mesh_groups.cc, ir/mesh_axes_groups.h):
// mesh['x'=2,'y'=4][, device_ids=([4,2]T(1,0))] {'x', 'y':(1)2}.
bool ParseMeshAxesReplicaGroups(Scanner& s, ir::ReplicaGroups* out);

// "{1,2,3}" (possibly empty) into `out`.
bool ParseIntList(Scanner& s, std::vector<int64_t>* out);
bool ParseIntList(Scanner& s, ir::ThinVector<int64_t>* out);

// The "HloModule name, key=value, ..." header into module->name and
// module->header; the scanner at "HloModule".
bool ParseModuleHeader(Scanner& s, Warner& warner, ir::Module* module);

// The FileNames / FunctionNames / FileLocations / StackFrames tables, if
// the scanner is at one, into module->stack_frames.
bool ParseStackFrameTables(Scanner& s, Warner& warner, ir::Module* module);

}  // namespace memplan::parsers::hlo_text

#endif  // MEMPLAN_PARSERS_HLO_TEXT_INTERNAL_H_
