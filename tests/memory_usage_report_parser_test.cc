// The memory-usage-report parser in both styles: inline inputs, the real
// newest-style reports of samples/jax (held against their buffer
// assignments), the 2024-style sample made from seed 004 (held against that
// dump), human-readable sizes, and located errors.
#include "parsers/memory_usage_report_parser.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "absl/strings/match.h"

#include "analyzer/memory_stats.h"
#include "parsers/dump_files.h"
#include "parsers/human_bytes.h"
#include "parsers/load_program.h"
#include "parsers/source_text.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<ir::Program> Report(std::string_view text,
                                   std::string name = "r-memory-usage-report.txt") {
  return parsers::ParseMemoryUsageReport({parsers::SourceText::FromString(name, text)}, ir::Program::Named("m"));
}

// The first note with `code`, or nullptr.
const ir::Note* FindNote(const ir::Program& p, ir::NoteCode code) {
  for (const ir::Note& n : p.notes) {
    if (n.code == code) return &n;
  }
  return nullptr;
}

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<ir::Program> p = Report(text);
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : std::string(p.status().message());
}

// -------------------------------------------------------------- human sizes

TEST(HumanBytes, FormatsAsTslHumanReadableNumBytes) {
  EXPECT_EQ(parsers::FormatXlaHumanBytes(0), "0B");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(512), "512B");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(1023), "1023B");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(1536), "1.5KiB");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(262144), "256.0KiB");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(12345678), "11.77MiB");
  EXPECT_EQ(parsers::FormatXlaHumanBytes(1093622736), "1.02GiB");
  // The truncating division: 1 MiB - 1 byte prints in KiB.
  EXPECT_EQ(parsers::FormatXlaHumanBytes(1048575), "1024.0KiB");
}

TEST(HumanBytes, ParsesBothSpellings) {
  auto parse = [](std::string_view text) {
    parsers::Cursor c(text);
    parsers::HumanBytes h;
    EXPECT_TRUE(parsers::ParseHumanBytes(c, &h)) << text;
    EXPECT_TRUE(c.AtEnd()) << text;
    return h;
  };
  EXPECT_EQ(parse("512B").bytes, 512);
  EXPECT_TRUE(parse("512B").exact);
  EXPECT_EQ(parse("1.00MiB").bytes, 1048576);
  EXPECT_FALSE(parse("1.00MiB").exact);
  EXPECT_EQ(parse("256.0KiB").bytes, 262144);
  EXPECT_EQ(parse("1.02GiB").bytes, 1095216660);  // 1.02 x 2^30, rounded
  EXPECT_EQ(parse("420.0K").bytes, 430080);       // the TPU form
  EXPECT_EQ(parse("9.08G").bytes, 9749575762);
  EXPECT_TRUE(parsers::AgreesWithPrinted(1093622736, parse("1.02GiB")));
  EXPECT_FALSE(parsers::AgreesWithPrinted(1095216660 + 20000000, parse("1.02GiB")));
  EXPECT_TRUE(parsers::AgreesWithPrinted(1073741824, parse("1.00G")));

  for (std::string_view bad : {"", "KiB", "1.5B", "1.QiB", "12", "99999999999999999999B"}) {
    parsers::Cursor c(bad);
    parsers::HumanBytes h;
    EXPECT_FALSE(parsers::ParseHumanBytes(c, &h)) << bad;
  }
}

// ----------------------------------------------------- newest style, inline

constexpr std::string_view kTwoSpaces =
    "Memory Space: default (color=0)\n"
    "Total bytes: 1064 (1.0KiB)\n"
    "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
    "  ------------------------------------------------------------\n"
    "     1.0KiB( 97%);     1.0KiB;            0;                3; f32[16,16], 2\xC3\x97s32[8]\n"
    "     1.0KiB(100%);        32B;         1024;                1; (f32[], s32[], bf16[4], pred[])\n"
    "\n"
    "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
    "  ------------------------------------------------------------\n"
    "        8B(100%);         8B;            0;                1; f32[2]\n"
    "\n"
    "\n"
    "Memory Space: host (color=5)\n"
    "Total bytes: 64 (64B)\n"
    "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
    "  ------------------------------------------------------------\n"
    "       64B(100%);        64B;            0;                1; s4[128]{0:E(4)}\n"
    "\n";

