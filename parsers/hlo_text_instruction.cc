// One HLO instruction: "[ROOT] [%]name = shape opcode(operands), key=value,
// ...", and the one-line entry point ParseHloInstructionText.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/hlo_text_internal.h"
#include "parsers/hlo_text_parser.h"

namespace memplan::parsers {
namespace hlo_text {
namespace {

// ir::OpcodeFromName through a hash table: one lookup per instruction.
ir::Opcode LookupOpcode(std::string_view name) {
  static const auto* const kOpcodes = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, ir::Opcode>();
    // Opcodes are numbered from 1; past the last, OpcodeName says "unknown".
    for (int i = 1; i < 256; ++i) {
      const auto opcode = static_cast<ir::Opcode>(i);
      const std::string_view name = ir::OpcodeName(opcode);
      if (name == ir::OpcodeName(ir::Opcode::kUnknown)) break;
      map->emplace(ToAbsl(name), opcode);
    }
    return map;
  }();
  auto it = kOpcodes->find(ToAbsl(name));
  return it == kOpcodes->end() ? ir::Opcode::kUnknown : it->second;
}

// One operand: "%name", "name", "%name#N" (element N of a tuple, newer
// XLA), or (older XLA) "shape %name".
bool ParseOperand(Scanner& s, InstructionNames& names) {
  const char* start = s.pos();
  if (s.Peek() != '%') {
    // A shape first? Its element type is followed by '[', a tuple by '('.
    bool has_shape = s.Peek() == '(';
    if (!has_shape) {
      s.ConsumeName();
      has_shape = s.Peek() == '[';
      s.set_pos(start);
    }
    if (has_shape) {
      if (!SkipShapeAt(s)) return false;
      s.Skip();
    }
  }
  const char* at = s.pos();
  const std::string_view name = s.ConsumeReference();
  if (name.empty()) return s.Fail("expected an operand name");
  NameRef ref{name, at};
  if (s.ConsumeChar('#')) {
    if (!s.ConsumeInt(&ref.tuple_index) || ref.tuple_index < 0) {
      return s.Fail("expected a tuple index (0, 1, ...) after '#'");
    }
    ref.element = std::string_view(name.data(), static_cast<size_t>(s.pos() - name.data()));
  }
  names.operands.push_back(ref);
  return true;
}

// "(...)" after the opcode: operand names, a parameter number, or a
// constant's literal (skipped).
bool ParseOperands(Scanner& s, const InstructionSink& sink) {
  ir::Instruction& instruction = *sink.instruction;
  const char* open = s.pos();
  if (!s.ConsumeChar('(')) return s.Fail("expected '(' after the opcode");
  if (instruction.opcode == ir::Opcode::kConstant) {
    s.set_pos(open);
    if (!s.SkipBalanced('(', ')')) return s.Fail(open, "expected ')' closing the literal");
    return true;
  }
  s.Skip();
  if (instruction.opcode == ir::Opcode::kParameter) {
    int64_t number = 0;
    if (!s.ConsumeInt(&number) || number < 0) {
      return s.Fail("expected a parameter number (0, 1, ...)");
    }
    sink.attributes().parameter_number = number;
    if (!s.Next(')')) return s.Fail("expected ')' after the parameter number");
    return true;
  }
  if (s.ConsumeChar(')')) return true;
  while (true) {
    if (!ParseOperand(s, *sink.names)) return false;
    s.Skip();
    if (s.ConsumeChar(')')) return true;
    if (!s.ConsumeChar(',')) return s.Fail("expected ',' or ')' after an operand");
    s.Skip();
  }
}

}  // namespace

bool ParseInstruction(Scanner& s, Warner& warner, const InstructionSink& sink) {
  ir::Instruction& instruction = *sink.instruction;
  if (s.ConsumeWord("ROOT")) {
    instruction.is_root = true;
    s.Skip();
  }
  instruction.name = s.ConsumeReference();
  if (instruction.name.empty()) return s.Fail("expected an instruction name");
  if (!s.Next('=')) return s.Fail("expected '=' after the instruction name");
  s.Skip();
  {
    ir::Shape shape;
    if (!ParseShapeAt(s, &shape)) return false;
    instruction.shape = sink.intern_shape(shape);
  }
  s.Skip();
  const char* opcode_at = s.pos();
  instruction.opcode_text = s.ConsumeName();
  if (instruction.opcode_text.empty()) return s.Fail("expected an opcode");
  instruction.opcode = LookupOpcode(instruction.opcode_text);
  if (instruction.opcode == ir::Opcode::kUnknown) {
    warner.Warn(StrCat("unknown HLO opcode '", instruction.opcode_text, "' (kept as written)"),
                opcode_at);
  }
  s.Skip();
  if (!ParseOperands(s, sink)) return false;
  while (true) {
    const char* before = s.pos();
    s.Skip();
    if (!s.ConsumeChar(',')) {
      s.set_pos(before);
      break;
    }
    s.Skip();
    const char* key_at = s.pos();
    const std::string_view key = s.ConsumeName();
    if (key.empty()) return s.Fail("expected an attribute name");
    if (!s.Next('=')) return s.Fail(StrCat("expected '=' after attribute '", key, "'"));
    s.Skip();
    if (!ParseAttribute(s, warner, key, key_at, sink)) return false;
  }
  // XLA's called_computations() order: while body before condition, true
  // before false, select before scatter, whatever order the text has.
  std::vector<CallRef>& calls = sink.names->calls;
  if (calls.size() > 1) {
    std::stable_sort(calls.begin(), calls.end(),
                     [](const CallRef& a, const CallRef& b) { return a.rank < b.rank; });
  }
  return true;
}

}  // namespace hlo_text

