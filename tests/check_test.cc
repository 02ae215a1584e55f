// `memplan check`: byte counts and budget files (with file:line:col on bad
// input), budgets and regressions on the JAX samples, JUnit XML read back by
// libxml2, and the binary's exit codes (0 pass, 1 over budget or regressed,
// 2 bad input) with no output file left by a failed run.
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/budget_check.h"
#include "cli/device_memory.h"
#include "parsers/analyze_json_metrics.h"
#include "parsers/budget_file.h"
#include "viz/check_report.h"
#include "gtest/gtest.h"
#include "parsers/load_program.h"
#include "tests/ci_test_util.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using analyzer::CheckOutcome;
using analyzer::Metric;
using test::CommandResult;

constexpr const char* kMlp = "samples/jax/mlp_train_step";

int Index(Metric m) { return static_cast<int>(m); }

// The budget file reader with the CLI's device names.
absl::StatusOr<parsers::BudgetFile> ParseBudgets(std::string_view text, const std::string& name) {
  return parsers::ParseBudgets(text, name, cli::DeviceMemoryCatalog());
}

TEST(ByteCount, ReadsPlainAndUnitCounts) {
  EXPECT_EQ(parsers::ParseByteCount("12345"), 12345);
  EXPECT_EQ(parsers::ParseByteCount("12345B"), 12345);
  EXPECT_EQ(parsers::ParseByteCount("1.5GiB"), int64_t{1610612736});
  EXPECT_EQ(parsers::ParseByteCount("800MB"), int64_t{800000000});
  EXPECT_EQ(parsers::ParseByteCount(" 64 KiB "), 65536);
  EXPECT_EQ(parsers::ParseByteCount("2K"), 2048);
  EXPECT_EQ(parsers::ParseByteCount("80GiB"), int64_t{85899345920});
  EXPECT_EQ(parsers::ParseByteCount("1TB"), int64_t{1000000000000});
}

TEST(ByteCount, RejectsWhatIsNotOne) {
  EXPECT_EQ(parsers::ParseByteCount(""), std::nullopt);
  EXPECT_EQ(parsers::ParseByteCount("GiB"), std::nullopt);
  EXPECT_EQ(parsers::ParseByteCount("12 bananas"), std::nullopt);
  EXPECT_EQ(parsers::ParseByteCount("1.5B"), std::nullopt);
  EXPECT_EQ(parsers::ParseByteCount("-5MiB"), std::nullopt);
  EXPECT_EQ(parsers::ParseByteCount("99999999EB"), std::nullopt);
  EXPECT_EQ(parsers::ParsePercent("5%"), 5.0);
  EXPECT_EQ(parsers::ParsePercent("2.5 %"), 2.5);
  EXPECT_EQ(parsers::ParsePercent("5"), std::nullopt);
}

