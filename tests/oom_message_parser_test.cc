// The out-of-memory message parser: the GPU "BufferAssignment OOM
// Debugging." text (inside a traceback, with a log prefix on every line) and
// the TPU "Ran out of memory in memory space" text; category totals as
// analyze computes them from it; located errors.
#include "parsers/oom_message_parser.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "analyzer/memory_stats.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

absl::StatusOr<ir::Program> Oom(std::string_view text) {
  return parsers::ParseOomMessage({parsers::SourceText::FromString("oom.txt", text)}, ir::Program::Named("m"));
}

// The first note with `code`, or nullptr.
const ir::Note* FindNote(const ir::Program& p, ir::NoteCode code) {
  for (const ir::Note& n : p.notes) {
    if (n.code == code) return &n;
  }
  return nullptr;
}

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<ir::Program> p = Oom(text);
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : std::string(p.status().message());
}

// 1.95GiB read back: 1.95 x 2^30, rounded to the byte.
constexpr int64_t k195GiB = 2093796557;

TEST(OomMessageGpu, SampleGivesStatsAndPeakBuffers) {
  auto loaded =
      parsers::LoadProgram(test::SourcePath("samples/reports/gpt_train_step-oom-gpu.txt"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const ir::Program& p = loaded->program;
  EXPECT_EQ(p.input_format, "oom-message");
  EXPECT_EQ(p.module_name, "gpt_train_step-oom-gpu");
  EXPECT_TRUE(p.allocations.empty());
  EXPECT_EQ(p.diagnostics.total(), 0);  // the traceback around it is skipped

  ASSERT_TRUE(p.stated_categories.has_value());
  const ir::StatedCategoryBytes& s = *p.stated_categories;
  EXPECT_EQ(s.parameter, k195GiB);                // "1.95GiB"
  EXPECT_EQ(s.constant, 0);                       // "0B"
  EXPECT_EQ(s.maybe_live_out, k195GiB);           // "1.95GiB"
  EXPECT_EQ(s.preallocated_temp, 12101070356);    // "11.27GiB"
  EXPECT_EQ(s.total, 14194866913);                // "13.22GiB"
  EXPECT_EQ(s.fragmentation, 1599875318);         // "1.49GiB (11.27%)"
  EXPECT_FALSE(s.alias.has_value());
  ASSERT_NE(FindNote(p, ir::NoteCode::kOomAllocationFailed), nullptr);
  EXPECT_EQ(FindNote(p, ir::NoteCode::kOomAllocationFailed)->numbers,
            std::vector<int64_t>{12103213056});
  EXPECT_NE(FindNote(p, ir::NoteCode::kOomCategoriesRounded), nullptr);
  EXPECT_NE(FindNote(p, ir::NoteCode::kOomAliasUnknown), nullptr);

  ASSERT_EQ(p.values.size(), 7u);
  for (size_t i = 0; i < p.values.size(); ++i) EXPECT_EQ(p.values[i].id.value(), i + 1);
  const ir::Value& logits = p.values[0];
  EXPECT_EQ(test::NameOf(p, logits.instruction), "Buffer 1");
  EXPECT_EQ(logits.size, 3293642752);  // "3.07GiB", exact from f32[8,2048,50257]
  EXPECT_EQ(logits.shape_text, "f32[8,2048,50257]");
  EXPECT_EQ(test::Defining(p, logits).opcode_text, "custom-call");
  EXPECT_EQ(test::Defining(p, logits).metadata->source_file, "/home/user/gpt/model.py");
  EXPECT_EQ(test::Defining(p, logits).metadata->source_line, 212);
  EXPECT_TRUE(test::Defining(p, logits).metadata->op_name.starts_with("jit(train_step)/jit(main)/jvp(GPT)/lm_head/"));
  EXPECT_EQ(test::Defining(p, p.values[1]).metadata->op_type, "convert");
  const ir::Value& embedding = p.values[4];
  EXPECT_EQ(test::Defining(p, embedding).opcode, ir::Opcode::kParameter);  // "Entry Parameter Subshape:"
  EXPECT_EQ(embedding.shape_text, "f32[50257,1024]");
  EXPECT_EQ(embedding.size, 205852672);
  EXPECT_TRUE(test::Defining(p, embedding).metadata->empty());
  EXPECT_EQ(FindNote(p, ir::NoteCode::kOomRoundedBufferSizes), nullptr);  // shapes give sizes
}

TEST(OomMessageGpu, AnalyzeTakesTheStatedCategories) {
  auto loaded =
      parsers::LoadProgram(test::SourcePath("samples/reports/gpt_train_step-oom-gpu.txt"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const analyzer::MemoryStats stats = analyzer::ComputeMemoryStats(loaded->program);
  EXPECT_TRUE(stats.from_stated_categories);
  EXPECT_EQ(stats.argument_bytes, k195GiB);
  EXPECT_EQ(stats.output_bytes, k195GiB);
  EXPECT_EQ(stats.alias_bytes, 0);
  EXPECT_EQ(stats.temp_bytes, 12101070356);
  EXPECT_EQ(stats.constant_bytes, 0);
  EXPECT_EQ(stats.total_allocation_bytes, 14194866913);
  EXPECT_EQ(stats.device_footprint_bytes, 2 * k195GiB + 12101070356);
  EXPECT_TRUE(stats.TotalMatchesStated());
}

TEST(OomMessageGpu, BufferAssignmentStatsAreUnchanged) {
  // A program with allocations ignores stated categories.
  ir::Program p;
  ir::Allocation a;
  a.id = ir::AllocationId(0);
  a.size = 100;
  a.is_preallocated_temp = true;
  p.allocations.push_back(a);
  ir::StatedCategoryBytes stated;
  stated.parameter = 7;
  p.stated_categories = stated;
  const analyzer::MemoryStats stats = analyzer::ComputeMemoryStats(p);
  EXPECT_FALSE(stats.from_stated_categories);
  EXPECT_EQ(stats.argument_bytes, 0);
  EXPECT_EQ(stats.temp_bytes, 100);
}

TEST(OomMessageGpu, LogPrefixOnEveryLineAndEscapedQuotes) {
  const std::string prefix = "E0425 10:01:02.123456  4242 pjrt_stream_executor_client.cc:2826] ";
  std::string text;
  for (std::string_view line :
       {"Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 1048576 bytes.",
        "BufferAssignment OOM Debugging.", "BufferAssignment stats:",
        "             parameter allocation:    1.00MiB",
        "                 total allocation:    1.00MiB", "Peak buffers:", "\tBuffer 1:",
        "\t\tSize: 1.00MiB",
        "\t\tOperator: op_name=\"a \\\"b\\\" c\" source_file=\"f.py\" source_line=9 "
        "profile_type={SCHEDULE} deduplicated_name=\"fusion.1\"",
        "\t\tXLA Label: fusion", "\t\tShape: (f32[512,512], f32[])",
        "\t\t=========================="}) {
    text += prefix + std::string(line) + "\n";
  }
  text += prefix + "Some later log line.\n";
  auto p = Oom(text);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->stated_categories->parameter, 1048576);
  EXPECT_EQ(p->stated_categories->total, 1048576);
  EXPECT_FALSE(p->stated_categories->constant.has_value());
  ASSERT_EQ(p->values.size(), 1u);
  EXPECT_EQ(test::Defining(*p, p->values[0]).metadata->op_name, "a \\\"b\\\" c");  // as printed, escapes kept
  EXPECT_EQ(test::Defining(*p, p->values[0]).metadata->source_line, 9);
  EXPECT_EQ(p->values[0].size, 1048576);
  // A tuple's shape gives its pointer table, not the printed size.
  ASSERT_NE(FindNote(*p, ir::NoteCode::kOomRoundedBufferSizes), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kOomRoundedBufferSizes)->numbers, std::vector<int64_t>{1});
  ASSERT_NE(FindNote(*p, ir::NoteCode::kOomAllocationFailed), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kOomAllocationFailed)->numbers,
            std::vector<int64_t>{1048576});
  EXPECT_EQ(p->diagnostics.total(), 0);
}

TEST(OomMessageGpu, OnlyTheFirstMessageIsRead) {
  const std::string one =
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\n"
      "                 total allocation:        12B\nPeak buffers:\n";
  auto p = Oom(one + "\nnext\n" + one);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->stated_categories->total, 12);
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind,
            "more out-of-memory messages follow (only the first is read)");
  EXPECT_EQ(p->diagnostics.warnings()[0].first_location, "oom.txt:7:1");
}

