// The HLO module text: header, stack-frame tables, then computations
// "[ENTRY] [%]name [(signature) -> shape] { instructions }", and the
// resolution of the names instructions use into ids.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "ir/strings.h"
#include "parsers/hlo_graph_checks.h"
#include "parsers/hlo_text_internal.h"
#include "parsers/hlo_text_name_table.h"
#include "parsers/hlo_text_parser.h"

namespace memplan::parsers {
namespace {

using hlo_text::CallRef;
using hlo_text::NameRef;
using hlo_text::Scanner;

// A name an instruction used before its computation defined it.
struct PendingOperand {
  ir::InstructionId user;
  uint32_t index;      // into operands or control_predecessors
  bool control;        // which of the two
  NameRef name;
};

// A called computation's name not defined yet where the call names it,
// resolved at the end of the module. (A computation defined before its
// callers, as XLA prints them, is looked up at once and never pending.)
struct PendingCall {
  ir::InstructionId caller;
  uint32_t index;  // into calls
  NameRef name;
};

// What has been parsed leaves resident memory every this many bytes
// (SourceText::ReleaseResident; the module's views map a page again when
// read).
constexpr size_t kReleaseEvery = size_t{4} << 20;

class ModuleTextParser {
 public:
  ModuleTextParser(const SourceText& source, ir::Module& module, ir::Diagnostics& diagnostics)
      : source_(source),
        module_(module),
        s_(source.text().data(), source.text().data() + source.text().size()),
        warner_(source, diagnostics),
        released_(source.text().data()) {}

  // Names resolve within their computation, so the graph holds
  // FindGraphProblem's checks by construction but two: operand cycles
  // (possible only through forward references) and recursion.
  absl::Status Run() {
    if (!Parse()) return source_.ErrorAt(s_.error_at(), s_.error());
    return absl::OkStatus();
  }

 private:
  bool Parse() {
    s_.Skip();
    if (!hlo_text::ParseModuleHeader(s_, warner_, &module_)) return false;
    if (!hlo_text::ParseStackFrameTables(s_, warner_, &module_)) return false;
    // An estimate of the instruction count (XLA prints 100 to 250 bytes per
    // instruction) saves most regrowth of the instruction vector.
    module_.Reserve(source_.text().size() / 100 + 16, 16);
    while (true) {
      s_.Skip();
      if (s_.AtEnd()) break;
      if (!ParseComputation()) return false;
    }
    if (module_.computations().empty()) return s_.Fail("expected a computation");
    if (!module_.entry.valid()) {
      // XLA's parser takes the last computation when none says ENTRY.
      module_.entry = module_.computations().back().id;
    }
    if (!ResolveCalls()) return false;
    if (std::optional<GraphProblem> problem = FindRecursion(module_, call_edges_)) {
      return s_.Fail(ProblemAt(*problem), problem->expected);
    }
    source_.ReleaseResident(released_, s_.end());
    return true;
  }

  // Lets the text parsed so far leave resident memory, kReleaseEvery bytes
  // at a time (a no-op unless the text is mapped).
  void ReleaseParsed() {
    if (static_cast<size_t>(s_.pos() - released_) < kReleaseEvery) return;
    source_.ReleaseResident(released_, s_.pos());
    released_ = s_.pos();
  }