TEST(Budgets, ParsesModulesDevicesAndRegression) {
  const char* kText =
      "# CI budgets\n"
      "\"*\":\n"
      "  device: H100-80GB\n"
      "  peak: 0.8 * device\n"
      "  regression: 5%\n"
      "jit_train_step:\n"
      "  temp: 1.5GiB\n"
      "  device_footprint: 800MB\n"
      "jit_small: {device_memory: 1MiB, output: 0.5 * device, regression: 2.5%}\n";
  absl::StatusOr<parsers::BudgetFile> file = ParseBudgets(kText, "budgets.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->modules.size(), 3u);
  EXPECT_EQ(file->modules[0].key, "*");  // file order
  EXPECT_EQ(file->modules[1].key, "jit_train_step");
  EXPECT_EQ(file->modules[2].key, "jit_small");
  EXPECT_EQ(file->modules[0].device_memory, int64_t{80} << 30);
  EXPECT_EQ(file->modules[0].limits[Index(Metric::kPeak)]->location, "budgets.yaml:4:9");

  // A named module takes "*"'s fields where it is silent.
  std::optional<parsers::ResolvedBudget> train = parsers::ResolveBudget(*file, "jit_train_step");
  ASSERT_TRUE(train.has_value());
  EXPECT_EQ(train->key, "jit_train_step");
  EXPECT_EQ(train->limit_bytes[Index(Metric::kTemp)], int64_t{1610612736});
  EXPECT_EQ(train->limit_bytes[Index(Metric::kDeviceFootprint)], int64_t{800000000});
  EXPECT_EQ(train->limit_bytes[Index(Metric::kPeak)], int64_t{68719476736});  // 0.8 * 80 GiB
  EXPECT_EQ(train->regression_percent, 5.0);
  EXPECT_EQ(train->limit_bytes[Index(Metric::kArgument)], std::nullopt);

  // Its own device memory wins for its own fractions and for "*"'s.
  std::optional<parsers::ResolvedBudget> small = parsers::ResolveBudget(*file, "jit_small");
  ASSERT_TRUE(small.has_value());
  EXPECT_EQ(small->limit_bytes[Index(Metric::kOutput)], 524288);
  EXPECT_EQ(small->limit_bytes[Index(Metric::kPeak)], 838860);  // floor(0.8 MiB)
  EXPECT_EQ(small->regression_percent, 2.5);

  std::optional<parsers::ResolvedBudget> other = parsers::ResolveBudget(*file, "jit_other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->key, "*");
  EXPECT_EQ(other->limit_bytes[Index(Metric::kTemp)], std::nullopt);
}

TEST(DeviceMemory, PresetsAndNamesThatStateTheirMemory) {
  // The presets' device.hbm_bytes (simulator/presets/*.yaml: the datasheets'
  // 80 GB for H100 SXM and A100 80GB, 141 GB for H200, written as GiB).
  EXPECT_EQ(cli::DeviceMemoryBytes("h100"), int64_t{80} << 30);
  EXPECT_EQ(cli::DeviceMemoryBytes("H100"), int64_t{80} << 30);  // case ignored
  EXPECT_EQ(cli::DeviceMemoryBytes("h200"), int64_t{141} << 30);
  // A name that states its memory: the number, as GiB.
  EXPECT_EQ(cli::DeviceMemoryBytes("H100-94GB"), int64_t{94} << 30);
  EXPECT_EQ(cli::DeviceMemoryBytes("L4-24GB"), int64_t{24} << 30);
  EXPECT_EQ(cli::DeviceMemoryBytes("Z100"), std::nullopt);
  EXPECT_EQ(cli::DeviceMemoryBytes("-80GB"), std::nullopt);
  EXPECT_EQ(cli::DeviceMemoryBytes("H100-GB"), std::nullopt);
  EXPECT_EQ(cli::DeviceMemoryBytes("H100-80TB"), std::nullopt);
}

TEST(Budgets, NoEntryNoDefaultMeansNoBudget) {
  absl::StatusOr<parsers::BudgetFile> file = ParseBudgets("jit_a:\n  peak: 1GiB\n", "b.yaml");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_FALSE(parsers::ResolveBudget(*file, "jit_b").has_value());
  EXPECT_TRUE(parsers::ResolveBudget(*file, "jit_b", "jit_a").has_value());  // by stem
}

struct BadBudget {
  const char* text;
  const char* expected;  // a substring of the error
};

class BadBudgets : public testing::TestWithParam<BadBudget> {};

TEST_P(BadBudgets, NameFileLineAndColumn) {
  absl::StatusOr<parsers::BudgetFile> file = ParseBudgets(GetParam().text, "budgets.yaml");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(std::string(file.status().message()).find(GetParam().expected), std::string::npos)
      << file.status();
}

INSTANTIATE_TEST_SUITE_P(
    Check, BadBudgets,
    testing::Values(
        BadBudget{"\"*\":\n  peak: 12 bananas\n",
                  "budgets.yaml:2:9: error: expected a byte count"},
        BadBudget{"\"*\":\n  pek: 12\n", "budgets.yaml:2:3: error: unknown key 'pek'"},
        BadBudget{"\"*\":\n  peak: 0.8 * device\n",
                  "budgets.yaml:2:9: error: '0.8 * device' is a fraction of the device's memory"},
        BadBudget{"\"*\":\n  device: Z100\n", "budgets.yaml:2:11: error: unknown device 'Z100'"},
        BadBudget{"\"*\":\n  regression: 5\n",
                  "budgets.yaml:2:15: error: expected a percentage"},
        BadBudget{"\"*\": [1, 2\n", "budgets.yaml:1:"},
        BadBudget{"- a\n- b\n", "budgets.yaml:1:1: error: not a mapping"},
        BadBudget{"\"*\":\n  peak: 1\n\"*\":\n  temp: 1\n",
                  "budgets.yaml:3:1: error: duplicate key '*'"},
        BadBudget{"a:\n  peak: 1\n  peak: 2\n", "budgets.yaml:3:3: error: duplicate key 'peak'"},
        BadBudget{"\"*\":\n  device: H100\n  device_memory: 80GiB\n",
                  "budgets.yaml:3:18: error: give either device or device_memory"},
        BadBudget{"", "budgets.yaml: error: no budgets"}));

// Metrics of a sample as the library computes them.
analyzer::ModuleMetrics SampleMetrics(const std::string& path) {
  absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, {});
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  const analyzer::Analysis analysis = analyzer::Analysis::Run(loaded->program, {});
  return analyzer::MetricsOf(loaded->program, analysis);
}

TEST(CheckModule, PassesAGenerousBudgetAndFailsATightOne) {
  const analyzer::ModuleMetrics m = SampleMetrics(test::SourcePath(kMlp));
  ASSERT_TRUE(m.bytes[Index(Metric::kPeak)].has_value());
  EXPECT_EQ(m.bytes[Index(Metric::kTemp)], 425984);

  analyzer::BudgetLimits generous;
  for (Metric metric : analyzer::kAllMetrics) generous.limit_bytes[Index(metric)] = int64_t{1} << 40;
  for (const CheckOutcome& o : analyzer::CheckModule(m, generous, nullptr)) {
    EXPECT_EQ(o.result, CheckOutcome::Result::kPass) << viz::DescribeOutcome(o, "");
  }

  analyzer::BudgetLimits tight;
  tight.limit_bytes[Index(Metric::kTemp)] = 300 * 1024;
  const std::vector<CheckOutcome> outcomes = analyzer::CheckModule(m, tight, nullptr);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].result, CheckOutcome::Result::kFail);
  EXPECT_EQ(viz::DescribeOutcome(outcomes[0], ""),
            "temp is 416.00 KiB (425,984 bytes), over its budget of 300.00 KiB (307,200 bytes) "
            "by 116.00 KiB (+38.7%)");
}

