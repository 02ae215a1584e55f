#include "viz/chrome_trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "viz/json_text.h"
#include "analyzer/value_category.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "viz/describe.h"
#include "viz/format.h"

namespace memplan::viz {
namespace {

using llvm::json::OStream;

constexpr int64_t kPid = 1;
constexpr int64_t kScheduleTid = 0;
// Beyond this many steps the per-instruction schedule track is left out
// (it would dominate the file); counters and values are always written.
constexpr size_t kMaxScheduleSlices = 100000;

// One track of slices: an allocation, or another lane of one.
struct Track {
  ir::AllocationId allocation;
  int lane = 0;
  int64_t tid = 0;
  std::vector<const ir::Value*> values;
};

// The values to draw: every value live at the peak plus the `max_values`
// largest with a live range and an allocation.
std::vector<const ir::Value*> ValuesToDraw(const ir::Program& program,
                                           const analyzer::Analysis& analysis, int max_values) {
  std::vector<const ir::Value*> ranged;
  for (const ir::Value& v : program.values) {
    if (v.live_range && v.allocation.valid() && program.FindAllocation(v.allocation)) {
      ranged.push_back(&v);
    }
  }
  std::stable_sort(ranged.begin(), ranged.end(), [](const ir::Value* a, const ir::Value* b) {
    if (a->size != b->size) return a->size > b->size;
    return a->id < b->id;
  });
  std::set<ir::ValueId> chosen;
  const size_t keep =
      max_values <= 0 ? ranged.size() : std::min(ranged.size(), static_cast<size_t>(max_values));
  for (size_t i = 0; i < keep; ++i) chosen.insert(ranged[i]->id);
  if (analysis.peak) {
    for (ir::ValueId id : analysis.peak->values) chosen.insert(id);
  }
  std::vector<const ir::Value*> out;
  for (ir::ValueId id : chosen) {
    const ir::Value* v = program.FindValue(id);
    if (v != nullptr && v->live_range && program.FindAllocation(v->allocation)) out.push_back(v);
  }
  return out;
}

// Per allocation (by id), values packed greedily into lanes so that no two
// ranges on a lane overlap; tids numbered from 1 in that order.
std::vector<Track> AssignTracks(const std::vector<const ir::Value*>& values) {
  std::map<ir::AllocationId, std::vector<const ir::Value*>> by_allocation;
  for (const ir::Value* v : values) by_allocation[v->allocation].push_back(v);
  std::vector<Track> tracks;
  int64_t next_tid = 1;
  for (auto& [allocation, list] : by_allocation) {
    std::sort(list.begin(), list.end(), [](const ir::Value* a, const ir::Value* b) {
      if (a->live_range->start != b->live_range->start) {
        return a->live_range->start < b->live_range->start;
      }
      if (a->live_range->end != b->live_range->end) return a->live_range->end > b->live_range->end;
      return a->id < b->id;
    });
    std::vector<Track> lanes;
    std::vector<ir::ScheduleStep> lane_end;
    for (const ir::Value* v : list) {
      size_t lane = 0;
      while (lane < lanes.size() && lane_end[lane] >= v->live_range->start) ++lane;
      if (lane == lanes.size()) {
        lanes.push_back(Track{allocation, static_cast<int>(lane), 0, {}});
        lane_end.push_back(0);
      }
      lanes[lane].values.push_back(v);
      lane_end[lane] = v->live_range->end;
    }
    for (Track& t : lanes) {
      t.tid = next_tid++;
      tracks.push_back(std::move(t));
    }
  }
  return tracks;
}

void Metadata(OStream& j, llvm::StringRef name, int64_t tid, llvm::StringRef arg_key,
              const llvm::json::Value& arg) {
  j.object([&] {
    j.attribute("name", name);
    j.attribute("ph", "M");
    j.attribute("pid", kPid);
    if (tid >= 0) j.attribute("tid", tid);
    j.attributeObject("args", [&] { j.attribute(arg_key, arg); });
  });
}

std::string TrackName(const ir::Program& program, const Track& track) {
  const ir::Allocation* a = program.FindAllocation(track.allocation);
  std::string name = StrCat("allocation ", track.allocation.value());
  if (track.lane > 0) return StrCat(name, " (overlap ", track.lane + 1, ")");
  return StrCat(name, ": ", CategoryWord(analyzer::CategoryOf(*a)), ", ",
                HumanBytes(a->size));
}

// One "C" event per timeline point: live bytes per category.
void WriteCounters(OStream& j, const analyzer::Analysis& analysis) {
  for (const analyzer::TimelinePoint& point : analysis.timeline.points) {
    j.object([&] {
      j.attribute("name", "live bytes");
      j.attribute("ph", "C");
      j.attribute("pid", kPid);
      j.attribute("ts", point.step);
      j.attributeObject("args", [&] {
        for (int c = 0; c < analyzer::kNumValueCategories; ++c) {
          j.attribute(JsonRef(CategoryWord(static_cast<analyzer::ValueCategory>(c))),
                      point.bytes[c]);
        }
      });
    });
  }
}

// The global instant event at the live peak.
void WritePeakMarker(OStream& j, const ir::Program& program, const analyzer::LivePeak& peak) {
  j.object([&] {
    j.attribute("name", "live peak");
    j.attribute("ph", "i");
    j.attribute("s", "g");
    j.attribute("pid", kPid);
    j.attribute("tid", kScheduleTid);
    j.attribute("ts", peak.step);
    j.attributeObject("args", [&] {
      j.attribute("bytes", peak.bytes);
      j.attribute("size", HumanBytes(peak.bytes));
      j.attribute("instruction", JsonText(InstructionLabel(program, peak.instruction)));
      j.attribute("values", static_cast<int64_t>(peak.values.size()));
    });
  });
}

// One one-step slice per scheduled instruction on the schedule track.
void WriteScheduleSlices(OStream& j, const ir::Program& program) {
  const auto& sequence = program.schedule.instructions;
  for (size_t step = 0; step < sequence.size(); ++step) {
    j.object([&] {
      j.attribute("name", JsonText(InstructionLabel(program, sequence[step])));
      j.attribute("cat", "instruction");
      j.attribute("ph", "X");
      j.attribute("pid", kPid);
      j.attribute("tid", kScheduleTid);
      j.attribute("ts", static_cast<int64_t>(step));
      j.attribute("dur", 1);
    });
  }
}

// One slice per drawn value, over its live range, on its track.
void WriteValueSlice(OStream& j, const ir::Program& program, const analyzer::Analysis& analysis,
                     const Track& track, const ir::Value& v) {
  const ir::Allocation* a = program.FindAllocation(v.allocation);
  const ValueLabels labels = LabelsOf(program, analysis, v);
  j.object([&] {
    j.attribute("name", JsonText(labels.name));
    j.attribute("cat", JsonRef(CategoryWord(analyzer::CategoryOf(*a))));
    j.attribute("ph", "X");
    j.attribute("pid", kPid);
    j.attribute("tid", track.tid);
    j.attribute("ts", v.live_range->start);
    j.attribute("dur", v.live_range->end - v.live_range->start + 1);
    j.attributeObject("args", [&] {
      j.attribute("shape", JsonText(v.shape_text));
      j.attribute("size", v.size);
      j.attribute("size_human", HumanBytes(v.size));
      j.attribute("op_name", JsonText(labels.op_name));
      j.attribute("source", JsonText(labels.source));
      j.attribute("allocation", v.allocation.value());
      j.attribute("offset", v.offset);
      j.attribute("value_id", v.id.value());
    });
  });
}

// The metadata naming the process and every track.
void WriteTrackNames(OStream& j, const ir::Program& program, const std::vector<Track>& tracks) {
  Metadata(j, "process_name", -1, "name", JsonText(StrCat("memplan: ", program.module_name)));
  Metadata(j, "thread_name", kScheduleTid, "name", "schedule");
  Metadata(j, "thread_sort_index", kScheduleTid, "sort_index", kScheduleTid);
  for (const Track& t : tracks) {
    Metadata(j, "thread_name", t.tid, "name", TrackName(program, t));
    Metadata(j, "thread_sort_index", t.tid, "sort_index", t.tid);
  }
}

void WriteOtherData(OStream& j, const ir::Program& program, const analyzer::Analysis& analysis) {
  j.attributeObject("otherData", [&] {
    j.attribute("module", JsonText(program.module_name));
    j.attribute("time_unit", "1 us = 1 schedule step");
    if (analysis.peak.has_value()) {
      j.attribute("live_peak_bytes", analysis.peak->bytes);
      j.attribute("live_peak_step", analysis.peak->step);
    } else {
      j.attribute("note", "the input has no live ranges: no counters or slices");
    }
  });
}

}  // namespace

std::string RenderChromeTrace(const ir::Program& program, const analyzer::Analysis& analysis,
                              const ChromeTraceOptions& options) {
  const bool has_ranges = analysis.peak.has_value();
  const std::vector<Track> tracks =
      has_ranges ? AssignTracks(ValuesToDraw(program, analysis, options.max_values))
                 : std::vector<Track>{};
  const auto& sequence = program.schedule.instructions;
  const bool schedule_track =
      has_ranges && !sequence.empty() && sequence.size() <= kMaxScheduleSlices;

  std::string out;
  llvm::raw_string_ostream os(out);
  OStream j(os, /*IndentSize=*/0);
  j.object([&] {
    j.attributeArray("traceEvents", [&] {
      WriteTrackNames(j, program, tracks);
      if (!has_ranges) return;
      WriteCounters(j, analysis);
      WritePeakMarker(j, program, *analysis.peak);
      if (schedule_track) WriteScheduleSlices(j, program);
      for (const Track& t : tracks) {
        for (const ir::Value* v : t.values) WriteValueSlice(j, program, analysis, t, *v);
      }
    });
    j.attribute("displayTimeUnit", "ms");
    WriteOtherData(j, program, analysis);
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace memplan::viz