  // "[ENTRY] [%]name [(params) -> shape] {" ... "}" [, execution_thread="..."]
  bool ParseComputation() {
    const char* entry_at = s_.pos();
    const bool is_entry = s_.ConsumeWord("ENTRY");
    s_.Skip();
    const char* name_at = s_.pos();
    const std::string_view name = s_.ConsumeReference();
    if (name.empty()) return s_.Fail("expected a computation name or ENTRY");
    s_.Skip();
    if (s_.Peek() == '(' && !s_.SkipBalanced('(', ')')) {
      return s_.Fail("expected ')' closing the computation's parameters");
    }
    s_.Skip();
    if (s_.Consume("->")) {
      s_.Skip();
      if (!hlo_text::SkipShapeAt(s_)) return false;
    }
    if (!s_.Next('{')) return s_.Fail("expected '{' opening the computation's instructions");

    ir::Computation computation;
    computation.name = name;
    const ir::ComputationId id = module_.AddComputation(std::move(computation));
    if (!computations_by_name_.emplace(std::string(name), id).second) {
      return s_.Fail(name_at, StrCat("expected a computation name not used before, not '", name, "'"));
    }
    if (is_entry) {
      if (module_.entry.valid()) return s_.Fail(entry_at, "expected one ENTRY computation");
      module_.entry = id;
    }
    names_.Clear();
    tuple_elements_.clear();
    pending_operands_.clear();
    parameters_.clear();
    while (true) {
      s_.Skip();
      if (s_.ConsumeChar('}')) break;
      if (s_.AtEnd()) return s_.Fail(StrCat("expected '}' closing computation '", name, "'"));
      ReleaseParsed();
      if (!ParseInstructionOf(id)) return false;
    }
    // XLA prints ", execution_thread=\"...\"" after a computation of
    // another thread.
    const char* after = s_.pos();
    s_.SkipBlanks();
    if (s_.ConsumeChar(',')) {
      s_.Skip();
      const std::string_view key = s_.ConsumeName();
      std::string_view value;
      if (key.empty() || !s_.Next('=') || (s_.Skip(), !hlo_text::ConsumeValueText(s_, &value))) {
        return s_.Fail("expected execution_thread=\"...\" after the computation");
      }
    } else {
      s_.set_pos(after);
    }
    return FinishComputation(id, name_at);
  }

  bool ParseInstructionOf(ir::ComputationId computation) {
    ir::Instruction blank;
    blank.computation = computation;
    const ir::InstructionId id = module_.AddInstruction(std::move(blank));
    ir::Instruction& instruction = module_.mutable_instruction(id);
    names_in_line_.clear();
    auto attributes = [&]() -> ir::HloAttributes& { return module_.mutable_attributes(id); };
    auto intern_shape = [&](const ir::Shape& shape) { return module_.InternShape(shape); };
    auto store_metadata = [&](const ir::OpMetadata& m) { return module_.StoreMetadata(m); };
    const hlo_text::InstructionSink sink{&instruction, attributes, intern_shape, store_metadata,
                                         &names_in_line_};
    if (!hlo_text::ParseInstruction(s_, warner_, sink)) return false;
    // Before the instruction joins its computation: a tuple element it reads
    // is listed before it.
    if (!ResolveOperands(id)) return false;
    module_.mutable_computation(computation).instructions.push_back(id);
    if (!FinishInstruction(id, computation)) return false;
    ShareSharding(id);
    ShareAttributeSet(id);
    return true;
  }

  // Equal shardings kept once: a sharding read with the same text as an
  // earlier one becomes a copy of that one, which shares its value (Boxed
  // copies share until written). Most entry parameters repeat one sharding.
  void ShareSharding(ir::InstructionId id) {
    if (module_.instruction(id).attributes < 0) return;
    const ir::HloAttributes& read = module_.attributes(id);
    if (!read.sharding) return;
    auto it = shardings_by_text_.find(ToAbsl(read.sharding_text));
    if (it == shardings_by_text_.end()) {
      shardings_by_text_.emplace(std::string(read.sharding_text), read.sharding);
      return;
    }
    if (it->second == read.sharding) module_.mutable_attributes(id).sharding = it->second;
  }

