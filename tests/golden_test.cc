// Golden tests: the full text and JSON report of `memplan analyze` for every
// sample, run from the source root with relative paths so that the output
// does not depend on the machine. The expected outputs live in
// tests/golden/<sample>.txt and tests/golden/<sample>.json.
//
// After an intended change to the output, regenerate them and review the diff:
//
//   MEMPLAN_UPDATE_GOLDEN=1 ./build/tests/memplan_cli_tests --gtest_filter='Golden*'
//   git diff tests/golden
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::Sample;

bool UpdateRequested() {
  const char* v = std::getenv("MEMPLAN_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// "line N: expected ... / actual ..." for the first difference.
std::string FirstDifference(const std::string& expected, const std::string& actual) {
  size_t line = 1;
  size_t e = 0;
  size_t a = 0;
  while (e < expected.size() || a < actual.size()) {
    const size_t e_end = std::min(expected.find('\n', e), expected.size());
    const size_t a_end = std::min(actual.find('\n', a), actual.size());
    const std::string el = expected.substr(e, e_end - e);
    const std::string al = actual.substr(a, a_end - a);
    if (el != al || (e >= expected.size()) != (a >= actual.size())) {
      return "line " + std::to_string(line) + ":\n  expected: " + el + "\n  actual:   " + al;
    }
    e = e_end + 1;
    a = a_end + 1;
    ++line;
  }
  return "(the outputs differ only in a trailing newline)";
}

class GoldenTest : public ::testing::TestWithParam<Sample> {
 protected:
  void Check(const std::string& format, const std::string& extension) {
    const Sample& sample = GetParam();
    std::vector<std::string> args = {MEMPLAN_BINARY, "analyze", "--format=" + format};
    if (!sample.module.empty()) args.push_back("--module=" + sample.module);
    args.push_back(sample.path);
    const test::CommandResult r = test::RunCommand(args, MEMPLAN_SOURCE_DIR);
    ASSERT_EQ(r.exit_code, 0) << "signal " << r.signal << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const std::string golden = test::SourcePath("tests/golden/" + sample.name + extension);
    if (UpdateRequested()) {
      ASSERT_TRUE(test::WriteFile(golden, r.out)) << golden;
      std::cerr << "updated " << golden << "\n";
      return;
    }
    ASSERT_TRUE(test::FileExists(golden))
        << golden << " is missing; create it with MEMPLAN_UPDATE_GOLDEN=1 (see golden_test.cc)";
    const std::string expected = test::ReadFileOrDie(golden);
    EXPECT_TRUE(expected == r.out)
        << "memplan analyze --format=" << format << " " << sample.path << " differs from "
        << golden << " at " << FirstDifference(expected, r.out)
        << "\nIf the change is intended, regenerate with MEMPLAN_UPDATE_GOLDEN=1 "
           "(see tests/golden_test.cc) and review the diff.";
  }
};

TEST_P(GoldenTest, Text) { Check("text", ".txt"); }
TEST_P(GoldenTest, Json) { Check("json", ".json"); }

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest, ::testing::ValuesIn(test::AllSamples()),
                         test::SampleName());

}  // namespace
}  // namespace memplan