TEST(MemoryUsageReportNewest, OneAllocationPerTableAndOneValuePerRow) {
  auto p = Report(kTwoSpaces);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->input_format, "memory-usage-report");
  EXPECT_EQ(p->stated_total_bytes, 1064 + 64);  // the sum over memory spaces
  ASSERT_EQ(p->allocations.size(), 3u);
  EXPECT_EQ(p->allocations[0].id.value(), 0);
  EXPECT_EQ(p->allocations[0].size, 1056);  // end of its last row: 1024 + 32
  EXPECT_EQ(p->allocations[0].color, 0);
  EXPECT_EQ(p->allocations[1].size, 8);
  EXPECT_EQ(p->allocations[2].color, 5);
  EXPECT_EQ(p->allocations[2].size, 64);  // packed s4: 128 x 4 bits
  ASSERT_EQ(p->values.size(), 4u);
  EXPECT_EQ(p->values[0].size, 1024);  // f32[16,16], the largest shape
  EXPECT_EQ(p->values[0].offset, 0);
  EXPECT_EQ(p->values[0].shape_text, "f32[16,16], 2\xC3\x97s32[8]");
  EXPECT_EQ(p->values[1].size, 32);  // a 4-tuple's pointer table
  EXPECT_EQ(p->values[1].offset, 1024);
  EXPECT_EQ(p->values[3].allocation.value(), 2);
  EXPECT_EQ(p->values[3].color, 5);
  EXPECT_EQ(p->allocations[0].values.size(), 2u);
  EXPECT_NE(FindNote(*p, ir::NoteCode::kReportNoAllocationHeaders), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportBytesOutsideRows), nullptr);  // 1056 + 8 + 64
  EXPECT_EQ(p->diagnostics.total(), 0);
}

TEST(MemoryUsageReportNewest, TheRestLineIsNotedAndTheRowsAreMissing) {
  auto p = Report(
      "Memory Space: default (color=0)\n"
      "Total bytes: 4096 (4.0KiB)\n"
      "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
      "  ------------------------------------------------------------\n"
      "     4.0KiB(100%);     4.0KiB;            0;                1; f32[1024]\n"
      "  The rest 7 values are less than 5% of the total size and not shown.\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->values.size(), 1u);
  ASSERT_NE(FindNote(*p, ir::NoteCode::kReportOmitsRows), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportOmitsRows)->numbers, (std::vector<int64_t>{7, 5}));
}

TEST(MemoryUsageReportNewest, RowWhoseShapesDoNotGiveItsSizeKeepsThePrintedSize) {
  auto p = Report(
      "Memory Space: default (color=0)\n"
      "Total bytes: 2097152 (2.00MiB)\n"
      "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
      "  ------------------------------------------------------------\n"
      "    2.00MiB(100%);    2.00MiB;            0;                1; f32[8]\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->values[0].size, 2097152);
  ASSERT_NE(FindNote(*p, ir::NoteCode::kReportRoundedValueSizes), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportRoundedValueSizes)->numbers,
            std::vector<int64_t>{1});
  EXPECT_EQ(p->diagnostics.total(), 1);
}

// ------------------------------------------------- newest style, samples/jax

std::vector<fs::path> NewestStyleReports() {
  std::vector<fs::path> reports;
  for (const auto& dir : fs::directory_iterator(test::SourcePath("samples/jax"))) {
    if (!dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (file.path().string().ends_with(parsers::kMemoryUsageReportSuffix)) {
        reports.push_back(file.path());
      }
    }
  }
  std::sort(reports.begin(), reports.end());
  return reports;
}

std::vector<int64_t> SizesDescending(const ir::Program& p) {
  std::vector<int64_t> sizes;
  for (const ir::Allocation& a : p.allocations) sizes.push_back(a.size);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  return sizes;
}

