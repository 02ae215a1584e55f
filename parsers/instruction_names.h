// Turning the instruction names an input prints into ids of the program
// graph. A buffer-assignment dump, an OOM message or a report names
// instructions; when the module's text was read first they resolve to its
// instructions, otherwise each new name becomes an instruction known only by
// name (no computation), which the input's own lines may describe further.
// This is the one place where names are joined; analyses follow ids.
#ifndef MEMPLAN_PARSERS_INSTRUCTION_NAMES_H_
#define MEMPLAN_PARSERS_INSTRUCTION_NAMES_H_

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "parsers/name_table.h"
#include "parsers/text_arena.h"

namespace memplan::parsers {

// What an input says of an instruction besides its name; empty fields say
// nothing.
struct InstructionFacts {
  std::string_view opcode;
  ir::OpMetadata metadata;
  std::optional<ir::Shape> shape;
};

class InstructionNames {
 public:
  // Indexes the instructions `module` already holds. `module` must outlive
  // this object, and its names must stay valid as long as it does.
  explicit InstructionNames(ir::Module& module);

  // From now on, the names of instructions Resolve adds are copied into
  // `arena`, and the texts Describe records (opcode, metadata, layout
  // details) are copied through `interner`, so that nothing recorded points
  // into the input. Both must outlive every use of the module's texts.
  void CopyTextsInto(TextArena* arena, TextInterner* interner) {
    arena_ = arena;
    interner_ = interner;
  }

  // The instruction named `name`, added (known only by name) when the module
  // has none. Without CopyTextsInto, `name` must stay valid as long as the
  // module (a view into input the Program keeps alive); with it, the added
  // instruction's name is a copy. Requires a non-empty name.
  ir::InstructionId Resolve(std::string_view name);

  // A hint that `name` will be resolved soon (see NameTable::Prefetch).
  void Prefetch(std::string_view name) const { by_name_.Prefetch(name); }

  // The instruction named `name`, or an invalid id.
  ir::InstructionId Find(std::string_view name) const;

  // Records `facts` on instruction `id` where the module knows less: only for
  // an instruction not read from module text (no computation), and only the
  // fields it does not have yet (copies of their texts after CopyTextsInto).
  void Describe(ir::InstructionId id, const InstructionFacts& facts);

  // True when Describe(id, ...) would change nothing, whatever the facts: the
  // instruction was read from module text, or already has an opcode, non-empty
  // metadata and a shape. (A caller can skip working out the facts.)
  bool Described(ir::InstructionId id) const;

  // Instructions added because the module did not have them.
  int64_t added() const { return added_; }

 private:
  ir::Module& module_;
  // Keyed by copies of the names (short ones inline in the table's slots),
  // not by views into the input: a probe reads one slot instead of a line
  // far back in the file, whose page the buffer-assignment parser may
  // already have released (SourceText::ReleaseResident).
  NameTable by_name_;
  // The name Resolve answered last and its id: a dump names one instruction
  // on several lines in a row (a value, its position, its defining
  // instruction), and comparing with the last name costs less than a hash
  // probe whose key compare reads a name far back in the file.
  std::string_view last_name_;
  ir::InstructionId last_id_;
  int64_t added_ = 0;
  TextArena* arena_ = nullptr;
  TextInterner* interner_ = nullptr;
};

// Records on `module` what a graph built only from names lacks (a no-op when
// the module has computations, i.e. came from module text or a proto).
void MarkNamesOnlyGraph(ir::Module& module);

}  // namespace memplan::parsers

#endif  // MEMPLAN_PARSERS_INSTRUCTION_NAMES_H_