TEST(OomMessageTpu, SampleGivesUsageOutputTempAndLargestAllocations) {
  auto loaded =
      parsers::LoadProgram(test::SourcePath("samples/reports/t5_train_step-oom-tpu.txt"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const ir::Program& p = loaded->program;
  EXPECT_EQ(p.input_format, "oom-message");
  EXPECT_EQ(p.diagnostics.total(), 0);
  const ir::StatedCategoryBytes& s = *p.stated_categories;
  EXPECT_EQ(s.parameter, 2684354560);        // "arguments 2.50G"
  EXPECT_EQ(s.maybe_live_out, 2684354560);   // "Output size 2.50G"
  EXPECT_EQ(s.alias, 2684354560);            // "shares 2.50G with arguments"
  EXPECT_EQ(s.preallocated_temp, 17297980785);  // "HLO temp 16.11G"
  EXPECT_FALSE(s.total.has_value());
  ASSERT_NE(FindNote(p, ir::NoteCode::kQuotedFromInput), nullptr);
  EXPECT_EQ(FindNote(p, ir::NoteCode::kQuotedFromInput)->texts,
            std::vector<std::string>{
                "Ran out of memory in memory space hbm. Used 18.62G of 15.48G hbm. Exceeded "
                "hbm capacity by 3.14G."});
  const ir::Note* types = FindNote(p, ir::NoteCode::kOomAllocationTypes);
  ASSERT_NE(types, nullptr);
  ASSERT_FALSE(types->texts.empty());
  EXPECT_EQ(types->texts[0], "HLO temp");
  EXPECT_EQ(types->numbers[0], 3);

  ASSERT_EQ(p.values.size(), 3u);
  EXPECT_EQ(test::NameOf(p, p.values[0].instruction), "fusion.2231");
  EXPECT_EQ(test::Defining(p, p.values[0]).opcode_text, "fusion");
  EXPECT_EQ(p.values[0].size, 3221225472);  // bf16[8,2048,98304] gives "3.00G" exactly
  EXPECT_EQ(test::NameOf(p, p.values[1].instruction), "convolution.77");
  EXPECT_EQ(test::Defining(p, p.values[1]).opcode_text, "convolution");
  EXPECT_EQ(test::NameOf(p, p.values[2].instruction), "copy.12");
  EXPECT_EQ(test::Defining(p, p.values[2]).opcode_text, "copy");
  EXPECT_EQ(p.values[2].size, 269484032);  // "257.00M": padded, no shape gives it
  EXPECT_EQ(test::Defining(p, p.values[0]).metadata->source_line, 519);

  const analyzer::MemoryStats stats = analyzer::ComputeMemoryStats(p);
  EXPECT_EQ(stats.alias_bytes, 2684354560);
  EXPECT_EQ(stats.device_footprint_bytes, 2684354560 + 17297980785);
  EXPECT_EQ(stats.total_allocation_bytes, stats.device_footprint_bytes);
}

TEST(OomMessageErrors, NameFileLineColumnAndWhatWasExpected) {
  const std::string none = ErrorOf("RESOURCE_EXHAUSTED: Out of memory.\n");
  EXPECT_TRUE(none.starts_with("oom.txt:1:1: error: expected an XLA out-of-memory message"))
      << none;
  const std::string header = ErrorOf("BufferAssignment OOM Debugging.\nstats:\n");
  EXPECT_TRUE(header.starts_with("oom.txt:2:1: error: expected 'BufferAssignment stats:'"))
      << header;
  const std::string stat = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\n"
      "             parameter allocation:    lots\n");
  EXPECT_TRUE(stat.starts_with("oom.txt:3:39: error: expected a size such as 1.00MiB"))
      << stat;
  const std::string row = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\n  total allocation 5B\n");
  EXPECT_TRUE(row.starts_with("oom.txt:3:22: error: expected a stats row")) << row;
  const std::string size = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\nPeak buffers:\n"
      "\tBuffer 1:\n\t\tSize: 1.53QiB\n");
  EXPECT_TRUE(size.starts_with("oom.txt:5:13: error: expected the buffer's size")) << size;
  const std::string no_size = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\nPeak buffers:\n"
      "\tBuffer 1:\n\t\tXLA Label: add\n\t\t==========================\n");
  EXPECT_TRUE(no_size.starts_with("oom.txt:6:3: error: expected 'Size:' in buffer 1")) << no_size;
  const std::string quote = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\nPeak buffers:\n"
      "\tBuffer 1:\n\t\tSize: 4B\n\t\tOperator: op_name=\"open\n");
  EXPECT_TRUE(quote.starts_with("oom.txt:6:26: error: expected '\"' closing the value of "
                                "op_name"))
      << quote;
  const std::string twice = ErrorOf(
      "BufferAssignment OOM Debugging.\nBufferAssignment stats:\nPeak buffers:\n"
      "\tBuffer 1:\n\t\tSize: 4B\n\tBuffer 1:\n");
  EXPECT_TRUE(twice.starts_with("oom.txt:6:9: error: expected each buffer once; buffer 1 is listed twice")) << twice;
  const std::string utf8 = ErrorOf("BufferAssignment OOM Debugging.\xC3\n");
  EXPECT_TRUE(utf8.starts_with("oom.txt:1:32: error: expected UTF-8 text")) << utf8;
}

TEST(OomMessageSniff, ByMarker) {
  EXPECT_TRUE(parsers::LooksLikeOomMessage("x\nBufferAssignment OOM Debugging.\n", "a.txt"));
  EXPECT_TRUE(parsers::LooksLikeOomMessage(
      "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used", "log"));
  EXPECT_FALSE(parsers::LooksLikeOomMessage("BufferAssignment:\nallocation 0: size 4:\n", "b"));
}

}  // namespace
}  // namespace memplan