TEST(CheckModule, RegressionSaysWhatGrewAndByHowMuch) {
  analyzer::ModuleMetrics before;
  analyzer::ModuleMetrics after;
  before.bytes[Index(Metric::kTemp)] = 3544187;   // 3.38 MiB
  after.bytes[Index(Metric::kTemp)] = 4299161;    // 4.10 MiB
  before.bytes[Index(Metric::kOutput)] = 1000;
  after.bytes[Index(Metric::kOutput)] = 1050;     // +5.0%: allowed
  before.bytes[Index(Metric::kArgument)] = 1000;
  after.bytes[Index(Metric::kArgument)] = 900;    // shrank
  after.bytes[Index(Metric::kPeak)] = 10;         // unknown in the baseline
  analyzer::BudgetLimits budget;
  budget.regression_percent = 5.0;
  const std::vector<CheckOutcome> outcomes = analyzer::CheckModule(after, budget, &before);
  ASSERT_EQ(outcomes.size(), static_cast<size_t>(analyzer::kNumMetrics));
  auto find = [&](Metric metric) {
    for (const CheckOutcome& o : outcomes) {
      if (o.metric == metric) return o;
    }
    return CheckOutcome{};
  };
  EXPECT_EQ(find(Metric::kTemp).result, CheckOutcome::Result::kFail);
  EXPECT_EQ(viz::OutcomeName(find(Metric::kTemp)), "temp vs baseline");
  EXPECT_EQ(viz::DescribeOutcome(find(Metric::kTemp), ""),
            "temp grew from 3.38 MiB to 4.10 MiB (+21.3%), over the 5% allowed");
  EXPECT_EQ(find(Metric::kOutput).result, CheckOutcome::Result::kPass);
  EXPECT_EQ(find(Metric::kArgument).result, CheckOutcome::Result::kPass);
  EXPECT_EQ(find(Metric::kPeak).result, CheckOutcome::Result::kSkipped);

  // No 'regression' in the budget: any growth fails.
  analyzer::BudgetLimits strict;
  EXPECT_EQ(analyzer::CheckModule(after, strict, &before)[Index(Metric::kOutput)].result,
            CheckOutcome::Result::kFail);
}

