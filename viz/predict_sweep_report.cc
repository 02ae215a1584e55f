#include "viz/predict_sweep_report.h"

#include "viz/json_text.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/format.h"
#include "viz/predict_report.h"
#include "viz/rank_report.h"
#include "viz/table.h"

namespace memplan::viz {
namespace {

// The device with the largest footprint (the first on a tie).
const predictor::DeviceMemory* Largest(const predictor::Prediction& p) {
  const predictor::DeviceMemory* best = nullptr;
  for (const predictor::DeviceMemory& d : p.devices) {
    if (best == nullptr || d.device_footprint_bytes > best->device_footprint_bytes) best = &d;
  }
  return best;
}

int64_t CollectiveOps(const predictor::Prediction& p) {
  int64_t n = 0;
  for (const predictor::CollectiveGroup& g : p.collectives) n += g.count;
  return n;
}

}  // namespace

std::string RenderPredictSweepText(const PredictSweepInput& in) {
  std::string s;
  StrAppend(&s, "Predicted per-device memory of ", in.module_name, ": ", in.rows.size(),
            " candidate", in.rows.size() == 1 ? "" : "s", ", smallest device footprint first\n");
  StrAppend(&s, "One device (as compiled): footprint ",
            HumanBytes(in.unsharded.device_footprint_bytes), " (argument ",
            HumanBytes(in.unsharded.argument_bytes), ", output ",
            HumanBytes(in.unsharded.output_bytes), ", temp ", HumanBytes(in.unsharded.temp_bytes),
            ")\n\n");
  using Align = TextTable::Align;
  TextTable table({{"#", Align::kRight},
                   {"candidate", Align::kLeft},
                   {"mesh", Align::kLeft},
                   {"argument", Align::kRight},
                   {"output", Align::kRight},
                   {"alias", Align::kRight},
                   {"temp", Align::kRight},
                   {"footprint", Align::kRight},
                   {"vs one device", Align::kRight},
                   {"collectives", Align::kRight},
                   {"unknown", Align::kRight},
                   {"from", Align::kLeft}});
  for (size_t i = 0; i < in.rows.size(); ++i) {
    const predictor::SweepRow& r = in.rows[i];
    const predictor::DeviceMemory* d = Largest(r.prediction);
    if (d == nullptr) continue;
    table.AddRow({StrCat(i + 1), r.label, r.prediction.mesh.ToString(), HumanBytes(d->argument_bytes),
                  HumanBytes(d->output_bytes), HumanBytes(d->alias_bytes), HumanBytes(d->temp_bytes),
                  HumanBytes(r.prediction.max_device_footprint_bytes),
                  SignedPercent(ChangePercent(r.prediction.max_device_footprint_bytes,
                                              in.unsharded.device_footprint_bytes)),
                  StrCat(CollectiveOps(r.prediction)), StrCat(r.prediction.unknown.size()),
                  r.source.empty() ? StrCat("family ", r.family) : r.source});
  }
  s += table.Render();
  if (!in.skipped.empty()) {
    StrAppend(&s, "\nNot predicted (", in.skipped.size(), "):\n");
    for (const simulator::SkippedCandidate& k : in.skipped) {
      StrAppend(&s, "  ", k.label, ": ", DescribeSkip(k), "\n");
    }
  }
  return MarkupSafeText(s);  // names come from the input: no terminal escapes
}

std::string RenderPredictSweepJson(const PredictSweepInput& in) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "memplan.predict_sweep.v1");
    j.attribute("module", JsonText(in.module_name));
    j.attributeObject("unsharded", [&] {
      j.attribute("argument_bytes", in.unsharded.argument_bytes);
      j.attribute("output_bytes", in.unsharded.output_bytes);
      j.attribute("alias_bytes", in.unsharded.alias_bytes);
      j.attribute("temp_bytes", in.unsharded.temp_bytes);
      j.attribute("device_footprint_bytes", in.unsharded.device_footprint_bytes);
    });
    j.attributeArray("candidates", [&] {
      for (size_t i = 0; i < in.rows.size(); ++i) {
        const predictor::SweepRow& r = in.rows[i];
        const predictor::DeviceMemory* d = Largest(r.prediction);
        if (d == nullptr) continue;
        j.object([&] {
          j.attribute("rank", static_cast<int64_t>(i + 1));
          j.attribute("label", JsonText(r.label));
          j.attribute("family", JsonText(r.family));
          j.attribute("source", JsonText(r.source));
          j.attributeArray("mesh", [&] {
            for (const ir::MeshAxis& a : r.prediction.mesh.axes) {
              j.object([&] {
                j.attribute("name", JsonText(a.name));
                j.attribute("size", a.size);
              });
            }
          });
          j.attribute("argument_bytes", d->argument_bytes);
          j.attribute("output_bytes", d->output_bytes);
          j.attribute("alias_bytes", d->alias_bytes);
          j.attribute("temp_bytes", d->temp_bytes);
          j.attribute("live_peak_bytes", d->live_peak_bytes);
          j.attribute("max_device_footprint_bytes", r.prediction.max_device_footprint_bytes);
          j.attribute("collective_ops", CollectiveOps(r.prediction));
          j.attribute("unknown_propagation", static_cast<int64_t>(r.prediction.unknown.size()));
          j.attribute("unmatched_arguments", r.prediction.unmatched_arguments);
        });
      }
    });
    j.attributeArray("skipped", [&] {
      for (const simulator::SkippedCandidate& k : in.skipped) {
        j.object([&] {
          j.attribute("label", JsonText(k.label));
          j.attribute("family", JsonText(k.family));
          j.attribute("source", JsonText(k.source));
          j.attribute("message", JsonText(DescribeSkip(k)));
        });
      }
    });
  });
  os.flush();
  out.push_back('\n');
  return out;
}

}  // namespace memplan::viz
