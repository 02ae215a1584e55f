// Prediction from jaxprs: every (program, candidate) of samples/sharded
// predicted from the program's jaxpr (jaxpr.txt lowered into a Program,
// ir/jaxpr_program.h) with the same Predictor as the HLO programs, the
// candidate's plan built from the shardings the 8-device compile recorded
// (tests/predict_corpus.h), held against XLA's memory_analysis() of that
// compile. Donation from the single-device truth.json (donated_arguments).
//
// The table docs/accuracy.md "Jaxprs under shardings" shows is printed by
//   build/tests/memplan_jaxpr_predict_tests --gtest_filter='JaxprPredict.*'
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "ir/jaxpr_program.h"
#include "llvm/Support/JSON.h"
#include "parsers/jaxpr_parser.h"
#include "parsers/source_text.h"
#include "predictor/predict.h"
#include "tests/predict_corpus.h"
#include "tests/test_util.h"

namespace memplan::test {
namespace {

struct JaxprRow {
  CorpusCase c;
  predictor::DeviceMemory d;
  double footprint_error = 0;  // percent, signed
  double temp_error = 0;
};

double Percent(int64_t predicted, int64_t truth) {
  if (truth == 0) return predicted == 0 ? 0.0 : 100.0;
  return 100.0 * static_cast<double>(predicted - truth) / static_cast<double>(truth);
}

// The jaxpr of `dir` as a Program, its arguments donated as the
// single-device compile's were.
absl::StatusOr<ir::Program> JaxprProgram(const std::string& dir) {
  llvm::Expected<llvm::json::Value> truth = llvm::json::parse(ReadFileOrDie(dir + "/truth.json"));
  if (!truth) return absl::InvalidArgumentError(llvm::toString(truth.takeError()));
  const llvm::json::Object& t = *truth->getAsObject();
  std::set<std::string> donated_tops;
  if (const llvm::json::Array* d = t.getArray("donated_arguments")) {
    for (const auto& v : *d) donated_tops.insert(v.getAsString().getValueOr("").str());
  }
  ir::JaxprProgramOptions options;
  if (const llvm::json::Array* args = t.getArray("arguments")) {
    for (const auto& a : *args) {
      const llvm::json::Object& o = *a.getAsObject();
      const int64_t number = o.getInteger("number").getValueOr(-1);
      if (number < 0) continue;
      if (options.donated.size() <= static_cast<size_t>(number)) options.donated.resize(number + 1, false);
      options.donated[number] = donated_tops.count(o.getString("top").getValueOr("").str()) > 0;
    }
  }
  const std::string path = dir + "/" + t.getString("jaxpr_file")->str();
  auto source = parsers::SourceText::FromString(path, ReadFileOrDie(path));
  absl::StatusOr<ir::JaxprModule> jaxpr = parsers::ParseJaxpr(*source);
  if (!jaxpr.ok()) return jaxpr.status();
  return ir::BuildJaxprProgram(*jaxpr, options);
}

class JaxprPredict : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto corpus = LoadCorpus(SourcePath("samples/sharded"));
    ASSERT_TRUE(corpus.ok()) << corpus.status();
    rows_ = new std::vector<JaxprRow>();
    for (const CorpusProgram& p : *corpus) {
      absl::StatusOr<ir::Program> program = JaxprProgram(p.dir);
      ASSERT_TRUE(program.ok()) << p.name << ": " << program.status();
      programs_.push_back(std::make_unique<ir::Program>(*std::move(program)));
      auto predictor = predictor::Predictor::Create(*programs_.back());
      ASSERT_TRUE(predictor.ok()) << p.name << ": " << predictor.status();
      for (const CorpusCase& c : p.cases) {
        absl::StatusOr<predictor::Prediction> prediction = (*predictor)->Predict(c.plan);
        ASSERT_TRUE(prediction.ok()) << p.name << " " << c.candidate << ": " << prediction.status();
        JaxprRow row{c, prediction->devices.front()};
        row.footprint_error = Percent(row.d.device_footprint_bytes, c.truth.footprint());
        row.temp_error = Percent(row.d.temp_bytes, c.truth.temp_bytes);
        rows_->push_back(row);
      }
    }
  }
  static void TearDownTestSuite() {
    delete rows_;
    rows_ = nullptr;
    programs_.clear();
  }
  static std::vector<JaxprRow>* rows_;
  static std::vector<std::unique_ptr<ir::Program>> programs_;
};

std::vector<JaxprRow>* JaxprPredict::rows_ = nullptr;
std::vector<std::unique_ptr<ir::Program>> JaxprPredict::programs_;

std::string Table(const std::vector<JaxprRow>& rows) {
  std::string s =
      "| program | candidate | argument (pred / XLA) | output (pred / XLA) | alias (pred / XLA) | temp pred | "
      "temp XLA | temp error | footprint pred | footprint XLA | footprint error |\n"
      "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|\n";
  auto mark = [](int64_t a, int64_t b) { return a == b ? std::string("exact") : absl::StrCat(a, " / ", b); };
  std::vector<double> errors;
  for (const JaxprRow& r : rows) {
    absl::StrAppend(&s, "| ", r.c.program, " | ", r.c.candidate, " | ", mark(r.d.argument_bytes, r.c.truth.argument_bytes),
                    " | ", mark(r.d.output_bytes, r.c.truth.output_bytes), " | ",
                    mark(r.d.alias_bytes, r.c.truth.alias_bytes), " | ", r.d.temp_bytes, " | ", r.c.truth.temp_bytes,
                    " | ", absl::StrFormat("%+.1f%%", r.temp_error), " | ", r.d.device_footprint_bytes, " | ",
                    r.c.truth.footprint(), " | ", absl::StrFormat("%+.1f%%", r.footprint_error), " |\n");
    errors.push_back(std::fabs(r.footprint_error));
  }
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  const double median = n == 0 ? 0 : n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  absl::StrAppend(&s, "\nCases: ", n, ". Footprint |error|: median ", absl::StrFormat("%.1f%%", median), ", max ",
                  absl::StrFormat("%.1f%%", n == 0 ? 0.0 : errors.back()), ".\n");
  return s;
}

TEST_F(JaxprPredict, PrintsTheTable) {
  ASSERT_NE(rows_, nullptr);
  std::printf("%s", Table(*rows_).c_str());
  EXPECT_EQ(rows_->size(), 38u);
}

}  // namespace
}  // namespace memplan::test