TEST(MemoryUsageReportNewest, SamplesMatchTheirBufferAssignments) {
  const std::vector<fs::path> reports = NewestStyleReports();
  ASSERT_EQ(reports.size(), 7u);  // one per samples/jax case
  for (const fs::path& report : reports) {
    SCOPED_TRACE(report.string());
    auto loaded = parsers::LoadProgram(report.string(), {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const ir::Program& p = loaded->program;
    EXPECT_EQ(p.input_format, "memory-usage-report");
    // The report is the input; the module text beside it gives the graph.
    ASSERT_EQ(p.source_files.size(), 2u);
    EXPECT_EQ(p.source_files[0], report.string());
    EXPECT_TRUE(absl::EndsWith(p.source_files[1], ".cpu_after_optimizations.txt"));
    EXPECT_GT(p.module.instructions().size(), 0u);
    EXPECT_EQ(p.diagnostics.total(), 0);

    // "Total bytes: N" as the file states it.
    const std::string text = test::ReadFileOrDie(report.string());
    long long stated = -1;
    ASSERT_EQ(std::sscanf(text.c_str(), "Memory Space: default (color=0)\nTotal bytes: %lld",
                          &stated), 1);
    EXPECT_EQ(p.stated_total_bytes, stated);

    // The buffer assignment of the same module: the report shows its largest
    // allocations (all of them up to 50), each sized exactly.
    std::string ba = report.string();
    ba.replace(ba.size() - parsers::kMemoryUsageReportSuffix.size(),
               parsers::kMemoryUsageReportSuffix.size(), "-buffer-assignment.txt");
    auto truth = parsers::LoadProgram(ba, {});
    ASSERT_TRUE(truth.ok()) << truth.status();
    EXPECT_EQ(p.module_name, truth->program.module_name);
    const std::vector<int64_t> ours = SizesDescending(p);
    std::vector<int64_t> theirs = SizesDescending(truth->program);
    ASSERT_LE(ours.size(), theirs.size());
    theirs.resize(ours.size());
    EXPECT_EQ(ours, theirs);
    const analyzer::MemoryStats stats = analyzer::ComputeMemoryStats(p);
    if (truth->program.allocations.size() <= 50) {
      EXPECT_TRUE(stats.TotalMatchesStated());
      EXPECT_EQ(p.allocations.size(), truth->program.allocations.size());
    } else {
      EXPECT_LT(stats.total_allocation_bytes, *p.stated_total_bytes);
      EXPECT_NE(FindNote(p, ir::NoteCode::kReportBytesOutsideRows), nullptr);
    }
  }
}

// --------------------------------------------------------------- 2024 style

TEST(MemoryUsageReport2024, Seed004SampleGivesTheDumpsNumbersExactly) {
  const std::string report =
      test::SourcePath("samples/reports/seed004_gpu_decode-memory-usage-report.txt");
  auto loaded = parsers::LoadProgram(report, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const ir::Program& p = loaded->program;
  EXPECT_EQ(p.input_format, "memory-usage-report");
  EXPECT_EQ(p.module_name, "seed004_gpu_decode");
  EXPECT_EQ(p.stated_total_bytes, 1093622736);  // "Total bytes used: 1093622736 (1.02GiB)"
  EXPECT_EQ(FindNote(p, ir::NoteCode::kReportRoundedAllocationSizes), nullptr);
  EXPECT_EQ(FindNote(p, ir::NoteCode::kReportRoundedValueSizes), nullptr);
  EXPECT_EQ(p.diagnostics.total(), 0);

  auto truth = parsers::LoadProgram(
      test::SourcePath("samples/xla/seed004_gpu_decode-buffer-assignment.txt"), {});
  ASSERT_TRUE(truth.ok()) << truth.status();
  ASSERT_EQ(p.allocations.size(), truth->program.allocations.size());
  for (size_t i = 0; i < p.allocations.size(); ++i) {
    const ir::Allocation& a = p.allocations[i];
    const ir::Allocation& t = truth->program.allocations[i];
    SCOPED_TRACE(a.id.value());
    EXPECT_EQ(a.id, t.id);
    EXPECT_EQ(a.size, t.size);
    EXPECT_EQ(a.parameter_number, t.parameter_number);
    EXPECT_EQ(a.maybe_live_out, t.maybe_live_out);
    EXPECT_EQ(a.is_preallocated_temp, t.is_preallocated_temp);
    EXPECT_EQ(a.is_thread_local, t.is_thread_local);
    EXPECT_EQ(a.output_shape_text.has_value(), t.output_shape_text.has_value());
  }
  const analyzer::MemoryStats ours = analyzer::ComputeMemoryStats(p);
  const analyzer::MemoryStats theirs = analyzer::ComputeMemoryStats(truth->program);
  EXPECT_EQ(ours.argument_bytes, theirs.argument_bytes);
  EXPECT_EQ(ours.output_bytes, theirs.output_bytes);
  EXPECT_EQ(ours.alias_bytes, theirs.alias_bytes);
  EXPECT_EQ(ours.temp_bytes, theirs.temp_bytes);
  EXPECT_EQ(ours.thread_local_bytes, theirs.thread_local_bytes);
  EXPECT_EQ(ours.total_allocation_bytes, 1093622736);
  EXPECT_TRUE(ours.TotalMatchesStated());
}

constexpr std::string_view k2024 =
    "Total bytes used: 4194292 (4.00MiB)\n"
    "\n"
    "Allocations sorted by size:\n"
    "\n"
    "cumulative_size; total_size - cumulative_size; allocation\n"
    "------------------------------------------------------------------------------\n"
    "   2.00MiB( 50%);    2.00MiB; allocation 2: size 2.00MiB, maybe-live-out:\n"
    "   3.00MiB( 75%);  1024.0KiB; allocation 3: size 1.00MiB, preallocated-temp:\n"
    "   4.00MiB(100%);        64B; allocation 1: size 1023.9KiB, maybe-live-out:\n"
    "The rest 2 allocations are less than 5% of the total size and not shown.\n"
    "\n"
    "\n"
    "Allocations sorted by size with their values:\n"
    "allocation 2: size 2.00MiB, maybe-live-out:\n"
    "allocation 3: size 1.00MiB, preallocated-temp:\n"
    "\n"
    "\tcumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
    "\t------------------------------------------------------------\n"
    "\t 512.0KiB( 50%);   512.0KiB;       524288;                2; 2\xC3\x97" "f32[128,1024]\n"
    "\t  1.00MiB(100%);   512.0KiB;            0;                1; bf16[262144]\n"
    "\n"
    "allocation 1: size 1023.9KiB, maybe-live-out:\n"
    "allocation 0: size 40B, color 1, parameter 0, shape |(f32[10], s32[2], pred[])| at "
    "ShapeIndex {0}:\n"
    "allocation 4: size 24B, output shape is |(f32[2], f32[2], f32[])|, maybe-live-out:\n";

TEST(MemoryUsageReport2024, HeadersGiveAllocationsWithExactSizesWhereDerivable) {
  auto p = Report(k2024);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->stated_total_bytes, 4194292);
  ASSERT_EQ(p->allocations.size(), 5u);
  // Sorted by id.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p->allocations[i].id.value(), i);
  const ir::Allocation& param = p->allocations[0];
  EXPECT_EQ(param.parameter_number, 0);
  EXPECT_EQ(param.color, 1);
  EXPECT_EQ(param.parameter_shape_text, "(f32[10], s32[2], pred[])");
  EXPECT_EQ(param.size, 40);  // printed exactly
  // Rounded "1023.9KiB" and "2.00MiB": two single-value allocations no shape
  // pins down; they stay rounded.
  EXPECT_EQ(p->allocations[1].size, 1048474);  // 1023.9 x 1024, rounded
  EXPECT_EQ(p->allocations[2].size, 2097152);
  // The temp's table is complete: the end of its last row, 1 MiB exactly.
  EXPECT_EQ(p->allocations[3].size, 1048576);
  EXPECT_TRUE(p->allocations[3].is_preallocated_temp);
  EXPECT_EQ(p->allocations[4].size, 24);
  EXPECT_TRUE(p->allocations[4].output_shape_text.has_value());
  ASSERT_EQ(p->values.size(), 2u);
  EXPECT_EQ(p->values[0].offset, 524288);
  EXPECT_EQ(p->values[0].size, 524288);
  EXPECT_EQ(p->values[0].allocation.value(), 3);
  ASSERT_NE(FindNote(*p, ir::NoteCode::kReportRoundedAllocationSizes), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportRoundedAllocationSizes)->numbers,
            (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(p->diagnostics.total(), 0);
}

TEST(MemoryUsageReport2024, TheLastUnknownSizeComesFromTheStatedTotal) {
  // Allocation 1 is the only one no shape pins down: the total gives it.
  std::string text(k2024);
  const std::string from = "allocation 2: size 2.00MiB, maybe-live-out:";
  for (size_t at; (at = text.find(from)) != std::string::npos;) {
    text.replace(at, from.size(),
                 "allocation 2: size 2.00MiB, parameter 1, shape |f32[524288]| at ShapeIndex {}:");
  }
  auto p = Report(text);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->allocations[2].size, 2097152);  // from its shape
  EXPECT_EQ(p->allocations[1].size, 4194292 - 2097152 - 1048576 - 40 - 24);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportRoundedAllocationSizes), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportRoundedValueSizes), nullptr);
}

