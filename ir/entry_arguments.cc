#include "ir/entry_arguments.h"

#include "ir/strings.h"

namespace memplan::ir {
namespace {

void ArrayLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (!shape.IsTuple()) {
    out->push_back(shape);
    return;
  }
  for (const Shape& element : shape.tuple_elements) ArrayLeaves(element, out);
}

}  // namespace

std::string UnescapeOpName(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() &&
        (text[i + 1] == '\'' || text[i + 1] == '"' || text[i + 1] == '\\')) {
      out.push_back(text[++i]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string_view PytreeTop(std::string_view name) {
  const size_t end = name.find_first_of("[.");
  return end == std::string_view::npos ? name : name.substr(0, end);
}

bool IsGlob(std::string_view text) { return text.find_first_of("*?") != std::string_view::npos; }

bool GlobMatches(std::string_view glob, std::string_view name) {
  // Iterative wildcard matching with one backtrack point (the last '*'):
  // linear in practice, O(|glob| * |name|) at worst.
  size_t g = 0, n = 0;
  size_t star = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || (glob[g] != '*' && glob[g] == name[n]))) {
      ++g;
      ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      star_n = n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

absl::StatusOr<std::vector<EntryArgument>> EntryArguments(const Module& module) {
  const Computation* entry = module.entry_computation();
  if (entry == nullptr) return absl::InvalidArgumentError("the program has no entry computation");
  std::vector<EntryArgument> out;
  out.reserve(entry->parameters.size());
  for (size_t i = 0; i < entry->parameters.size(); ++i) {
    const InstructionId id = entry->parameters[i];
    if (!module.contains(id)) {
      return absl::InvalidArgumentError(StrCat("the entry computation lacks parameter ", i));
    }
    const Instruction& parameter = module.instruction(id);
    EntryArgument argument;
    argument.parameter = static_cast<int64_t>(i);
    argument.name = UnescapeOpName(parameter.metadata->op_name);
    argument.shape = parameter.shape;
    for (const InputOutputAlias& alias : module.header.input_output_aliases) {
      if (alias.parameter_number == argument.parameter) argument.donated = true;
    }
    for (const BufferDonor& donor : module.header.buffer_donors) {
      if (donor.parameter_number == argument.parameter) argument.donated = true;
    }
    out.push_back(std::move(argument));
  }
  return out;
}

std::vector<Shape> EntryOutputs(const Module& module) {
  std::vector<Shape> out;
  const Computation* entry = module.entry_computation();
  if (entry == nullptr || !module.contains(entry->root)) return out;
  ArrayLeaves(module.instruction(entry->root).shape, &out);
  return out;
}

}  // namespace memplan::ir