  // Keeps equal attribute sets once: `id` shares an earlier set equal to
  // its own when its set is the last made (not when a tuple element made
  // while resolving its operands came after it). Sets are complete here.
  // The table is by a 32-bit hash to the first set with it (8-byte
  // slots: one per distinct set of a large module); sets whose hash an
  // unequal earlier set has are listed apart.
  void ShareAttributeSet(ir::InstructionId id) {
    const int32_t k = module_.instruction(id).attributes;
    if (k < 0 || static_cast<size_t>(k) + 1 != module_.attribute_set_count()) return;
    if (id.value() > std::numeric_limits<int32_t>::max()) return;
    const int32_t own = static_cast<int32_t>(id.value());
    const ir::HloAttributes& set = module_.attributes(id);
    const uint32_t hash = static_cast<uint32_t>(AttributesHash(set));
    auto [first, inserted] = attribute_sets_.try_emplace(hash, own);
    if (inserted || ShareIfEqual(id, set, first->second)) return;
    std::vector<int32_t>& others = colliding_attribute_sets_[hash];
    for (int32_t earlier : others) {
      if (ShareIfEqual(id, set, earlier)) return;
    }
    others.push_back(own);
  }

  // Makes `id` (whose set is `set`) share the set of instruction `earlier`
  // when the two are equal.
  bool ShareIfEqual(ir::InstructionId id, const ir::HloAttributes& set, int32_t earlier) {
    const ir::InstructionId other(earlier);
    if (!(set == module_.attributes(other))) return false;
    module_.ShareAttributes(id, module_.instruction(other).attributes);
    return true;
  }

  // A hash of the fields most sets differ in (equal sets hash equal).
  static size_t AttributesHash(const ir::HloAttributes& a) {
    size_t h = absl::Hash<std::tuple<int64_t, int64_t, int64_t, int64_t, std::string_view,
                                     std::string_view, std::string_view, std::string_view,
                                     std::string_view, std::string_view, size_t, size_t>>()(
        std::make_tuple(a.iota_dimension, a.parameter_number, a.tuple_index, a.channel_id,
                        a.custom_call_target, a.fusion_kind, a.comparison_direction,
                        a.sharding_text, a.backend_config, a.frontend_attributes,
                        a.dimensions.size(), a.unknown.size()));
    for (int64_t d : a.dimensions) h = h * 1000003u + static_cast<size_t>(d);
    return h;
  }

  // The rest of ParseInstructionOf, once the operands are resolved (which
  // may add instructions: `id` is looked up again).
  bool FinishInstruction(ir::InstructionId id, ir::ComputationId computation) {
    ir::Instruction& instruction = module_.mutable_instruction(id);
    for (const NameRef& ref : names_in_line_.control_predecessors) {
      instruction.control_predecessors.push_back(
          Lookup(ref, id, instruction.control_predecessors.size(), true));
    }
    for (const CallRef& call : names_in_line_.calls) {
      auto known = computations_by_name_.find(ToAbsl(call.name.name));
      if (known == computations_by_name_.end()) {
        pending_calls_.push_back({id, static_cast<uint32_t>(instruction.calls.size()), call.name});
        instruction.calls.push_back({ir::ComputationId(), call.role});
      } else {
        instruction.calls.push_back({known->second, call.role});
      }
    }
    if (!names_.Insert(instruction.name, id)) {
      return s_.Fail(instruction.name.data(),
                     StrCat("expected an instruction name not used before in this computation, "
                            "not '", instruction.name, "'"));
    }
    if (instruction.is_root) {
      ir::Computation& c = module_.mutable_computation(computation);
      if (c.root.valid()) {
        return s_.Fail(instruction.name.data(), "expected one ROOT instruction per computation");
      }
      c.root = id;
    }
    if (instruction.opcode == ir::Opcode::kParameter) {
      parameters_.emplace_back(module_.attributes(id).parameter_number, id);
    }
    return true;
  }

  bool ResolveOperands(ir::InstructionId user) {
    const std::vector<NameRef>& refs = names_in_line_.operands;
    module_.mutable_instruction(user).operands.reserve(refs.size());
    for (size_t k = 0; k < refs.size(); ++k) {
      ir::InstructionId operand = Lookup(refs[k], user, k, false);
      if (refs[k].tuple_index >= 0 && operand.valid() &&
          !TupleElement(operand, refs[k], /*after_tuple=*/false, &operand)) {
        return false;
      }
      module_.mutable_instruction(user).operands.push_back(operand);
    }
    return true;
  }

