// Inputs as people paste them (parsers/input_text.h): cleaning (byte-order
// mark, CR line ends, colour codes, log prefixes, terminal-wrapped lines)
// with locations that still point into the file as read; every sample in
// samples/pasted/ held to the numbers of its clean original or to those its
// README works out; and dumps cut short anywhere (every line of seed 004,
// every byte of a smaller dump) either read with a note that says where they
// stop, or fail with file:line:col, never a silently wrong peak.
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "gtest/gtest.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/input_text.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using parsers::InputCleanup;
using parsers::LogPrefixKind;
using parsers::SourceText;

constexpr const char* kGpuOom = "samples/reports/gpt_train_step-oom-gpu.txt";
constexpr const char* kTpuOom = "samples/reports/t5_train_step-oom-tpu.txt";
constexpr const char* kModule42 =
    "samples/xla/module_0042.jit_train_step.sm_8.0_gpu_after_optimizations-buffer-assignment.txt";
constexpr const char* kSeed004 = "samples/xla/seed004_gpu_decode-buffer-assignment.txt";

std::shared_ptr<const SourceText> Clean(std::string_view text, InputCleanup* cleanup) {
  return parsers::CleanInputText(SourceText::FromString("in.txt", text), cleanup);
}

const ir::Note* FindNote(const ir::Program& program, ir::NoteCode code) {
  for (const ir::Note& note : program.notes) {
    if (note.code == code) return &note;
  }
  return nullptr;
}

ir::Program Load(const std::string& relative) {
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(test::SourcePath(relative), {});
  EXPECT_TRUE(loaded.ok()) << relative << ": " << loaded.status();
  return loaded.ok() ? std::move(loaded->program) : ir::Program();
}

// ------------------------------------------------------------------ cleaning

TEST(CleanInput, LeavesACleanTextAlone) {
  const auto raw = SourceText::FromString("in.txt", "BufferAssignment:\nallocation 0: size 4:\n");
  InputCleanup cleanup;
  EXPECT_EQ(parsers::CleanInputText(raw, &cleanup), raw);
  EXPECT_FALSE(cleanup.any());
}

TEST(CleanInput, RemovesByteOrderMarkAndCrlfAndLocatesIntoTheFile) {
  InputCleanup cleanup;
  const auto text = Clean("\xEF\xBB\xBF" "ab\r\ncd\r\n", &cleanup);
  EXPECT_EQ(text->text(), "ab\ncd\n");
  EXPECT_TRUE(cleanup.byte_order_mark);
  EXPECT_EQ(cleanup.crlf_line_ends, 2);
  // 'a' is the file's byte 3 (after the mark), line 1 column 4; 'd' line 2 column 2.
  EXPECT_EQ(text->LocationString(size_t{0}), "in.txt:1:4");
  EXPECT_EQ(text->LocationString(4), "in.txt:2:2");
  const absl::Status error = text->ErrorAt(text->text().data() + 4, "expected x");
  EXPECT_EQ(std::string(error.message()).substr(0, 30), "in.txt:2:2: error: expected x\n");
}

TEST(CleanInput, ReadsLoneCarriageReturnsAsLineEnds) {
  InputCleanup cleanup;
  const auto text = Clean("a\rbc\rdef\r", &cleanup);
  EXPECT_EQ(text->text(), "a\nbc\ndef\n");
  EXPECT_EQ(cleanup.cr_line_ends, 3);
  EXPECT_EQ(text->LocationString(3), "in.txt:2:2");  // 'c'
  const absl::Status error = text->ErrorAt(text->text().data() + 7, "expected y");  // 'f'
  EXPECT_NE(std::string(error.message()).find("in.txt:3:3: error: expected y\ndef\n  ^"),
            std::string::npos)
      << error.message();
}

TEST(CleanInput, RemovesColourCodesKeepingColumns) {
  InputCleanup cleanup;
  const auto text = Clean("\x1b[31mred\x1b[0m text\n", &cleanup);
  EXPECT_EQ(text->text(), "red text\n");
  EXPECT_EQ(cleanup.colour_codes, 2);
  EXPECT_EQ(text->LocationString(1), "in.txt:1:7");  // 'e' after the 5-byte code
  EXPECT_EQ(text->LocationString(4), "in.txt:1:14");  // 't' after both codes
}

