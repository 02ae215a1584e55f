#include "viz/collectives_report.h"

#include <cstdio>

#include "viz/format.h"
#include "viz/json_text.h"
#include "executor/collective_data.h"
#include "ir/strings.h"
#include "llvm/Support/raw_ostream.h"

namespace memplan::viz {
namespace {

bool Reduces(executor::CollectiveKind kind) {
  return kind == executor::CollectiveKind::kAllReduce || kind == executor::CollectiveKind::kReduceScatter;
}

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, value);
  return buffer;
}

}  // namespace

void WriteCollectiveRecord(llvm::json::OStream& j, executor::CollectiveKind kind, int64_t bytes,
                           executor::WireType type, int ranks, double seconds, int64_t wrong) {
  j.attribute("collective", JsonRef(executor::CollectiveName(kind)));
  j.attribute("bytes", bytes);
  j.attribute("count", bytes / executor::WireBytes(type));
  j.attribute("dtype", JsonRef(executor::WireTypeName(type)));
  j.attribute("time_us", seconds * 1e6);
  j.attribute("algbw_gbps", executor::AlgorithmBandwidthGBps(bytes, seconds));
  j.attribute("busbw_gbps", executor::BusBandwidthGBps(kind, ranks, bytes, seconds));
  j.attribute("wrong", wrong);
}

std::string NcclTestsTime(double us) {
  if (us >= 10000.0) return Format("%7.0f", us);
  if (us >= 100.0) return Format("%7.1f", us);
  return Format("%7.2f", us);
}

std::string RenderCollectiveBenchText(const executor::CollectiveBenchReport& report) {
  std::string out;
  StrAppend(&out, "# memplan bench-collectives: backend ", report.backend, ", ", report.ranks,
            report.ranks == 1 ? " rank" : " ranks", ", transport ", report.transport, "\n");
  StrAppend(&out, "# device (rank 0): ", report.device, "\n");
  StrAppend(&out, "# ", report.iterations, " timed iterations after ", report.warmup,
            " warm-up; time is the mean per iteration averaged over ranks; sizes are nccl-tests' S\n");
  size_t i = 0;
  while (i < report.rows.size()) {
    const executor::CollectiveKind kind = report.rows[i].kind;
    StrAppend(&out, "#\n# Collective: ", executor::CollectiveName(kind), "\n");
    char line[256];
    std::snprintf(line, sizeof(line), "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type",
                  "redop", "root", "time", "algbw", "busbw", "#wrong");
    out += line;
    std::snprintf(line, sizeof(line), "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s", "(B)", "(elements)", "", "", "",
                  "(us)", "(GB/s)", "(GB/s)");
    out += line;
    out += "\n";
    double busbw_sum = 0;
    int rows = 0;
    int64_t wrong = 0;
    for (; i < report.rows.size() && report.rows[i].kind == kind; ++i) {
      const executor::CollectiveBenchRow& row = report.rows[i];
      const double algbw = executor::AlgorithmBandwidthGBps(row.bytes, row.seconds);
      const double busbw = executor::BusBandwidthGBps(row.kind, report.ranks, row.bytes, row.seconds);
      std::snprintf(line, sizeof(line), "%12lld  %12lld  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6lld\n",
                    static_cast<long long>(row.bytes),
                    static_cast<long long>(row.bytes / executor::WireBytes(row.type)),
                    std::string(executor::WireTypeName(row.type)).c_str(), Reduces(kind) ? "sum" : "none", -1,
                    NcclTestsTime(row.seconds * 1e6).c_str(), algbw, busbw, static_cast<long long>(row.wrong));
      out += line;
      busbw_sum += busbw;
      wrong += row.wrong;
      ++rows;
    }
    StrAppend(&out, "# Out of bounds values : ", wrong, wrong == 0 ? " OK" : " FAILED", "\n");
    StrAppend(&out, "# Avg bus bandwidth    : ", Format("%g", rows ? busbw_sum / rows : 0.0), "\n");
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

std::string RenderCollectiveBenchJson(const executor::CollectiveBenchReport& report) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", kCollectivesSchema);
    j.attribute("backend", JsonRef(report.backend));
    j.attribute("ranks", report.ranks);
    j.attribute("device", llvm::json::fixUTF8(JsonRef(report.device)));
    j.attribute("transport", JsonRef(report.transport));
    j.attribute("iterations", report.iterations);
    j.attribute("warmup", report.warmup);
    j.attributeArray("results", [&] {
      for (const executor::CollectiveBenchRow& row : report.rows) {
        j.object([&] { WriteCollectiveRecord(j, row.kind, row.bytes, row.type, report.ranks, row.seconds, row.wrong); });
      }
    });
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