  // The get-tuple-element of `tuple` that `ref` ("x#N") names, made on first
  // use: listed last so far (before the user about to be listed), or right
  // after `tuple` when the user came first in the text.
  bool TupleElement(ir::InstructionId tuple, const NameRef& ref, bool after_tuple,
                    ir::InstructionId* out) {
    const auto key = std::make_pair(tuple.value(), ref.tuple_index);
    if (auto it = tuple_elements_.find(key); it != tuple_elements_.end()) {
      *out = it->second;
      return true;
    }
    const ir::Instruction& source = module_.instruction(tuple);
    if (source.shape->dtype != ir::DType::kTuple ||
        ref.tuple_index >= static_cast<int64_t>(source.shape->tuple_elements.size())) {
      return s_.Fail(ref.at, StrCat("expected '", ref.name, "' to be a tuple of more than ",
                                    ref.tuple_index, " elements (for '#", ref.tuple_index, "')"));
    }
    ir::Instruction element;
    element.computation = source.computation;
    element.name = ref.element;
    element.opcode = ir::Opcode::kGetTupleElement;
    element.opcode_text = ir::OpcodeName(ir::Opcode::kGetTupleElement);
    element.shape = module_.InternShape(source.shape->tuple_elements[ref.tuple_index]);
    element.operands.push_back(tuple);
    const ir::InstructionId id = module_.AddInstruction(std::move(element));
    module_.mutable_attributes(id).tuple_index = ref.tuple_index;
    std::vector<ir::InstructionId>& order =
        module_.mutable_computation(module_.instruction(id).computation).instructions;
    if (after_tuple) {
      order.insert(std::find(order.begin(), order.end(), tuple) + 1, id);
    } else {
      order.push_back(id);
    }
    tuple_elements_.emplace(key, id);
    *out = id;
    return true;
  }

  // The id `ref` names in the current computation; else an invalid id, and
  // the name waits for the end of the computation.
  ir::InstructionId Lookup(const NameRef& ref, ir::InstructionId user, size_t index, bool control) {
    if (ir::InstructionId found = names_.Find(ref.name); found.valid()) return found;
    pending_operands_.push_back({user, static_cast<uint32_t>(index), control, ref});
    return ir::InstructionId();
  }

  bool FinishComputation(ir::ComputationId id, const char* name_at) {
    ir::Computation& c = module_.mutable_computation(id);
    if (c.instructions.empty()) return s_.Fail(name_at, "expected at least one instruction in the computation");
    if (!c.root.valid()) {
      c.root = c.instructions.back();  // as XLA's parser: the last instruction
      module_.mutable_instruction(c.root).is_root = true;
    }
    for (const PendingOperand& pending : pending_operands_) {
      ir::InstructionId operand = names_.Find(pending.name.name);
      if (!operand.valid()) {
        return s_.Fail(pending.name.at, StrCat("expected the name of an instruction of computation '",
                                               c.name, "', not '", pending.name.name, "'"));
      }
      if (pending.name.tuple_index >= 0 &&
          !TupleElement(operand, pending.name, /*after_tuple=*/true, &operand)) {
        return false;
      }
      ir::Instruction& user = module_.mutable_instruction(pending.user);
      if (pending.control) {
        user.control_predecessors[pending.index] = operand;
      } else {
        user.operands[pending.index] = operand;
      }
    }
    // Every name of the computation is resolved: its name table goes now,
    // not when the next computation starts (the last computation, the
    // entry, is usually the largest, and the parse's peak came after it).
    names_.Clear();
    // Only a name used before its definition can close a cycle.
    if (!pending_operands_.empty()) {
      if (std::optional<GraphProblem> problem = FindOperandCycle(module_, id)) {
        return s_.Fail(ProblemAt(*problem), problem->expected);
      }
    }
    // Parameters by number: each number once, all below the number of
    // parameters (XLA numbers them 0..n-1).
    c.parameters.assign(parameters_.size(), ir::InstructionId());
    for (const auto& [number, parameter] : parameters_) {
      const char* at = module_.instruction(parameter).name.data();
      if (number >= static_cast<int64_t>(parameters_.size())) {
        return s_.Fail(at, StrCat("expected parameter numbers 0..", parameters_.size() - 1,
                                  " in a computation of ", parameters_.size(),
                                  " parameters, not ", number));
      }
      if (c.parameters[number].valid()) {
        return s_.Fail(at, StrCat("expected parameter number ", number, " to be used once"));
      }
      c.parameters[number] = parameter;
    }
    return true;
  }