struct PrefixCase {
  const char* prefix;
  LogPrefixKind kind;
};

TEST(CleanInput, RemovesEachLogPrefixKind) {
  const PrefixCase cases[] = {
      {"\x1b[2m\x1b[36m(MeshHostWorker pid=489)\x1b[0m ", LogPrefixKind::kRay},
      {"[2m[36m(MeshHostWorker pid=489)[0m ", LogPrefixKind::kRay},  // ESC lost in a paste
      {"(pid=1234, ip=10.0.0.7) ", LogPrefixKind::kRay},
      {"I1122 10:00:00.123456 1234 file.cc:42] ", LogPrefixKind::kGlog},
      {"E0000 00:00:1732012345.123456   48213 pjrt_client.cc:2985] ", LogPrefixKind::kGlog},
      {"2020-05-04 09:05:40.719332: E    1578 tensorflow/compiler/xla/xla_util.cc:76] ",
       LogPrefixKind::kTensorFlowLog},
      {"2022-10-15 18:07:41.780474: W external/tpu_client.cc:617] ",
       LogPrefixKind::kTensorFlowLog},
      {"2024-01-01 10:00:00,000 - INFO - ", LogPrefixKind::kPythonLogging},
      {"2024-05-02 14:21:07,512 - absl - ERROR - ", LogPrefixKind::kPythonLogging},
  };
  for (const PrefixCase& c : cases) {
    const std::string prefix = c.prefix;
    const std::string text = prefix + "BufferAssignment:\n" + prefix +
                             "allocation 0: size 4, constant:\n" + prefix +
                             " value: <1 c @0> (size=4,offset=0): f32[]\n";
    InputCleanup cleanup;
    const auto cleaned = Clean(text, &cleanup);
    EXPECT_EQ(cleaned->text(),
              "BufferAssignment:\nallocation 0: size 4, constant:\n value: <1 c @0> "
              "(size=4,offset=0): f32[]\n")
        << c.prefix;
    EXPECT_EQ(cleanup.log_prefix, c.kind) << c.prefix;
    EXPECT_EQ(cleanup.prefixed_lines, 3) << c.prefix;
    // The value line's '<' is in column prefix + 9 of line 3 (1-based).
    const size_t lt = cleaned->text().find('<');
    EXPECT_EQ(cleaned->LocationString(lt),
              "in.txt:3:" + std::to_string(prefix.size() + 9))
        << c.prefix;
  }
}

TEST(CleanInput, KeepsPrefixesWhenFewLinesHaveThem) {
  const std::string text =
      "I1122 10:00:00.123456 1234 file.cc:42] one\nplain\nplain\nplain\nplain\n";
  InputCleanup cleanup;
  EXPECT_EQ(Clean(text, &cleanup)->text(), text);
  EXPECT_EQ(cleanup.log_prefix, LogPrefixKind::kNone);
}

bool StartsWithA(std::string_view line) { return line.starts_with("A"); }

TEST(JoinWrappedLines, JoinsLinesBrokenAtTheTerminalWidth) {
  const std::string long_line = "A" + std::string(59, 'x');  // 60 columns
  const std::string text = long_line + "\nyyy\nA short\n" + long_line + "\nzz\nAnother\n";
  InputCleanup cleanup;
  const auto joined = parsers::JoinWrappedLines(SourceText::FromString("in.txt", text),
                                                {StartsWithA, nullptr}, &cleanup);
  EXPECT_EQ(joined->text(), long_line + "yyy\nA short\n" + long_line + "zz\nAnother\n");
  EXPECT_EQ(cleanup.joined_lines, 2);
  EXPECT_EQ(cleanup.wrap_width, 60);
  // "yyy" was line 2 of the file.
  EXPECT_EQ(joined->LocationString(60), "in.txt:2:1");
}