TEST(Baseline, ReadsAnalyzeJsonByContent) {
  const std::string json =
      "{\n  \"schema_version\": 1,\n  \"module\": \"jit_f\",\n  \"total_allocation_bytes\": 10,\n"
      "  \"argument_bytes\": 1, \"output_bytes\": 2, \"temp_bytes\": 3,\n"
      "  \"device_footprint_bytes\": 6, \"live_peak\": {\"bytes\": 5}}\n";
  EXPECT_TRUE(parsers::LooksLikeAnalyzeJson(json));
  EXPECT_FALSE(parsers::LooksLikeAnalyzeJson("BufferAssignment:\nallocation 0: size 4\n"));
  absl::StatusOr<analyzer::ModuleMetrics> m = parsers::MetricsFromAnalyzeJson(json, "old.json", 2);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->module, "jit_f");
  EXPECT_EQ(m->bytes[Index(Metric::kPeak)], 5);
  EXPECT_EQ(m->bytes[Index(Metric::kTemp)], 3);
  EXPECT_EQ(m->bytes[Index(Metric::kTotalAllocation)], 10);

  absl::StatusOr<analyzer::ModuleMetrics> bad =
      parsers::MetricsFromAnalyzeJson("{\"schema_version\": 1, \"module\": \"m\"}", "old.json", 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("old.json:1:1: error: "),
            std::string::npos) << bad.status();
  EXPECT_NE(std::string(bad.status().message()).find("expected this key"), std::string::npos);
}

// ---------------------------------------------------------------------------
// The binary.

CommandResult Memplan(std::vector<std::string> args) {
  args.insert(args.begin(), MEMPLAN_BINARY);
  return test::RunCommand(args, MEMPLAN_SOURCE_DIR);
}

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// libxml2's verdict on `xml`, and the number of <failure> elements in it.
struct XmlCheck {
  bool well_formed = false;
  int failures = 0;
  int testcases = 0;
  int testsuites = 0;
};

void Count(xmlNode* node, XmlCheck& check) {
  for (xmlNode* n = node; n != nullptr; n = n->next) {
    if (n->type == XML_ELEMENT_NODE) {
      const std::string name(reinterpret_cast<const char*>(n->name));
      if (name == "failure") ++check.failures;
      if (name == "testcase") ++check.testcases;
      if (name == "testsuite") ++check.testsuites;
    }
    Count(n->children, check);
  }
}

XmlCheck ParseXml(const std::string& xml) {
  XmlCheck check;
  xmlDoc* doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "junit.xml", nullptr,
                              XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) return check;
  check.well_formed = true;
  Count(xmlDocGetRootElement(doc), check);
  xmlFreeDoc(doc);
  return check;
}

TEST(CheckCli, GenerousBudgetPasses) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"),
                              "\"*\":\n  device: H100-80GB\n  peak: 0.8 * device\n"
                              "  temp: 1GiB\n  total_allocation: 1GiB\n"));
  const std::string junit = dir.File("results.xml");
  const CommandResult r =
      Memplan({"check", kMlp, "--budget", dir.File("budgets.yaml"), "--junit", junit});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("all 3 checks passed"), std::string::npos) << r.out;
  const XmlCheck xml = ParseXml(test::ReadFileOrDie(junit));
  EXPECT_TRUE(xml.well_formed);
  EXPECT_EQ(xml.testsuites, 1);
  EXPECT_EQ(xml.testcases, 3);
  EXPECT_EQ(xml.failures, 0);
}

