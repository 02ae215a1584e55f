// Inputs for the check and diff tests: a copy of a JAX sample edited so that
// one temporary grew, as a change to a model would make it grow.
#ifndef MEMPLAN_TESTS_CI_TEST_UTIL_H_
#define MEMPLAN_TESTS_CI_TEST_UTIL_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan::test {

// Replaces the one occurrence of `from` in `text`; a test failure when there
// is not exactly one.
inline void ReplaceOnce(std::string& text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << "not found: " << from;
  ASSERT_EQ(text.find(from, at + 1), std::string::npos) << "found twice: " << from;
  text.replace(at, from.size(), to);
}

// samples/jax/mlp_train_step copied to `directory` (created), with the temp
// arena (allocation 30) grown from 425,984 to 557,056 bytes and its value
// broadcast_maximum_fusion grown from f32[64,512] (128 KiB) to f32[128,512]
// (256 KiB). Returns `directory`, or "" (and a test failure) on error.
inline std::string GrownMlpCopy(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(directory, ec);
  fs::copy(SourcePath("samples/jax/mlp_train_step"), directory, fs::copy_options::recursive, ec);
  if (ec) {
    ADD_FAILURE() << "cannot copy the sample: " << ec.message();
    return "";
  }
  const std::string file =
      directory + "/jit_mlp_train_step.cpu_after_optimizations-buffer-assignment.txt";
  std::string text = ReadFileOrDie(file);
  ReplaceOnce(text, "allocation 30: size 425984, preallocated-temp:",
              "allocation 30: size 557056, preallocated-temp:");
  ReplaceOnce(text,
              "<126 broadcast_maximum_fusion @0> (size=131072,offset=0): f32[64,512]{1,0}",
              "<126 broadcast_maximum_fusion @0> (size=262144,offset=0): f32[128,512]{1,0}");
  if (testing::Test::HasFailure() || !WriteFile(file, text)) return "";
  return directory;
}

}  // namespace memplan::test

#endif  // MEMPLAN_TESTS_CI_TEST_UTIL_H_