TEST(JoinWrappedLines, LeavesShortBreaksAlone) {
  const std::string text = "A short line\nnot a start\n";
  const auto source = SourceText::FromString("in.txt", text);
  EXPECT_EQ(parsers::JoinWrappedLines(source, {StartsWithA, nullptr}, nullptr), source);
}

// ------------------------------------------------------------------ samples

void ExpectSameOomMessage(const ir::Program& pasted, const ir::Program& original,
                          size_t buffers) {
  ASSERT_TRUE(pasted.stated_categories.has_value());
  ASSERT_TRUE(original.stated_categories.has_value());
  const ir::StatedCategoryBytes& a = *pasted.stated_categories;
  const ir::StatedCategoryBytes& b = *original.stated_categories;
  EXPECT_EQ(a.parameter, b.parameter);
  EXPECT_EQ(a.maybe_live_out, b.maybe_live_out);
  EXPECT_EQ(a.preallocated_temp, b.preallocated_temp);
  EXPECT_EQ(a.total, b.total);
  EXPECT_EQ(a.alias, b.alias);
  ASSERT_EQ(pasted.values.size(), buffers);
  ASSERT_GE(original.values.size(), buffers);
  for (size_t i = 0; i < buffers; ++i) {
    const ir::Value& x = pasted.values[i];
    const ir::Value& y = original.values[i];
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.size, y.size) << i;
    EXPECT_EQ(x.shape_text, y.shape_text) << i;
    const ir::Instruction& xi = pasted.DefiningInstruction(x);
    const ir::Instruction& yi = original.DefiningInstruction(y);
    EXPECT_EQ(xi.metadata->op_name, yi.metadata->op_name) << i;
    EXPECT_EQ(xi.metadata->source_line, yi.metadata->source_line) << i;
  }
  EXPECT_EQ(pasted.diagnostics.total(), 0);
}

TEST(PastedSamples, GpuOomWithRayPrefixAndColourCodes) {
  const ir::Program pasted = Load("samples/pasted/gpu-oom-ray-prefix.txt");
  ExpectSameOomMessage(pasted, Load(kGpuOom), 2);
  const ir::Note* note = FindNote(pasted, ir::NoteCode::kInputCleaned);
  ASSERT_NE(note, nullptr);
  const std::string text = test::ReadFileOrDie(test::SourcePath("samples/pasted/gpu-oom-ray-prefix.txt"));
  const int64_t lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_EQ(note->numbers[3], 3 * lines);  // colour codes
  EXPECT_EQ(note->numbers[4], lines);      // prefixed lines
  EXPECT_EQ(note->texts[1], "ray");
}

TEST(PastedSamples, GpuOomWithGlogPrefixBehindATraceback) {
  const ir::Program pasted = Load("samples/pasted/gpu-oom-glog-prefix.txt");
  ExpectSameOomMessage(pasted, Load(kGpuOom), 2);
  ASSERT_NE(FindNote(pasted, ir::NoteCode::kOomAllocationFailed), nullptr);
  EXPECT_EQ(FindNote(pasted, ir::NoteCode::kOomAllocationFailed)->numbers[0], 12103213056);
}

TEST(PastedSamples, TpuOomWithPythonLoggingPrefix) {
  const ir::Program pasted = Load("samples/pasted/tpu-oom-python-logging.txt");
  ExpectSameOomMessage(pasted, Load(kTpuOom), 2);
  EXPECT_EQ(FindNote(pasted, ir::NoteCode::kInputCleaned)->texts[1], "python-logging");
}

TEST(PastedSamples, TpuOomWrappedAtATerminalWidth) {
  const ir::Program pasted = Load("samples/pasted/tpu-oom-wrapped-100.txt");
  ExpectSameOomMessage(pasted, Load(kTpuOom), 2);
  const ir::Note* note = FindNote(pasted, ir::NoteCode::kInputCleaned);
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->numbers[6], 100);  // the width
  EXPECT_GT(note->numbers[5], 0);
}

// Within the 0.5% a size printed with two decimals allows.
void ExpectAbout(std::optional<int64_t> bytes, double printed, double unit) {
  ASSERT_TRUE(bytes.has_value());
  EXPECT_NEAR(static_cast<double>(*bytes), printed * unit, printed * unit * 0.005);
}

