#include "viz/predict_report.h"

#include <algorithm>

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

// Runs of devices with identical numbers: (first, last) indices.
std::vector<std::pair<size_t, size_t>> DeviceRuns(const std::vector<predictor::DeviceMemory>& d) {
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < d.size(); ++i) {
    auto same = [&](const predictor::DeviceMemory& a, const predictor::DeviceMemory& b) {
      return a.argument_bytes == b.argument_bytes && a.output_bytes == b.output_bytes &&
             a.alias_bytes == b.alias_bytes && a.temp_bytes == b.temp_bytes &&
             a.live_peak_bytes == b.live_peak_bytes;
    };
    if (!runs.empty() && same(d[runs.back().second], d[i])) {
      runs.back().second = i;
    } else {
      runs.push_back({i, i});
    }
  }
  return runs;
}

}  // namespace

std::string AxisNames(const ir::Mesh& mesh, predictor::AxisMask mask) {
  std::vector<std::string> names;
  for (size_t a = 0; a < mesh.axes.size(); ++a) {
    if (mask & (predictor::AxisMask{1} << a)) names.push_back(mesh.axes[a].name);
  }
  if (names.size() == 1) return names[0];
  std::string s = "(";
  for (size_t i = 0; i < names.size(); ++i) StrAppend(&s, i ? "," : "", names[i]);
  return s + ")";
}

std::string RenderPredictText(const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  std::string s;
  StrAppend(&s, "Prediction for ", in.module_name, " under ",
                  p.label.empty() ? std::string("the plan") : p.label, " (mesh ",
                  p.mesh.ToString(), ", ", p.devices.size(), " devices)\n\n");
  const analyzer::MemoryStats& u = p.unsharded;
  auto row = [&](std::string_view what, int64_t now, int64_t before) {
    StrAppend(&s, "  ", what, std::string(22 - std::min<size_t>(what.size(), 21), ' '),
                    HumanBytes(now), "   (one device: ", HumanBytes(before), ", ",
                    SignedPercent(ChangePercent(now, before)), ")\n");
  };
  for (const auto& [first, last] : DeviceRuns(p.devices)) {
    const predictor::DeviceMemory& d = p.devices[first];
    if (first == last) {
      StrAppend(&s, "Device ", d.device, ":\n");
    } else {
      StrAppend(&s, "Devices ", p.devices[first].device, "-", p.devices[last].device,
                      " (each):\n");
    }
    row("argument", d.argument_bytes, u.argument_bytes);
    row("output", d.output_bytes, u.output_bytes);
    row("alias", d.alias_bytes, u.alias_bytes);
    row("temp", d.temp_bytes, u.temp_bytes);
    row("device footprint", d.device_footprint_bytes, u.device_footprint_bytes);
    StrAppend(&s, "  live peak             ", HumanBytes(d.live_peak_bytes), " at step ",
                    d.live_peak_step, "\n");
  }
  StrAppend(&s, "\nMax device footprint: ", HumanBytes(p.max_device_footprint_bytes), "\n");
  StrAppend(&s, "\nCollectives (per device, after combining all-reduces):\n");
  if (p.collectives.empty()) StrAppend(&s, "  none\n");
  for (const predictor::CollectiveGroup& g : p.collectives) {
    StrAppend(&s, "  ", predictor::CollectiveKindName(g.kind), " over ",
                    AxisNames(p.mesh, g.axes), ": ", g.count, " op", g.count == 1 ? "" : "s");
    if (g.combined != g.count) StrAppend(&s, " (", g.combined, " combined)");
    StrAppend(&s, ", ", HumanBytes(g.result_bytes), "\n");
  }
  StrAppend(&s, "\nArguments replicated because the plan names none: ",
                  p.unmatched_arguments, "\n");
  StrAppend(&s, "Places no propagation rule covers (replicated): ", p.unknown.size(), "\n");
  for (size_t k = 0; k < p.unknown.size() && k < 20; ++k) {
    const ir::Instruction& i = in.module.instruction(p.unknown[k].instruction);
    StrAppend(&s, "  ", i.name, " (", i.opcode_text, ")",
                    p.unknown[k].had_sharded_operand ? ": its sharded operands all-gathered" : "",
                    "\n");
  }
  if (p.unknown.size() > 20) StrAppend(&s, "  ... and ", p.unknown.size() - 20, " more\n");
  return s;
}