absl::Status ParseHloInstructionText(
    const SourceText& source, std::string_view text,
    absl::FunctionRef<ir::InstructionId(std::string_view name)> resolve_instruction,
    absl::FunctionRef<ir::ComputationId(std::string_view name)> resolve_computation,
    ir::ShapePool* shapes, ir::MetadataPool* metadata_pool, ir::Instruction* instruction, ir::HloAttributes* attributes,
    ir::Diagnostics* diagnostics) {
  using hlo_text::NameRef;
  hlo_text::Scanner s(text.data(), text.data() + text.size());
  hlo_text::Warner warner(source, *diagnostics);
  hlo_text::InstructionNames names;
  auto attributes_of = [&]() -> ir::HloAttributes& { return *attributes; };
  auto intern_shape = [shapes](const ir::Shape& shape) { return shapes->Intern(shape); };
  auto store_metadata = [metadata_pool](const ir::OpMetadata& m) { return metadata_pool->Store(m); };
  const hlo_text::InstructionSink sink{instruction, attributes_of, intern_shape, store_metadata,
                                       &names};
  s.Skip();
  bool ok = hlo_text::ParseInstruction(s, warner, sink);
  if (ok) {
    s.Skip();
    if (!s.AtEnd()) ok = s.Fail("expected ',' and an attribute, or the end of the instruction");
  }
  if (!ok) return source.ErrorAt(s.error_at(), s.error());
  for (const NameRef& ref : names.operands) {
    const std::string_view name = ref.tuple_index >= 0 ? ref.element : ref.name;
    const ir::InstructionId id = resolve_instruction(name);
    if (!id.valid()) {
      return source.ErrorAt(ref.at, StrCat("expected the name of a known instruction, not '",
                                           name, "'"));
    }
    instruction->operands.push_back(id);
  }
  for (const NameRef& ref : names.control_predecessors) {
    const ir::InstructionId id = resolve_instruction(ref.name);
    if (!id.valid()) {
      return source.ErrorAt(ref.at, StrCat("expected the name of a known instruction, not '",
                                           ref.name, "'"));
    }
    instruction->control_predecessors.push_back(id);
  }
  for (const hlo_text::CallRef& call : names.calls) {
    const ir::ComputationId id = resolve_computation(call.name.name);
    if (!id.valid()) {
      return source.ErrorAt(call.name.at, StrCat("expected the name of a known computation, not '",
                                                 call.name.name, "'"));
    }
    instruction->calls.push_back({id, call.role});
  }
  return absl::OkStatus();
}

}  // namespace memplan::parsers