  // Resolves the pending calls (in text order: the first unknown name is
  // the error), then lists every call edge in text order (instructions by
  // id, each one's calls in order).
  bool ResolveCalls() {
    for (const PendingCall& pending : pending_calls_) {
      auto it = computations_by_name_.find(ToAbsl(pending.name.name));
      if (it == computations_by_name_.end()) {
        return s_.Fail(pending.name.at,
                       StrCat("expected the name of a computation of this module, not '",
                              pending.name.name, "'"));
      }
      module_.mutable_instruction(pending.caller).calls[pending.index].computation = it->second;
    }
    size_t edges = 0;
    for (const ir::Instruction& caller : module_.instructions()) edges += caller.calls.size();
    call_edges_.reserve(edges);
    for (const ir::Instruction& caller : module_.instructions()) {
      for (const ir::CalledComputation& call : caller.calls) {
        call_edges_.emplace_back(caller.computation, call.computation);
      }
    }
    return true;
  }

  const char* ProblemAt(const GraphProblem& problem) const {
    if (module_.contains(problem.instruction)) {
      return module_.instruction(problem.instruction).name.data();
    }
    if (module_.contains(problem.computation)) {
      return module_.computation(problem.computation).name.data();
    }
    return source_.text().data();
  }

  const SourceText& source_;
  ir::Module& module_;
  Scanner s_;
  hlo_text::Warner warner_;
  // Keys are copies: calls look names up all through the module, and views
  // would map the released text of every computation's header back in.
  absl::flat_hash_map<std::string, ir::ComputationId> computations_by_name_;
  // Per computation: instructions by name, names used before definition,
  // (number, id) of its parameters.
  hlo_text::InstructionNameTable names_;
  // (tuple id, N) -> the get-tuple-element made for "x#N".
  absl::flat_hash_map<std::pair<int64_t, int64_t>, ir::InstructionId> tuple_elements_;
  // By AttributesHash (its low 32 bits), the first instruction of each
  // distinct attribute set; those whose hash an unequal earlier set has,
  // apart (ShareAttributeSet).
  absl::flat_hash_map<uint32_t, int32_t> attribute_sets_;
  absl::flat_hash_map<uint32_t, std::vector<int32_t>> colliding_attribute_sets_;
  // Shardings read so far by their text (ShareSharding).
  absl::flat_hash_map<std::string, ir::Boxed<ir::HloSharding>> shardings_by_text_;
  std::vector<PendingOperand> pending_operands_;
  std::vector<std::pair<int64_t, ir::InstructionId>> parameters_;
  std::vector<PendingCall> pending_calls_;
  std::vector<std::pair<ir::ComputationId, ir::ComputationId>> call_edges_;  // (caller, callee)
  hlo_text::InstructionNames names_in_line_;
  const char* released_;  // text before this has left resident memory
};

}  // namespace

absl::Status ParseHloModuleText(const SourceText& source, ir::Module* module,
                                ir::Diagnostics* diagnostics) {
  ModuleTextParser parser(source, *module, *diagnostics);
  return parser.Run();
}

bool LooksLikeHloModuleText(std::string_view head) {
  hlo_text::Scanner s(head.data(), head.data() + head.size());
  s.Skip();
  return s.Consume("HloModule ") || s.Consume("HloModule\t");
}

}  // namespace memplan::parsers