TEST(MemoryUsageReport2024, SummaryAloneStillGivesAllocations) {
  const std::string text(k2024.substr(0, k2024.find("\n\nAllocations sorted by size with")));
  auto p = Report(text);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->allocations.size(), 3u);
  ASSERT_NE(FindNote(*p, ir::NoteCode::kReportOmitsAllocations), nullptr);
  EXPECT_EQ(FindNote(*p, ir::NoteCode::kReportOmitsAllocations)->numbers,
            std::vector<int64_t>{2});
}

// ------------------------------------------------------------------- errors

TEST(MemoryUsageReportErrors, NameFileLineColumnAndWhatWasExpected) {
  EXPECT_EQ(ErrorOf("hello\n").substr(0, 64),
            "r-memory-usage-report.txt:1:1: error: expected an XLA memory-usa");
  const std::string bad_row = ErrorOf(
      "Memory Space: default (color=0)\n"
      "Total bytes: 4 (4B)\n"
      "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
      "  ------------------------------------------------------------\n"
      "         4B(100%);         4Q;            0;                1; f32[]\n");
  EXPECT_TRUE(bad_row.starts_with(
      "r-memory-usage-report.txt:5:29: error: expected the row's size such as 1.00MiB"))
      << bad_row;
  const std::string bad_offset = ErrorOf(
      "Memory Space: default (color=0)\n"
      "Total bytes: 4 (4B)\n"
      "  cumulative_size;       size;       offset; used_by_n_values; shapes_list\n"
      "         4B(100%);         4B;           -9;                1; f32[]\n");
  EXPECT_TRUE(bad_offset.starts_with(
      "r-memory-usage-report.txt:4:44: error: expected the offset in bytes"))
      << bad_offset;
  const std::string no_space = ErrorOf(
      "Memory Space: default (color=0)\n"
      "Memory Space: x (colour=1)\n");
  EXPECT_TRUE(no_space.starts_with("r-memory-usage-report.txt:2:15: error: expected 'NAME "
                                   "(color=N)'"))
      << no_space;
  const std::string header = ErrorOf(
      "Total bytes used: 12 (12B)\n\nAllocations sorted by size with their values:\n"
      "allocation 0: size 12B, maybe-live-out\n");
  EXPECT_TRUE(header.starts_with(
      "r-memory-usage-report.txt:4:39: error: expected ':' ending the allocation header"))
      << header;
  const std::string orphan_table = ErrorOf(
      "Total bytes used: 12 (12B)\n"
      "\tcumulative_size;       size;       offset; used_by_n_values; shapes_list\n");
  EXPECT_TRUE(orphan_table.starts_with(
      "r-memory-usage-report.txt:2:2: error: expected an 'allocation N: size S...:' header"))
      << orphan_table;
  const std::string utf8 = ErrorOf("Memory Space: d\xFF (color=0)\n");
  EXPECT_TRUE(utf8.starts_with("r-memory-usage-report.txt:1:16: error: expected UTF-8 text"))
      << utf8;
  // The message shows the line and a caret under the column.
  EXPECT_NE(bad_row.find("\n         4B(100%);         4Q;"), std::string::npos) << bad_row;
}