constexpr double kM = 1024.0 * 1024.0;
constexpr double kG = kM * 1024.0;

TEST(PastedSamples, TpuOomWithUnknownSizesLeavesThemUnstated) {
  const ir::Program p = Load("samples/pasted/tpu-oom-unknown-sizes.txt");
  ASSERT_TRUE(p.stated_categories.has_value());
  EXPECT_EQ(p.stated_categories->parameter, std::nullopt);
  EXPECT_EQ(p.stated_categories->maybe_live_out, std::nullopt);
  EXPECT_EQ(p.stated_categories->alias, std::nullopt);
  ExpectAbout(p.stated_categories->preallocated_temp, 8.57, kG);
  std::vector<std::string> unknown;
  for (const ir::Note& note : p.notes) {
    if (note.code == ir::NoteCode::kOomSizeNotStated) unknown.push_back(note.texts[0]);
  }
  EXPECT_EQ(unknown, (std::vector<std::string>{"arguments", "output"}));
  ASSERT_EQ(p.values.size(), 2u);
  EXPECT_EQ(p.values[0].size, int64_t{4} * 256 * 256 * 256 * 4);  // f32[4,256,256,256]
  EXPECT_EQ(p.values[1].size, int64_t{4} * 256 * 256 * 256 * 2);  // bf16[4,256,256,256]
  EXPECT_EQ(p.diagnostics.total(), 0);
}

TEST(PastedSamples, OlderTpuWordingWithAttemptingToReserve) {
  const ir::Program p = Load("samples/pasted/tpu-oom-reserve.txt");
  EXPECT_EQ(p.input_format, "oom-message");
  ASSERT_TRUE(p.stated_categories.has_value());
  ExpectAbout(p.stated_categories->parameter, 356.00, kM);
  ExpectAbout(p.stated_categories->maybe_live_out, 4.12, kG);
  ExpectAbout(p.stated_categories->preallocated_temp, 2.09, kG);
  EXPECT_EQ(p.stated_categories->alias, std::nullopt);
  ASSERT_EQ(p.values.size(), 3u);
  EXPECT_EQ(p.values[0].size, int64_t{32} * 64 * 256 * 256 * 4);
  EXPECT_EQ(p.values[1].size, int64_t{32} * 64 * 256 * 256 * 2);
  ExpectAbout(p.values[2].size, 11.50, kM);
  const ir::Note* quoted = FindNote(p, ir::NoteCode::kQuotedFromInput);
  ASSERT_NE(quoted, nullptr);
  EXPECT_TRUE(quoted->texts[0].starts_with("Attempting to reserve 2.10G at the bottom of memory"))
      << quoted->texts[0];
  EXPECT_EQ(p.diagnostics.total(), 0) << p.diagnostics.warnings().front().kind;
}

void ExpectSameDump(const ir::Program& pasted, const ir::Program& original) {
  ASSERT_EQ(pasted.allocations.size(), original.allocations.size());
  for (size_t i = 0; i < pasted.allocations.size(); ++i) {
    EXPECT_EQ(pasted.allocations[i].id, original.allocations[i].id);
    EXPECT_EQ(pasted.allocations[i].size, original.allocations[i].size);
  }
  ASSERT_EQ(pasted.values.size(), original.values.size());
  for (size_t i = 0; i < pasted.values.size(); ++i) {
    EXPECT_EQ(pasted.values[i].size, original.values[i].size);
    EXPECT_EQ(pasted.values[i].offset, original.values[i].offset);
    EXPECT_EQ(pasted.values[i].shape_text, original.values[i].shape_text);
    EXPECT_EQ(pasted.values[i].live_range.has_value(), original.values[i].live_range.has_value());
  }
  EXPECT_EQ(pasted.schedule.instructions.size(), original.schedule.instructions.size());
  EXPECT_EQ(pasted.diagnostics.total(), original.diagnostics.total());
  EXPECT_EQ(FindNote(pasted, ir::NoteCode::kInputEndsEarly), nullptr);
  const analyzer::Analysis a = analyzer::Analysis::Run(pasted, {});
  ASSERT_TRUE(a.peak.has_value());
  EXPECT_EQ(a.peak->bytes, 13633544);  // samples/xla/README.md
  EXPECT_EQ(a.peak->step, 6);
}

