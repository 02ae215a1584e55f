#include "tests/predict_corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "llvm/Support/JSON.h"
#include "parsers/hlo_sharding_parser.h"
#include "parsers/load_program.h"

namespace memplan::test {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<CorpusCase> ReadCase(const std::string& program, const std::string& path) {
  absl::StatusOr<std::string> text = Slurp(path);
  if (!text.ok()) return text.status();
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(*text);
  if (!json) return absl::InvalidArgumentError(path + ": " + llvm::toString(json.takeError()));
  const llvm::json::Object* root = json->getAsObject();
  if (root == nullptr) return absl::InvalidArgumentError(path + ": not an object");
  CorpusCase c;
  c.program = program;
  c.candidate = fs::path(path).filename().string();
  c.candidate = c.candidate.substr(0, c.candidate.find(".truth.json"));
  c.plan.label = c.candidate;
  const llvm::json::Object* mesh = root->getObject("mesh");
  const llvm::json::Object* memory = root->getObject("memory_analysis");
  const llvm::json::Array* inputs = root->getArray("inputs");
  if (!mesh || !memory || !inputs) return absl::InvalidArgumentError(path + ": missing fields");
  const llvm::json::Array* names = mesh->getArray("axis_names");
  const llvm::json::Array* shape = mesh->getArray("shape");
  const llvm::json::Array* devices = mesh->getArray("devices");
  if (!names || !shape || names->size() != shape->size()) {
    return absl::InvalidArgumentError(path + ": bad mesh");
  }
  for (size_t a = 0; a < names->size(); ++a) {
    c.plan.mesh.axes.push_back({(*names)[a].getAsString().getValueOr("").str(),
                                (*shape)[a].getAsInteger().getValueOr(0)});
  }
  if (devices) {
    std::vector<int64_t> ids;
    for (const auto& d : *devices) ids.push_back(d.getAsInteger().getValueOr(-1));
    bool iota = true;
    for (size_t i = 0; i < ids.size(); ++i) iota &= ids[i] == static_cast<int64_t>(i);
    if (!iota) {
      c.plan.mesh.order = ir::Mesh::DeviceOrder::kList;
      c.plan.mesh.device_list = ids;
    }
  }
  std::map<int64_t, std::string> argument_names;
  for (const auto& input : *inputs) {
    const llvm::json::Object* in = input.getAsObject();
    if (!in) return absl::InvalidArgumentError(path + ": bad input");
    ir::ArgumentPlan arg;
    arg.parameter = in->getInteger("parameter").getValueOr(-1);
    argument_names[arg.parameter] = in->getString("name").getValueOr("").str();
    const std::string sharding = in->getString("hlo_sharding").getValueOr("{replicated}").str();
    size_t consumed = 0;
    absl::StatusOr<ir::HloSharding> s = parsers::ParseHloSharding(sharding, &consumed);
    if (!s.ok()) return absl::InvalidArgumentError(path + ": " + std::string(s.status().message()));
    arg.sharding_index = c.plan.shardings.Intern(*std::move(s));
    arg.source = ir::PlanSource::kKey;
    c.plan.arguments.push_back(std::move(arg));
  }
  std::sort(c.plan.arguments.begin(), c.plan.arguments.end(),
            [](const auto& a, const auto& b) { return a.parameter < b.parameter; });
  auto labels = std::make_shared<ir::ArgumentLabels>();
  for (const ir::ArgumentPlan& a : c.plan.arguments) labels->names.push_back(argument_names[a.parameter]);
  c.plan.labels = std::move(labels);
  c.truth.argument_bytes = memory->getInteger("argument_size_in_bytes").getValueOr(0);
  c.truth.output_bytes = memory->getInteger("output_size_in_bytes").getValueOr(0);
  c.truth.alias_bytes = memory->getInteger("alias_size_in_bytes").getValueOr(0);
  c.truth.temp_bytes = memory->getInteger("temp_size_in_bytes").getValueOr(0);
  return c;
}

double ErrorPercent(int64_t predicted, int64_t truth) {
  if (truth == 0) return predicted == 0 ? 0.0 : 100.0;
  return 100.0 * static_cast<double>(predicted - truth) / static_cast<double>(truth);
}

}  // namespace

absl::StatusOr<std::vector<CorpusProgram>> LoadCorpus(const std::string& root) {
  std::vector<CorpusProgram> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    if (!e.is_directory() || !fs::exists(e.path() / "candidates")) continue;
    CorpusProgram p;
    p.name = e.path().filename().string();
    p.dir = e.path().string();
    for (const fs::directory_entry& f : fs::directory_iterator(e.path() / "candidates")) {
      const std::string name = f.path().filename().string();
      if (!name.ends_with(".truth.json")) continue;
      absl::StatusOr<CorpusCase> c = ReadCase(p.name, f.path().string());
      if (!c.ok()) return c.status();
      p.cases.push_back(*std::move(c));
    }
    std::sort(p.cases.begin(), p.cases.end(),
              [](const auto& a, const auto& b) { return a.candidate < b.candidate; });
    out.push_back(std::move(p));
  }
  if (ec) return absl::NotFoundError("cannot list " + root);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