TEST(CheckCli, TightBudgetFailsWithExitOneAndJUnitFailure) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"),
                              "jit_mlp_train_step:\n  temp: 300KiB\n  peak: 1GiB\n"));
  const std::string junit = dir.File("results.xml");
  const CommandResult r =
      Memplan({"check", kMlp, "--budget", dir.File("budgets.yaml"), "--junit", junit});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find("FAIL  temp  temp is 416.00 KiB (425,984 bytes), over its budget of "
                       "300.00 KiB (307,200 bytes) by 116.00 KiB (+38.7%)"),
            std::string::npos)
      << r.out;
  const std::string xml_text = test::ReadFileOrDie(junit);
  const XmlCheck xml = ParseXml(xml_text);
  EXPECT_TRUE(xml.well_formed) << xml_text;
  EXPECT_EQ(xml.testcases, 2);
  EXPECT_EQ(xml.failures, 1);
  EXPECT_NE(xml_text.find("<failure message=\"temp is 416.00 KiB"), std::string::npos)
      << xml_text;
  // Only the JUnit file is left: no temporary beside it.
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"budgets.yaml", "results.xml"}));
}

TEST(CheckCli, RegressionAgainstADumpAndItsJson) {
  test::TempDir dir;
  const std::string grown = test::GrownMlpCopy(dir.File("grown"));
  ASSERT_FALSE(grown.empty());
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"), "\"*\":\n  regression: 5%\n"));
  const char* kExpected = "temp grew from 416.00 KiB to 544.00 KiB (+30.8%), over the 5% allowed";

  CommandResult r = Memplan({"check", grown, "--budget", dir.File("budgets.yaml"), "--baseline",
                             kMlp, "--junit", dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find(kExpected), std::string::npos) << r.out;
  // +3.1% total is within 5%.
  EXPECT_NE(r.out.find("total_allocation grew from 4.01 MiB to 4.13 MiB (+3.1%), within the 5% "
                       "allowed"),
            std::string::npos)
      << r.out;
  const XmlCheck xml = ParseXml(test::ReadFileOrDie(dir.File("r.xml")));
  EXPECT_TRUE(xml.well_formed);
  EXPECT_EQ(xml.failures, 1);

  // The same baseline as `memplan analyze --format=json`, recognised by content.
  r = Memplan({"analyze", kMlp, "--format=json", "-o", dir.File("baseline.json")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Memplan({"check", grown, "--budget", dir.File("budgets.yaml"), "--baseline",
               dir.File("baseline.json")});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find(kExpected), std::string::npos) << r.out;

  // Against itself nothing grew.
  r = Memplan({"check", kMlp, "--budget", dir.File("budgets.yaml"), "--baseline",
               dir.File("baseline.json")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
}

TEST(CheckCli, EveryModuleOfADumpDirectoryIsASuite) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"),
                              "\"*\":\n  total_allocation: 1GiB\njit_train_step:\n  temp: 1MiB\n"));
  const CommandResult r = Memplan({"check", "samples/xla/two_modules", "--budget",
                                   dir.File("budgets.yaml"), "--junit", dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);  // jit_train_step's temp is 32 MiB
  const XmlCheck xml = ParseXml(test::ReadFileOrDie(dir.File("r.xml")));
  EXPECT_TRUE(xml.well_formed);
  EXPECT_EQ(xml.testsuites, 2);
  EXPECT_EQ(xml.failures, 1);

  // --module narrows it to one.
  const CommandResult one =
      Memplan({"check", "samples/xla/two_modules", "--module", "jit_init_params", "--budget",
               dir.File("budgets.yaml")});
  EXPECT_EQ(one.exit_code, 0) << Describe(one);
}

TEST(CheckCli, BadInputExitsTwoAndLeavesNoFile) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"), "\"*\":\n  peak: 12 bananas\n"));
  CommandResult r = Memplan({"check", kMlp, "--budget", dir.File("budgets.yaml"), "--junit",
                             dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("budgets.yaml:2:9: error: expected a byte count"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  peak: 12 bananas\n        ^"), std::string::npos) << r.err;

  ASSERT_TRUE(test::WriteFile(dir.File("ok.yaml"), "\"*\":\n  peak: 1GiB\n"));
  r = Memplan({"check", "no/such/dump", "--budget", dir.File("ok.yaml"), "--junit",
               dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  r = Memplan({"check", kMlp, "--budget", dir.File("ok.yaml"), "--baseline", "no/such/baseline",
               "--junit", dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  // A budget that names no module of the input checks nothing: not a pass.
  ASSERT_TRUE(test::WriteFile(dir.File("other.yaml"), "jit_other:\n  peak: 1GiB\n"));
  r = Memplan({"check", kMlp, "--budget", dir.File("other.yaml"), "--junit", dir.File("r.xml")});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("nothing was checked"), std::string::npos) << r.err;
  r = Memplan({"check", kMlp});  // --budget is required
  EXPECT_EQ(r.exit_code, 2) << Describe(r);

  EXPECT_EQ(dir.List(), (std::vector<std::string>{"budgets.yaml", "ok.yaml", "other.yaml"}));
}

// A budget this input cannot check (a peak without live ranges) says so and
// does not fail the run; --strict makes it a failure (exit 1, not 2: the
// input is fine).
TEST(CheckCli, PeakBudgetWithoutLiveRangesCannotBeChecked) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"), "\"*\":\n  peak: 1GiB\n"));
  const std::string tpu =
      "samples/xla/module_0105.jit_serve_step.tpu_after_optimizations-buffer-assignment.txt";
  CommandResult r = Memplan({"check", tpu, "--budget", dir.File("budgets.yaml")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("n/a   peak"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peak cannot be checked for this input"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("could not be checked"), std::string::npos) << r.out;
  r = Memplan({"check", tpu, "--budget", dir.File("budgets.yaml"), "--strict"});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find("FAIL  peak"), std::string::npos) << r.out;
}

// A violated budget exits 1 whatever else the run holds.
TEST(CheckCli, AViolatedBudgetExitsOne) {
  test::TempDir dir;
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"), "\"*\":\n  peak: 1KiB\n  temp: 1GiB\n"));
  const CommandResult r = Memplan({"check", kMlp, "--budget", dir.File("budgets.yaml")});
  EXPECT_EQ(r.exit_code, 1) << Describe(r);
  EXPECT_NE(r.out.find("FAIL  peak"), std::string::npos) << r.out;
}

// The peak a budget holds is the memory the live values occupy: on a dump
// where XLA's live peak counts shared memory twice, the budget reads the
// smaller, honest figure (the analysis JSON's occupied_peak).
TEST(CheckModule, PeakIsTheOccupiedPeak) {
  for (const test::Sample& sample : test::TruthSamples()) {
    absl::StatusOr<parsers::LoadedProgram> loaded =
        parsers::LoadProgram(test::SourcePath(sample.path), {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const analyzer::Analysis a = analyzer::Analysis::Run(loaded->program, {});
    const analyzer::ModuleMetrics m = analyzer::MetricsOf(loaded->program, a);
    ASSERT_TRUE(a.occupied_peak.has_value());
    EXPECT_EQ(m.bytes[Index(Metric::kPeak)], a.occupied_peak->bytes) << sample.name;
    EXPECT_LE(*m.bytes[Index(Metric::kPeak)], a.stats.total_allocation_bytes) << sample.name;
  }
}

// A dump cut short (`head -n 1400` of seed 004: inside its live ranges) has a
// live peak of a few MiB where the whole dump's is 1.02 GiB: its budgets fail
// unless --allow-truncated, and any dump read from standard input ("-") is
// the same as from its file.
TEST(CheckCli, TruncatedDumpFailsItsBudgetsUnlessAllowed) {
  test::TempDir dir;
  const std::string text =
      test::ReadFileOrDie(test::SourcePath("samples/xla/seed004_gpu_decode-buffer-assignment.txt"));
  size_t end = 0;
  for (int line = 0; line < 1400; ++line) end = text.find('\n', end) + 1;
  const std::string cut = dir.File("cut-buffer-assignment.txt");
  ASSERT_TRUE(test::WriteFile(cut, text.substr(0, end)));
  ASSERT_TRUE(test::WriteFile(dir.File("budgets.yaml"), "\"*\":\n  peak: 100MiB\n"));
  const CommandResult failed = Memplan({"check", cut, "--budget", dir.File("budgets.yaml")});
  EXPECT_EQ(failed.exit_code, 1) << Describe(failed);
  EXPECT_NE(failed.out.find("cannot be trusted: the input stops early"), std::string::npos)
      << failed.out;
  // The report says what is wrong; the command, not the view, names the flag.
  EXPECT_EQ(failed.out.find("--allow-truncated"), std::string::npos) << failed.out;
  EXPECT_NE(failed.err.find("--allow-truncated checks them anyway"), std::string::npos)
      << failed.err;
  const CommandResult allowed =
      Memplan({"check", cut, "--budget", dir.File("budgets.yaml"), "--allow-truncated"});
  EXPECT_EQ(allowed.exit_code, 0) << Describe(allowed);
  // The whole dump fails the same budget on its numbers.
  const CommandResult whole = Memplan({"check", "samples/xla/seed004_gpu_decode-buffer-assignment.txt",
                                       "--budget", dir.File("budgets.yaml")});
  EXPECT_EQ(whole.exit_code, 1) << Describe(whole);
  EXPECT_EQ(whole.out.find("cannot be trusted"), std::string::npos) << whole.out;
}

TEST(CheckCli, ReadsStandardInput) {
  const std::string file = "samples/pasted/buffer-assignment-bom-crlf.txt";
  const CommandResult from_file = Memplan({"analyze", file, "--format=json"});
  ASSERT_EQ(from_file.exit_code, 0) << Describe(from_file);
  const CommandResult from_stdin = test::RunCommand(
      {"/bin/sh", "-c", std::string(MEMPLAN_BINARY) + " analyze - --format=json < " + file},
      MEMPLAN_SOURCE_DIR);
  ASSERT_EQ(from_stdin.exit_code, 0) << Describe(from_stdin);
  const auto peak = [](const std::string& json) {
    const size_t at = json.find("\"live_peak\"");
    return at == std::string::npos ? std::string() : json.substr(at, 200);
  };
  EXPECT_FALSE(peak(from_file.out).empty()) << from_file.out;
  EXPECT_EQ(peak(from_stdin.out), peak(from_file.out));
}

// A module whose input stops early (a kInputEndsEarly note) fails every
// budget and regression that has its numbers, whatever they are, and says
// why; one the input cannot tell stays uncheckable. Asked to check it anyway,
// its numbers are held against the limits as usual.
TEST(CheckModule, AnInputThatStopsEarlyFailsUnlessCheckedAnyway) {
  analyzer::ModuleMetrics current;
  current.bytes[Index(Metric::kPeak)] = 10;  // far within the budget
  current.untrusted = ir::Note{ir::NoteCode::kInputEndsEarly,
                               {100, 100, 10, 10, 73, 0, 0},
                               {"cut.txt:1400:1", "buffer-live-ranges", "buffer-live-ranges"}};
  analyzer::ModuleMetrics baseline;
  baseline.bytes[Index(Metric::kPeak)] = 10;
  analyzer::BudgetLimits budget;
  budget.limit_bytes[Index(Metric::kPeak)] = int64_t{1} << 30;
  budget.limit_bytes[Index(Metric::kTemp)] = int64_t{1} << 30;  // temp: not known
  auto find = [](const std::vector<CheckOutcome>& outcomes, Metric metric, CheckOutcome::Kind kind) {
    for (const CheckOutcome& o : outcomes) {
      if (o.metric == metric && o.kind == kind) return o;
    }
    ADD_FAILURE() << "no outcome for " << analyzer::MetricKey(metric);
    return CheckOutcome{};
  };
  using Kind = CheckOutcome::Kind;
  const std::vector<CheckOutcome> failed = analyzer::CheckModule(current, budget, &baseline);
  const CheckOutcome peak = find(failed, Metric::kPeak, Kind::kBudget);
  EXPECT_EQ(peak.result, CheckOutcome::Result::kFail);
  ASSERT_TRUE(peak.untrusted.has_value());
  EXPECT_EQ(peak.untrusted->code, ir::NoteCode::kInputEndsEarly);
  const std::string words = viz::DescribeOutcome(peak, "");
  EXPECT_TRUE(words.starts_with("cannot be trusted: the input stops early, at cut.txt:1400:1"))
      << words;
  EXPECT_EQ(words.find("--"), std::string::npos) << words;  // a view names no flag
  EXPECT_EQ(find(failed, Metric::kPeak, Kind::kRegression).result, CheckOutcome::Result::kFail);
  EXPECT_EQ(find(failed, Metric::kTemp, Kind::kBudget).result, CheckOutcome::Result::kUncheckable);
  EXPECT_FALSE(find(failed, Metric::kTemp, Kind::kBudget).untrusted.has_value());
  EXPECT_EQ(find(failed, Metric::kTemp, Kind::kRegression).result, CheckOutcome::Result::kSkipped);

  analyzer::CheckOptions anyway;
  anyway.check_untrusted = true;
  const std::vector<CheckOutcome> checked = analyzer::CheckModule(current, budget, &baseline, anyway);
  for (const CheckOutcome& o : checked) {
    EXPECT_FALSE(analyzer::Fails(o)) << viz::DescribeOutcome(o, "");
    EXPECT_FALSE(o.untrusted.has_value());
  }
}

// MetricsOf takes the note from the program: a dump cut inside its live
// ranges (`head -n 1400` of seed 004) has it, the whole dump not.
TEST(CheckModule, MetricsOfACutDumpCarryItsNote) {
  const std::string whole_path =
      test::SourcePath("samples/xla/seed004_gpu_decode-buffer-assignment.txt");
  const std::string text = test::ReadFileOrDie(whole_path);
  size_t end = 0;
  for (int line = 0; line < 1400; ++line) end = text.find('\n', end) + 1;
  test::TempDir dir;
  const std::string cut = dir.File("cut-buffer-assignment.txt");
  ASSERT_TRUE(test::WriteFile(cut, text.substr(0, end)));
  const analyzer::ModuleMetrics cut_metrics = SampleMetrics(cut);
  ASSERT_TRUE(cut_metrics.untrusted.has_value());
  EXPECT_EQ(cut_metrics.untrusted->code, ir::NoteCode::kInputEndsEarly);
  EXPECT_FALSE(SampleMetrics(whole_path).untrusted.has_value());
}

// A TPU OOM message that says "arguments unknown size" and "Output size
// unknown." states neither: argument, output, alias, the device footprint
// and the total (which rests on them; the message states no total) are not
// stated, and no budget can pass on them; the HLO temp it states (8.57G) is.
TEST(CheckModule, UnknownSizesOfATpuOomAreNotMetrics) {
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(test::SourcePath("samples/pasted/tpu-oom-unknown-sizes.txt"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const analyzer::Analysis a = analyzer::Analysis::Run(loaded->program, {});
  using analyzer::StatsField;
  for (StatsField f : {StatsField::kArgument, StatsField::kOutput, StatsField::kAlias,
                       StatsField::kDeviceFootprint, StatsField::kTotalAllocation}) {
    EXPECT_EQ(a.stats.Get(f), std::nullopt) << static_cast<int>(f);
  }
  const std::optional<int64_t> temp = a.stats.Get(StatsField::kTemp);
  ASSERT_TRUE(temp.has_value());
  const double g = 1024.0 * 1024.0 * 1024.0;
  EXPECT_NEAR(static_cast<double>(*temp), 8.57 * g, 8.57 * g * 0.005);
  const analyzer::ModuleMetrics m = analyzer::MetricsOf(loaded->program, a);
  for (Metric metric : {Metric::kArgument, Metric::kOutput, Metric::kDeviceFootprint,
                        Metric::kTotalAllocation}) {
    EXPECT_FALSE(m.bytes[Index(metric)].has_value()) << analyzer::MetricKey(metric);
  }
  EXPECT_EQ(m.bytes[Index(Metric::kTemp)], temp);
}

}  // namespace
}  // namespace memplan
