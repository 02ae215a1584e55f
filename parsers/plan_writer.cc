#include "parsers/plan_writer.h"

#include <algorithm>
#include <cctype>

#include "ir/strings.h"

namespace memplan::parsers {
namespace {

// Plain scalars YAML 1.1 readers take for booleans or null (any case).
bool IsYamlSpecial(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view special : {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}) {
    if (lower == special) return true;
  }
  return false;
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string SpecText(const ir::PartitionSpec& spec) {
  std::string out = "[";
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    if (d > 0) out += ", ";
    const ir::SpecDim& dim = spec.dims[d];
    if (dim.kind != ir::SpecDim::Kind::kAxes || dim.axes.empty()) {
      out += "null";
    } else if (dim.axes.size() == 1 && !dim.tuple) {
      out += PlanYamlKey(dim.axes[0]);
    } else {
      out += "[";
      for (size_t a = 0; a < dim.axes.size(); ++a) StrAppend(&out, a == 0 ? "" : ", ", PlanYamlKey(dim.axes[a]));
      out += "]";
    }
  }
  return out + "]";
}

std::string Key(const ir::SpecPlanArgument& argument) {
  return argument.name.empty() ? StrCat(argument.parameter) : PlanYamlKey(argument.name);
}

}  // namespace

std::string PlanYamlKey(std::string_view name) {
  if (IsIdentifier(name) && !IsYamlSpecial(name)) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string WritePlanYaml(const ir::SpecPlan& plan, std::string_view title) {
  std::string out;
  if (!title.empty()) StrAppend(&out, "# memplan plan: ", title, "\n");
  out += "mesh: {";
  for (size_t i = 0; i < plan.mesh.axes.size(); ++i) {
    StrAppend(&out, i == 0 ? "" : ", ", PlanYamlKey(plan.mesh.axes[i].name), ": ", plan.mesh.axes[i].size);
  }
  out += "}\n";
  if (!plan.mesh.IsIotaOrder()) {
    out += "devices: [";
    const std::vector<int64_t> ids = plan.mesh.DeviceIds();
    for (size_t i = 0; i < ids.size(); ++i) StrAppend(&out, i == 0 ? "" : ", ", ids[i]);
    out += "]\n";
  }
  out += plan.arguments.empty() ? "arguments: {}\n" : "arguments:\n";
  for (const ir::SpecPlanArgument& argument : plan.arguments) {
    StrAppend(&out, "  ", Key(argument), ": ", SpecText(argument.spec), "  # parameter ",
              argument.parameter, ", ", ir::ShapeToString(argument.shape, false), "\n");
  }
  out += "outputs: {}\n";
  std::string donate;
  for (const ir::SpecPlanArgument& argument : plan.arguments) {
    if (argument.donated) StrAppend(&donate, "  - ", Key(argument), "\n");
  }
  out += donate.empty() ? "donate: []\n" : StrCat("donate:\n", donate);
  return out;
}

}  // namespace memplan::parsers