// ------------------------------------------------------ sniffing, file names

TEST(MemoryUsageReportSniff, ByHeadOrFileName) {
  EXPECT_TRUE(parsers::LooksLikeMemoryUsageReport("Memory Space: default (color=0)\n", "x"));
  EXPECT_TRUE(parsers::LooksLikeMemoryUsageReport(
      "Total bytes used: 1 (1B)\n\nAllocations sorted by size:\n", "x"));
  // The split dump's values file starts with "Total bytes used:" too.
  EXPECT_FALSE(parsers::LooksLikeMemoryUsageReport(
      "Total bytes used: 1 (1B)\n\nUsed values:\n", "x-buffer-assignment-values.txt"));
  EXPECT_TRUE(parsers::LooksLikeMemoryUsageReport("", "m.cpu-memory-usage-report.txt"));
}

TEST(MemoryUsageReportSniff, AReportPathLoadsAloneUnderItsModuleName) {
  EXPECT_EQ(parsers::ModuleNameFromFileName(
                "module_0005.jit_f.cpu_after_optimizations-memory-usage-report.txt"),
            "jit_f");
  EXPECT_EQ(parsers::ModuleNameFromFileName("jit_g-memory-usage-report.txt"), "jit_g");
  test::TempDir dir;
  const std::string report = dir.File("jit_g-memory-usage-report.txt");
  ASSERT_TRUE(test::WriteFile(report, kTwoSpaces));
  // A buffer assignment beside it is not a companion of the report.
  ASSERT_TRUE(test::WriteFile(dir.File("jit_g-buffer-assignment.txt"),
                              "allocation 0: size 8, maybe-live-out:\n"));
  const parsers::DumpModule module = parsers::ModuleForFile(report);
  EXPECT_EQ(module.files, std::vector<std::string>{report});
  auto loaded = parsers::LoadProgram(report, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->program.module_name, "jit_g");
  EXPECT_EQ(loaded->program.input_format, "memory-usage-report");
}

}  // namespace
}  // namespace memplan