TEST(PastedSamples, BufferAssignmentWithByteOrderMarkAndCrlf) {
  const ir::Program p = Load("samples/pasted/buffer-assignment-bom-crlf.txt");
  ExpectSameDump(p, Load(kModule42));
  const ir::Note* note = FindNote(p, ir::NoteCode::kInputCleaned);
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->numbers[0], 1);
  EXPECT_EQ(note->numbers[1], 152);  // the sample's lines
}

TEST(PastedSamples, BufferAssignmentWithCarriageReturnsOnly) {
  ExpectSameDump(Load("samples/pasted/buffer-assignment-cr.txt"), Load(kModule42));
}

TEST(PastedSamples, BufferAssignmentWrappedAtATerminalWidth) {
  const ir::Program p = Load("samples/pasted/buffer-assignment-wrapped-100.txt");
  ExpectSameDump(p, Load(kModule42));
  const ir::Note* note = FindNote(p, ir::NoteCode::kInputCleaned);
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->numbers[5], 15);  // lines of 100 columns followed by their rest
  EXPECT_EQ(note->numbers[6], 100);
}

TEST(PastedSamples, ErrorsInACrlfFilePointIntoTheFile) {
  std::string text = test::ReadFileOrDie(test::SourcePath("samples/pasted/buffer-assignment-bom-crlf.txt"));
  const size_t at = text.find("size 4194304, parameter 0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 5, 7, "x194304");
  test::TempDir dir;
  const std::string path = dir.File("crlf.txt");
  ASSERT_TRUE(test::WriteFile(path, text));
  const absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, {});
  ASSERT_FALSE(loaded.ok());
  // Line 2, column 20 ("allocation 0: size " is 19 bytes).
  EXPECT_NE(std::string(loaded.status().message()).find("crlf.txt:2:20: error:"), std::string::npos)
      << loaded.status();
}

TEST(PastedSamples, ErrorsInAPrefixedLogPointIntoTheFile) {
  std::string text = test::ReadFileOrDie(test::SourcePath("samples/pasted/gpu-oom-glog-prefix.txt"));
  const size_t at = text.find("Size: 3.07GiB");
  ASSERT_NE(at, std::string::npos);
  text.replace(at + 6, 4, "x.07");
  const size_t line_start = text.rfind('\n', at) + 1;
  const int64_t line = std::count(text.begin(), text.begin() + at, '\n') + 1;
  test::TempDir dir;
  const std::string path = dir.File("log.txt");
  ASSERT_TRUE(test::WriteFile(path, text));
  const absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(path, {});
  ASSERT_FALSE(loaded.ok());
  const std::string where =
      "log.txt:" + std::to_string(line) + ":" + std::to_string(at + 6 - line_start + 1) + ": error:";
  EXPECT_NE(std::string(loaded.status().message()).find(where), std::string::npos)
      << where << "\n" << loaded.status();
}

TEST(PastedSamples, OldestBufferAssignmentFormWithAddressesAndBareShapes) {
  const ir::Program p = Load("samples/pasted/buffer-assignment-address.txt");
  EXPECT_EQ(p.input_format, "buffer-assignment");
  ASSERT_EQ(p.allocations.size(), 7u);
  int64_t sum = 0;
  for (const ir::Allocation& a : p.allocations) sum += a.size;
  EXPECT_EQ(sum, 32928);
  EXPECT_EQ(p.stated_total_bytes, 32928);
  EXPECT_EQ(p.allocations[0].parameter_shape_text, "f32[256,32]");
  EXPECT_EQ(p.allocations[0].parameter_number, 0);
  ASSERT_TRUE(p.allocations[6].output_shape_text.has_value());
  EXPECT_EQ(*p.allocations[6].output_shape_text, "(f32[32], s32[])");
  EXPECT_TRUE(p.allocations[6].maybe_live_out);
  EXPECT_TRUE(p.allocations[5].is_thread_local);
  EXPECT_EQ(p.diagnostics.total(), 0);
  const analyzer::Analysis a = analyzer::Analysis::Run(p, {});
  EXPECT_EQ(a.stats.argument_bytes, 32768);
  EXPECT_EQ(a.stats.output_bytes, 128 + 16);
}