absl::StatusOr<std::vector<CorpusRow>> PredictCorpusAt(const std::string& root) {
  absl::StatusOr<std::vector<CorpusProgram>> corpus = LoadCorpus(root);
  if (!corpus.ok()) return corpus.status();
  return PredictCorpus(*corpus);
}

absl::StatusOr<std::vector<CorpusRow>> PredictCorpus(const std::vector<CorpusProgram>& corpus,
                                                     const predictor::PredictOptions& options) {
  std::vector<CorpusRow> rows;
  for (const CorpusProgram& p : corpus) {
    absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(p.dir, {});
    if (!loaded.ok()) return loaded.status();
    auto predictor = predictor::Predictor::Create(loaded->program, options);
    if (!predictor.ok()) return predictor.status();
    for (const CorpusCase& c : p.cases) {
      absl::StatusOr<predictor::Prediction> prediction = (*predictor)->Predict(c.plan);
      if (!prediction.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(p.name, " ", c.candidate, ": ",
                                                       prediction.status().message()));
      }
      CorpusRow row{c, *std::move(prediction), 0, 0};
      const auto& d = row.prediction.devices.front();
      row.footprint_error_percent = ErrorPercent(d.device_footprint_bytes, c.truth.footprint());
      row.temp_error_percent = ErrorPercent(d.temp_bytes, c.truth.temp_bytes);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string CorpusTable(const std::vector<CorpusRow>& rows) {
  std::string s =
      "| program | candidate | argument (pred / XLA) | output (pred / XLA) | temp pred | temp XLA | "
      "temp error | footprint pred | footprint XLA | footprint error |\n"
      "|---|---|---|---|--:|--:|--:|--:|--:|--:|\n";
  std::vector<double> abs_errors;
  auto mark = [](int64_t a, int64_t b) { return a == b ? std::string("exact") : absl::StrCat(a, " / ", b); };
  for (const CorpusRow& r : rows) {
    const auto& d = r.prediction.devices.front();
    absl::StrAppend(&s, "| ", r.c.program, " | ", r.c.candidate, " | ",
                    mark(d.argument_bytes, r.c.truth.argument_bytes), " | ",
                    mark(d.output_bytes, r.c.truth.output_bytes), " | ", d.temp_bytes, " | ",
                    r.c.truth.temp_bytes, " | ", absl::StrFormat("%+.1f%%", r.temp_error_percent),
                    " | ", d.device_footprint_bytes, " | ", r.c.truth.footprint(), " | ",
                    absl::StrFormat("%+.1f%%", r.footprint_error_percent), " |\n");
    abs_errors.push_back(std::fabs(r.footprint_error_percent));
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  double median = 0;
  if (!abs_errors.empty()) {
    const size_t n = abs_errors.size();
    median = n % 2 ? abs_errors[n / 2] : (abs_errors[n / 2 - 1] + abs_errors[n / 2]) / 2;
  }
  absl::StrAppend(&s, "\nCases: ", rows.size(), ". Footprint |error|: median ",
                  absl::StrFormat("%.1f%%", median), ", max ",
                  absl::StrFormat("%.1f%%", abs_errors.empty() ? 0.0 : abs_errors.back()), ".\n");
  // Ordering per program.
  std::map<std::string, std::vector<const CorpusRow*>> by_program;
  for (const CorpusRow& r : rows) by_program[r.c.program].push_back(&r);
  absl::StrAppend(&s, "\n| program | order by predicted footprint | order by XLA's footprint | same |\n|---|---|---|---|\n");
  for (auto& [program, list] : by_program) {
    auto order = [&, &list = list](bool predicted) {  // clang 14 cannot capture a binding
      std::vector<const CorpusRow*> v = list;
      std::stable_sort(v.begin(), v.end(), [&](const CorpusRow* a, const CorpusRow* b) {
        return predicted ? a->prediction.max_device_footprint_bytes < b->prediction.max_device_footprint_bytes
                         : a->c.truth.footprint() < b->c.truth.footprint();
      });
      std::string text;
      for (const CorpusRow* r : v) absl::StrAppend(&text, text.empty() ? "" : " < ", r->c.candidate);
      return text;
    };
    const std::string p = order(true), t = order(false);
    absl::StrAppend(&s, "| ", program, " | ", p, " | ", t, " | ", p == t ? "yes" : "no", " |\n");
  }
  return s;
}

}  // namespace memplan::test
