#include "viz/predict_report.h"

#include <algorithm>

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "ir/shape.h"
#include "predictor/axes_sharding.h"

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

PeakBufferText DescribePeakBuffer(const ir::Module& module, const predictor::Prediction& p,
                                  const predictor::PeakBuffer& b) {
  PeakBufferText t;
  const bool known = b.instruction.valid() &&
                     static_cast<size_t>(b.instruction.value()) < module.instruction_count();
  const std::string at(known ? module.instruction(b.instruction).name : std::string_view("?"));
  if (b.kind != predictor::PeakBuffer::Kind::kValue) {
    const bool listed = b.collective >= 0 && static_cast<size_t>(b.collective) < p.collective_list.size();
    if (listed) {
      const predictor::PredictedCollective& c = p.collective_list[static_cast<size_t>(b.collective)];
      t.name = StrCat(predictor::CollectiveKindName(c.kind), " over ", AxisNames(p.mesh, c.axes));
    } else {
      t.name = "collective";
    }
    t.held = StrCat(b.kind == predictor::PeakBuffer::Kind::kCollectiveResult ? "result" : "partial sum",
                    ", for ", at);
    return t;
  }
  t.name = at;
  t.held = b.in_temp_arena ? "temp arena" : "output allocation";
  if (!known || b.leaf < 0) return t;
  std::vector<const ir::Shape*> leaves;
  predictor::CollectLeafShapes(module.instruction(b.instruction).shape, &leaves);
  if (static_cast<size_t>(b.leaf) >= leaves.size()) return t;
  if (leaves.size() > 1) StrAppend(&t.name, " {", b.leaf, "}");
  t.shape = ir::ShapeToString(*leaves[static_cast<size_t>(b.leaf)], /*with_layout=*/false);
  const auto& shardings = p.instruction_shardings;
  const size_t id = static_cast<size_t>(b.instruction.value());
  if (shardings != nullptr && id < shardings->size() &&
      static_cast<size_t>(b.leaf) < (*shardings)[id].size()) {
    predictor::AxesSharding sharding = (*shardings)[id][static_cast<size_t>(b.leaf)];
    // Every dimension named, the trailing unsplit ones too.
    const size_t rank = leaves[static_cast<size_t>(b.leaf)]->dims.size();
    if (sharding.dims.size() < rank) sharding.dims.resize(rank, 0);
    t.sharding = predictor::AxesShardingToString(sharding, p.mesh);
  }
  return t;
}

namespace {

// The largest buffers live at the peak, a line each, and the rest summed.
void AppendPeakText(std::string& s, const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  if (p.live_at_peak == nullptr || p.devices.empty()) return;
  const predictor::PeakContents& c = *p.live_at_peak;
  const predictor::DeviceMemory& d = p.devices.front();
  StrAppend(&s, "\nLive at the peak (step ", d.live_peak_step, ", ", HumanBytes(d.live_peak_bytes),
            "): arguments ", HumanBytes(d.argument_bytes), ", then the largest buffers:\n");
  const size_t shown = std::min(c.largest.size(), kPeakBuffersInText);
  for (size_t k = 0; k < shown; ++k) {
    const predictor::PeakBuffer& b = c.largest[k];
    const PeakBufferText t = DescribePeakBuffer(in.module, p, b);
    StrAppend(&s, "  ", HumanBytes(b.bytes), "  ", t.name);
    if (!t.shape.empty()) StrAppend(&s, " ", t.shape);
    if (!t.sharding.empty()) StrAppend(&s, " as ", t.sharding);
    if (b.start == b.end) {
      StrAppend(&s, " (", t.held, "; step ", b.start, ")\n");
    } else {
      StrAppend(&s, " (", t.held, "; steps ", b.start, "-", b.end, ")\n");
    }
  }
  int64_t rest = c.other_bytes, count = c.other_count;
  for (size_t k = shown; k < c.largest.size(); ++k) {
    rest += c.largest[k].bytes;
    count += 1;
  }
  if (count > 0) StrAppend(&s, "  ... and ", count, " more, ", HumanBytes(rest), "\n");
}

}  // namespace

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
                    d.live_peak_step);
    if (d.live_peak_instruction.valid()) {
      StrAppend(&s, " (", in.module.instruction(d.live_peak_instruction).name, ")");
    }
    s += "\n";
  }
  StrAppend(&s, "\nMax device footprint: ", HumanBytes(p.max_device_footprint_bytes), "\n");
  AppendPeakText(s, in);
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
  return MarkupSafeText(s);  // names come from the input: no terminal escapes
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

void DevicesJson(OStream& j, const ir::Module& module, const predictor::Prediction& p) {
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
        if (d.live_peak_instruction.valid()) {
          j.attribute("live_peak_instruction", JsonText(module.instruction(d.live_peak_instruction).name));
        } else {
          j.attribute("live_peak_instruction", nullptr);
        }
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

void PeakJson(OStream& j, const PredictReportInput& in) {
  const predictor::Prediction& p = in.prediction;
  if (p.live_at_peak == nullptr || p.devices.empty()) return;
  const predictor::PeakContents& c = *p.live_at_peak;
  j.attributeObject("live_at_peak", [&] {
    j.attribute("step", p.devices.front().live_peak_step);
    j.attribute("bytes", p.devices.front().live_peak_bytes);
    j.attribute("argument_bytes", p.devices.front().argument_bytes);
    j.attributeArray("largest", [&] {
      for (const predictor::PeakBuffer& b : c.largest) {
        const PeakBufferText t = DescribePeakBuffer(in.module, p, b);
        j.object([&] {
          j.attribute("name", JsonText(t.name));
          j.attribute("kind", JsonRef(predictor::PeakBufferKindName(b.kind)));
          if (!t.shape.empty()) j.attribute("shape", JsonText(t.shape));
          if (!t.sharding.empty()) j.attribute("sharding", JsonText(t.sharding));
          j.attribute("held", JsonText(t.held));
          j.attribute("bytes", b.bytes);
          j.attribute("start_step", b.start);
          j.attribute("end_step", b.end);
        });
      }
    });
    j.attribute("other_count", c.other_count);
    j.attribute("other_bytes", c.other_bytes);
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
    DevicesJson(j, in.module, p);
    j.attribute("max_device_footprint_bytes", p.max_device_footprint_bytes);
    UnshardedJson(j, p);
    CollectivesJson(j, p);
    j.attribute("unmatched_arguments", p.unmatched_arguments);
    UnknownPropagationJson(j, in);
    PeakJson(j, in);
  });
  os.flush();
  out.push_back('\n');
  return out;
}

}  // namespace memplan::viz