TEST(PastedSamples, MemoryUsageReportSectionPastedAlone) {
  const ir::Program p = Load("samples/pasted/memory-usage-report-section.txt");
  EXPECT_EQ(p.input_format, "memory-usage-report");
  EXPECT_EQ(p.stated_total_bytes, 1207959552);
  ASSERT_EQ(p.allocations.size(), 1u);
  EXPECT_EQ(p.allocations[0].id, ir::AllocationId(3));
  EXPECT_EQ(p.allocations[0].size, 1073741824);
  EXPECT_TRUE(p.allocations[0].is_preallocated_temp);
  ASSERT_EQ(p.values.size(), 4u);
  std::vector<int64_t> offsets;
  for (const ir::Value& v : p.values) {
    EXPECT_EQ(v.size, 268435456);
    offsets.push_back(v.offset);
  }
  std::sort(offsets.begin(), offsets.end());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 268435456, 536870912, 805306368}));
  const ir::Note* outside = FindNote(p, ir::NoteCode::kReportBytesOutsideRows);
  ASSERT_NE(outside, nullptr);
  EXPECT_EQ(outside->numbers[0], 1207959552 - 1073741824);
  for (const ir::Warning& w : p.diagnostics.warnings()) {
    ADD_FAILURE() << w.kind << " at " << w.first_location << " (" << w.count << ")";
  }
}

TEST(PastedSamples, HeaderOnlyIsNotASilentEmptyProgram) {
  const ir::Program p = Load("samples/pasted/buffer-assignment-header-only.txt");
  const ir::Note* note = FindNote(p, ir::NoteCode::kInputEndsEarly);
  ASSERT_NE(note, nullptr);
  EXPECT_NE(std::find(note->texts.begin(), note->texts.end(), "allocations"), note->texts.end());
}

TEST(PastedSamples, UnknownFormatSaysWhatEachFormatExpected) {
  const absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(test::SourcePath("samples/pasted/not-a-dump.txt"), {});
  ASSERT_FALSE(loaded.ok());
  const std::string message(loaded.status().message());
  for (const char* format : {"buffer-assignment: ", "oom-message: ", "memory-usage-report: ",
                             "hlo-text: "}) {
    EXPECT_NE(message.find(format), std::string::npos) << format << "\n" << message;
  }
  EXPECT_NE(message.find("not-a-dump.txt:1:1: error: expected"), std::string::npos) << message;
}

// --------------------------------------------------------------- truncation

struct Cut {
  absl::StatusOr<ir::Program> program;
  std::optional<analyzer::LivePeak> peak;
  bool noted = false;
};

Cut ParseCut(std::string_view text) {
  Cut cut;
  cut.program = parsers::ParseBufferAssignment({SourceText::FromString("cut.txt", text)},
                                               ir::Program::Named("cut"));
  if (!cut.program.ok()) return cut;
  cut.peak = analyzer::Analysis::Run(*cut.program, {}).peak;
  cut.noted = FindNote(*cut.program, ir::NoteCode::kInputEndsEarly) != nullptr;
  return cut;
}

const std::regex kLocatedError(R"(^cut\.txt:[0-9]+:[0-9]+: error: )");