namespace {

using llvm::json::OStream;

void MeshJson(OStream& j, const ir::Mesh& mesh) {
  j.attributeObject("mesh", [&] {
    j.attributeArray("axes", [&] {
      for (const ir::MeshAxis& a : mesh.axes) {
        j.object([&] {
          j.attribute("name", JsonText(a.name));
          j.attribute("size", a.size);
        });
      }
    });
    j.attributeArray("devices", [&] {
      for (int64_t id : mesh.DeviceIds()) j.value(id);
    });
  });
}

void DevicesJson(OStream& j, const predictor::Prediction& p) {
  j.attributeArray("devices", [&] {
    for (const predictor::DeviceMemory& d : p.devices) {
      j.object([&] {
        j.attribute("device", d.device);
        j.attribute("argument_bytes", d.argument_bytes);
        j.attribute("output_bytes", d.output_bytes);
        j.attribute("alias_bytes", d.alias_bytes);
        j.attribute("temp_bytes", d.temp_bytes);
        j.attribute("device_footprint_bytes", d.device_footprint_bytes);
        j.attribute("live_peak_bytes", d.live_peak_bytes);
        j.attribute("live_peak_step", d.live_peak_step);
      });
    }
  });
}

void UnshardedJson(OStream& j, const predictor::Prediction& p) {
  j.attributeObject("unsharded", [&] {
    j.attribute("argument_bytes", p.unsharded.argument_bytes);
    j.attribute("output_bytes", p.unsharded.output_bytes);
    j.attribute("alias_bytes", p.unsharded.alias_bytes);
    j.attribute("temp_bytes", p.unsharded.temp_bytes);
    j.attribute("device_footprint_bytes", p.unsharded.device_footprint_bytes);
  });
}

void CollectivesJson(OStream& j, const predictor::Prediction& p) {
  j.attributeArray("collectives", [&] {
    for (const predictor::CollectiveGroup& g : p.collectives) {
      j.object([&] {
        j.attribute("kind", JsonRef(predictor::CollectiveKindName(g.kind)));
        j.attributeArray("mesh_axes", [&] {
          for (size_t a = 0; a < p.mesh.axes.size(); ++a) {
            if (g.axes & (predictor::AxisMask{1} << a)) j.value(JsonText(p.mesh.axes[a].name));
          }
        });
        j.attribute("count", g.count);
        j.attribute("combined_from", g.combined);
        j.attribute("bytes", g.result_bytes);
      });
    }
  });
}

void UnknownPropagationJson(OStream& j, const PredictReportInput& in) {
  j.attributeArray("unknown_propagation", [&] {
    for (const predictor::UnknownPropagation& u : in.prediction.unknown) {
      const ir::Instruction& i = in.module.instruction(u.instruction);
      j.object([&] {
        j.attribute("instruction", JsonText(i.name));
        j.attribute("opcode", JsonText(i.opcode_text));
        j.attribute("gathered_sharded_operand", u.had_sharded_operand);
      });
    }
  });
}

}  // namespace

std::string RenderPredictJson(const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  std::string out;
  llvm::raw_string_ostream os(out);
  OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.predict.v1");
    j.attribute("module", JsonText(in.module_name));
    j.attribute("plan", JsonText(p.label));
    MeshJson(j, p.mesh);
    DevicesJson(j, p);
    j.attribute("max_device_footprint_bytes", p.max_device_footprint_bytes);
    UnshardedJson(j, p);
    CollectivesJson(j, p);
    j.attribute("unmatched_arguments", p.unmatched_arguments);
    UnknownPropagationJson(j, in);
  });
  os.flush();
  out.push_back('\n');
  return out;
}

}  // namespace memplan::viz