TEST(Truncation, EveryLineCutOfSeed004IsNotedOrHasTheWholePeak) {
  const std::string text = test::ReadFileOrDie(test::SourcePath(kSeed004));
  std::vector<size_t> line_ends;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_ends.push_back(i + 1);
  }
  const size_t live_range_at = text.find("HloLiveRange (max ");
  ASSERT_NE(live_range_at, std::string::npos);
  const Cut whole = ParseCut(text);
  ASSERT_TRUE(whole.program.ok());
  ASSERT_TRUE(whole.peak.has_value());
  EXPECT_FALSE(whole.noted);
  EXPECT_EQ(whole.peak->bytes, 1092637220);  // samples/seeds README: the listed peak bytes
  int noted = 0;
  for (size_t n = 1; n < line_ends.size(); ++n) {  // every cut that drops a line
    const size_t end = line_ends[n - 1];
    const Cut cut = ParseCut(std::string_view(text).substr(0, end));
    if (!cut.program.ok()) {
      EXPECT_TRUE(std::regex_search(std::string(cut.program.status().message()), kLocatedError))
          << "cut after line " << n << ": " << cut.program.status();
      continue;
    }
    noted += cut.noted;
    if (end > live_range_at && cut.peak) {
      EXPECT_TRUE(cut.noted) << "cut after line " << n << " drops the live-range tail, reports "
                             << cut.peak->bytes << " bytes at step " << cut.peak->step
                             << " and says nothing";
    }
    if (cut.peak && (cut.peak->bytes != whole.peak->bytes || cut.peak->step != whole.peak->step)) {
      EXPECT_TRUE(cut.noted) << "cut after line " << n << " gives a wrong peak silently";
    }
  }
  EXPECT_GT(noted, 1000);  // allocations, used values and live ranges all cut
}

// Cuts inside lines: the paste stops mid-entry.
void ExpectEveryByteCutSafe(const std::string& text, size_t from, size_t to) {
  const Cut whole = ParseCut(text);
  ASSERT_TRUE(whole.program.ok());
  for (size_t end = from; end < to && end < text.size(); ++end) {
    const Cut cut = ParseCut(std::string_view(text).substr(0, end));
    if (!cut.program.ok()) {
      EXPECT_TRUE(std::regex_search(std::string(cut.program.status().message()), kLocatedError))
          << "cut at byte " << end << ": " << cut.program.status();
      continue;
    }
    const bool same_peak =
        cut.peak.has_value() == whole.peak.has_value() &&
        (!cut.peak || (cut.peak->bytes == whole.peak->bytes && cut.peak->step == whole.peak->step));
    if (cut.peak && !same_peak) {
      EXPECT_TRUE(cut.noted) << "cut at byte " << end << " gives a wrong peak silently";
    }
  }
}

TEST(Truncation, EveryByteCutOfASmallDumpIsNotedOrHasTheWholePeak) {
  const std::string text = test::ReadFileOrDie(test::SourcePath(kModule42));
  ExpectEveryByteCutSafe(text, 1, text.size());
}

TEST(Truncation, ByteCutsInsideSeed004LiveRangesAndPeakList) {
  const std::string text = test::ReadFileOrDie(test::SourcePath(kSeed004));
  const size_t ranges = text.find("  BufferLiveRange:");
  const size_t peak = text.find("  Live ranges at ");
  ASSERT_NE(ranges, std::string::npos);
  ASSERT_NE(peak, std::string::npos);
  ExpectEveryByteCutSafe(text, ranges + 19, ranges + 400);
  ExpectEveryByteCutSafe(text, peak - 200, text.size());
}

TEST(Truncation, NoteSaysWhereTheTextStops) {
  const std::string text = test::ReadFileOrDie(test::SourcePath(kSeed004));
  // `head -n 1400`: inside BufferLiveRange.
  size_t end = 0;
  for (int line = 0; line < 1400; ++line) end = text.find('\n', end) + 1;
  const Cut cut = ParseCut(std::string_view(text).substr(0, end));
  ASSERT_TRUE(cut.program.ok());
  const ir::Note* note = FindNote(*cut.program, ir::NoteCode::kInputEndsEarly);
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->texts[0], "cut.txt:1400:1");
  EXPECT_EQ(note->texts[1], "buffer-live-ranges");
  EXPECT_NE(std::find(note->texts.begin(), note->texts.end(), "peak-list"), note->texts.end());
  EXPECT_GT(note->numbers[4], 0);  // values with no live range
}

}  // namespace
}  // namespace memplan
