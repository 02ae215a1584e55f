#include "parsers/chrome_trace_parser.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parsers/json_reader.h"

namespace memplan::parsers {
namespace {

constexpr std::string_view kMemoryEventName = "[memory]";
constexpr std::string_view kOutOfMemoryEventName = "[OutOfMemory]";

// A scalar member of "args" (nested objects and arrays are skipped).
struct Arg {
  std::string key;
  std::string text;  // a number as written, or a string's contents
  bool is_number = false;
};

struct RawEvent {
  const char* at = nullptr;  // the event's '{'
  std::string ph;
  std::string name;
  std::string cat;
  std::string pid;
  std::string tid;
  std::optional<int64_t> ts_ns;
  std::optional<int64_t> dur_ns;
  std::vector<Arg> args;

  const Arg* FindArg(std::string_view key) const {
    for (const Arg& a : args) {
      if (a.key == key) return &a;
    }
    return nullptr;
  }
};

// Phases whose args are read; other events' args are skipped unread.
bool NeedsArgs(std::string_view ph) {
  return ph.empty() || ph == "i" || ph == "I" || ph == "C" || ph == "M";
}

struct Slice {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  std::string name;
  int32_t category = -1;
  size_t order = 0;  // input order, the last tie-breaker
};

struct OpenBegin {
  int64_t start_ns;
  std::string name;
  int32_t category;
};

struct PendingMemory {
  ir::MemoryEvent event;
  size_t order = 0;
};

struct TrackData {
  std::string pid;
  std::string tid;
  std::vector<Slice> slices;
  std::vector<OpenBegin> open;  // "B" events not yet ended
  std::vector<PendingMemory> memory;
};

// Sort key of a pid or tid: numbers by value first, then strings.
struct IdKey {
  bool is_string;
  int64_t number;
  std::string_view text;
  friend bool operator<(const IdKey& a, const IdKey& b) {
    if (a.is_string != b.is_string) return !a.is_string;
    if (a.number != b.number) return a.number < b.number;
    return a.text < b.text;
  }
};

IdKey KeyOf(std::string_view id) {
  int64_t number = 0;
  if (ParseDecimalScaled(id, 0, &number) && id.find_first_of(".eE") == std::string_view::npos) {
    return {false, number, id};
  }
  return {true, 0, id};
}

class TraceReader {
 public:
  explicit TraceReader(const SourceText& source)
      : source_(source), json_(source), builder_(source.name(), ir::CallTree::Format::kChromeTrace) {}

  absl::StatusOr<ir::CallTree> Run() {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    if (kind == JsonReader::Kind::kArray) {
      RETURN_IF_ERROR(ReadEventArray(/*allow_unclosed=*/true));
    } else if (kind == JsonReader::Kind::kObject) {
      RETURN_IF_ERROR(ReadTopObject());
    } else {
      return json_.ErrorAt(json_.position(),
                           "expected a trace: a JSON object with \"traceEvents\" or an array of "
                           "events");
    }
    if (!json_.AtEnd()) return json_.ErrorAt(json_.position(), "expected the end of the trace");
    return Build();
  }

 private:
  absl::Status ReadTopObject() {
    const char* start = json_.position();
    RETURN_IF_ERROR(json_.BeginObject());
    bool saw_events = false;
    std::string_view key;
    std::string storage;
    for (;;) {
      ASSIGN_OR_RETURN(const bool more, json_.NextMember(&key, &storage));
      if (!more) break;
      if (key == "traceEvents") {
        saw_events = true;
        RETURN_IF_ERROR(ReadEventArray(/*allow_unclosed=*/false));
      } else {
        RETURN_IF_ERROR(json_.Skip());
      }
    }
    if (!saw_events) return json_.ErrorAt(start, "expected a \"traceEvents\" member");
    return absl::OkStatus();
  }

  absl::Status ReadEventArray(bool allow_unclosed) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    if (kind != JsonReader::Kind::kArray) {
      return json_.ErrorAt(json_.position(), "expected an array of trace events");
    }
    RETURN_IF_ERROR(json_.BeginArray());
    for (;;) {
      ASSIGN_OR_RETURN(const bool more, json_.NextElement(allow_unclosed));
      if (!more) break;
      RawEvent event;
      RETURN_IF_ERROR(ReadEvent(&event));
      if (event.ph.empty()) continue;  // an empty object
      RETURN_IF_ERROR(Dispatch(event));
      ++order_;
    }
    return absl::OkStatus();
  }

  absl::Status ReadIdText(std::string* out) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    if (kind == JsonReader::Kind::kNumber) {
      ASSIGN_OR_RETURN(const std::string_view text, json_.ReadNumber());
      out->assign(text);
      return absl::OkStatus();
    }
    if (kind == JsonReader::Kind::kString) {
      std::string storage;
      ASSIGN_OR_RETURN(const std::string_view text, json_.ReadString(&storage));
      out->assign(text);
      return absl::OkStatus();
    }
    return json_.ErrorAt(json_.position(), "expected a number or a string");
  }

  absl::Status ReadMicroseconds(std::optional<int64_t>* out) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    const char* at = json_.position();
    std::string storage;
    std::string_view text;
    if (kind == JsonReader::Kind::kNumber) {
      ASSIGN_OR_RETURN(text, json_.ReadNumber());
    } else if (kind == JsonReader::Kind::kString) {
      ASSIGN_OR_RETURN(text, json_.ReadString(&storage));
    } else {
      return json_.ErrorAt(at, "expected a time in microseconds");
    }
    int64_t ns = 0;
    // Within +-2^62 ns (146 years) so that start + duration cannot overflow.
    if (!ParseDecimalScaled(text, 3, &ns) || ns > (int64_t{1} << 62) || ns < -(int64_t{1} << 62)) {
      return json_.ErrorAt(at, "expected a time in microseconds within +-2^62 ns");
    }
    *out = ns;
    return absl::OkStatus();
  }

  absl::Status ReadString(std::string* out) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    if (kind != JsonReader::Kind::kString) {
      return json_.ErrorAt(json_.position(), "expected a string");
    }
    std::string storage;
    ASSIGN_OR_RETURN(const std::string_view text, json_.ReadString(&storage));
    out->assign(text);
    return absl::OkStatus();
  }

  absl::Status ReadArgs(RawEvent* event) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    if (kind != JsonReader::Kind::kObject) return json_.Skip();
    RETURN_IF_ERROR(json_.BeginObject());
    std::string_view key;
    std::string key_storage;
    for (;;) {
      ASSIGN_OR_RETURN(const bool more, json_.NextMember(&key, &key_storage));
      if (!more) break;
      Arg arg;
      arg.key.assign(key);
      ASSIGN_OR_RETURN(const JsonReader::Kind value_kind, json_.Peek());
      if (value_kind == JsonReader::Kind::kNumber) {
        ASSIGN_OR_RETURN(const std::string_view text, json_.ReadNumber());
        arg.text.assign(text);
        arg.is_number = true;
      } else if (value_kind == JsonReader::Kind::kString) {
        std::string storage;
        ASSIGN_OR_RETURN(const std::string_view text, json_.ReadString(&storage));
        arg.text.assign(text);
      } else {
        RETURN_IF_ERROR(json_.Skip());
        continue;
      }
      event->args.push_back(std::move(arg));
    }
    return absl::OkStatus();
  }

  absl::Status ReadEvent(RawEvent* event) {
    ASSIGN_OR_RETURN(const JsonReader::Kind kind, json_.Peek());
    event->at = json_.position();
    if (kind != JsonReader::Kind::kObject) {
      return json_.ErrorAt(event->at, "expected a trace event (a JSON object)");
    }
    RETURN_IF_ERROR(json_.BeginObject());
    std::string_view key;
    std::string storage;
    bool any_member = false;
    for (;;) {
      ASSIGN_OR_RETURN(const bool more, json_.NextMember(&key, &storage));
      if (!more) break;
      any_member = true;
      if (key == "ph") {
        RETURN_IF_ERROR(ReadString(&event->ph));
      } else if (key == "name") {
        ASSIGN_OR_RETURN(const JsonReader::Kind k, json_.Peek());
        if (k == JsonReader::Kind::kString) {
          RETURN_IF_ERROR(ReadString(&event->name));
        } else {
          RETURN_IF_ERROR(ReadIdText(&event->name));
        }
      } else if (key == "cat") {
        RETURN_IF_ERROR(ReadString(&event->cat));
      } else if (key == "pid") {
        RETURN_IF_ERROR(ReadIdText(&event->pid));
      } else if (key == "tid") {
        RETURN_IF_ERROR(ReadIdText(&event->tid));
      } else if (key == "ts") {
        RETURN_IF_ERROR(ReadMicroseconds(&event->ts_ns));
      } else if (key == "dur") {
        RETURN_IF_ERROR(ReadMicroseconds(&event->dur_ns));
      } else if (key == "args" && NeedsArgs(event->ph)) {
        RETURN_IF_ERROR(ReadArgs(event));
      } else {
        RETURN_IF_ERROR(json_.Skip());
      }
    }
    // TSL's trace writer (JAX's *.trace.json.gz) ends the array with {}.
    if (!any_member) return absl::OkStatus();
    if (event->ph.empty()) return json_.ErrorAt(event->at, "expected a \"ph\" member in the event");
    return absl::OkStatus();
  }

  TrackData& TrackFor(const RawEvent& event) {
    auto [it, inserted] = track_index_.try_emplace(std::make_pair(event.pid, event.tid), tracks_.size());
    if (inserted) {
      tracks_.emplace_back();
      tracks_.back().pid = event.pid;
      tracks_.back().tid = event.tid;
    }
    return tracks_[it->second];
  }

  void Warn(const RawEvent& event, std::string_view kind) {
    builder_.tree().diagnostics.Warn(kind, [&] { return source_.LocationString(event.at); });
  }

  absl::Status RequireTs(const RawEvent& event) {
    if (!event.ts_ns) return json_.ErrorAt(event.at, "expected a \"ts\" member in the event");
    return absl::OkStatus();
  }

  absl::Status Dispatch(const RawEvent& event) {
    const std::string_view ph = event.ph;
    if (ph == "X") {
      RETURN_IF_ERROR(RequireTs(event));
      int64_t dur = event.dur_ns.value_or(0);
      if (!event.dur_ns) Warn(event, "complete event without \"dur\" (taken as 0)");
      if (dur < 0) {
        Warn(event, "negative \"dur\" (taken as 0)");
        dur = 0;
      }
      AddSlice(TrackFor(event), *event.ts_ns, dur, event.name, event.cat);
    } else if (ph == "B") {
      RETURN_IF_ERROR(RequireTs(event));
      TrackFor(event).open.push_back(
          OpenBegin{*event.ts_ns, event.name, event.cat.empty() ? -1 : builder_.InternCategory(event.cat)});
    } else if (ph == "E") {
      RETURN_IF_ERROR(RequireTs(event));
      TrackData& track = TrackFor(event);
      if (track.open.empty()) {
        Warn(event, "\"E\" event without a matching \"B\" (ignored)");
        return absl::OkStatus();
      }
      OpenBegin begin = std::move(track.open.back());
      track.open.pop_back();
      const int64_t dur = std::max<int64_t>(0, *event.ts_ns - begin.start_ns);
      Slice slice{begin.start_ns, dur, std::move(begin.name), begin.category, order_};
      track.slices.push_back(std::move(slice));
    } else if (ph == "i" || ph == "I") {
      if (event.name == kMemoryEventName || event.name == kOutOfMemoryEventName) {
        RETURN_IF_ERROR(RequireTs(event));
        return AddMemoryEvent(event);
      }
      Warn(event, "instant event other than [memory] (not used)");
    } else if (ph == "C") {
      RETURN_IF_ERROR(RequireTs(event));
      AddCounter(event);
    } else if (ph == "M") {
      const Arg* name = event.FindArg("name");
      if (event.name == "process_name" && name != nullptr) {
        process_names_[event.pid] = name->text;
      } else if (event.name == "thread_name" && name != nullptr) {
        thread_names_[std::make_pair(event.pid, event.tid)] = name->text;
      }
    } else if (ph == "s" || ph == "t" || ph == "f") {
      Warn(event, "flow event (not used)");
    } else if (ph == "b" || ph == "e" || ph == "n" || ph == "S" || ph == "T" || ph == "p" ||
               ph == "F") {
      Warn(event, "async event (not used)");
    } else {
      Warn(event, StrCat("event of phase \"", ph, "\" (not used)"));
    }
    return absl::OkStatus();
  }

  void AddSlice(TrackData& track, int64_t start, int64_t dur, const std::string& name,
                const std::string& cat) {
    Slice slice;
    slice.start_ns = start;
    slice.dur_ns = dur;
    slice.name = name;
    slice.category = cat.empty() ? -1 : builder_.InternCategory(cat);
    slice.order = order_;
    track.slices.push_back(std::move(slice));
  }

  absl::Status IntArg(const RawEvent& event, std::string_view key, std::optional<int64_t>* out) {
    const Arg* arg = event.FindArg(key);
    if (arg == nullptr) return absl::OkStatus();
    int64_t value = 0;
    if (!ParseDecimalScaled(arg->text, 0, &value) || value > (int64_t{1} << 60) ||
        value < -(int64_t{1} << 60)) {
      return json_.ErrorAt(event.at, StrCat("expected \"", key,
                                            "\" of this memory event to be an integer within "
                                            "+-2^60"));
    }
    *out = value;
    return absl::OkStatus();
  }

  absl::Status AddMemoryEvent(const RawEvent& event) {
    ir::MemoryEvent m;
    m.kind = event.name == kMemoryEventName ? ir::MemoryEvent::Kind::kAllocation
                                            : ir::MemoryEvent::Kind::kOutOfMemory;
    m.ts_ns = *event.ts_ns;
    std::optional<int64_t> device_type, device_id, addr, bytes;
    RETURN_IF_ERROR(IntArg(event, "Device Type", &device_type));
    RETURN_IF_ERROR(IntArg(event, "Device Id", &device_id));
    RETURN_IF_ERROR(IntArg(event, "Addr", &addr));
    RETURN_IF_ERROR(IntArg(event, "Bytes", &bytes));
    RETURN_IF_ERROR(IntArg(event, "Total Allocated", &m.total_allocated));
    RETURN_IF_ERROR(IntArg(event, "Total Reserved", &m.total_reserved));
    if (!bytes) return json_.ErrorAt(event.at, "expected a \"Bytes\" arg in the memory event");
    m.bytes = *bytes;
    m.device_type = static_cast<int32_t>(std::clamp<int64_t>(device_type.value_or(-1), -1, 1 << 20));
    m.device_id = static_cast<int32_t>(std::clamp<int64_t>(device_id.value_or(-1), -1, 1 << 20));
    m.addr = addr.value_or(0);
    TrackFor(event).memory.push_back(PendingMemory{m, order_});
    return absl::OkStatus();
  }

  void AddCounter(const RawEvent& event) {
    for (const Arg& arg : event.args) {
      if (!arg.is_number) continue;
      double value = 0;
      int64_t scaled = 0;
      // Counters are plotted, not summed: nanounits are plenty.
      if (ParseDecimalScaled(arg.text, 9, &scaled)) {
        value = static_cast<double>(scaled) / 1e9;
      } else {
        Warn(event, "counter value out of range (skipped)");
        continue;
      }
      auto [it, inserted] = counter_index_.try_emplace(
          std::make_tuple(event.pid, event.name, arg.key), counters_.size());
      if (inserted) {
        counters_.emplace_back();
        counters_.back().pid = event.pid;
        counters_.back().name = event.name;
        counters_.back().series = arg.key;
      }
      counters_[it->second].samples.push_back({*event.ts_ns, value});
    }
  }

  absl::StatusOr<ir::CallTree> Build();
  void BuildTrack(TrackData& data, ir::TrackId track_id, std::vector<PendingMemory>* memory);

  const SourceText& source_;
  JsonReader json_;
  ir::CallTreeBuilder builder_;
  size_t order_ = 0;
  std::vector<TrackData> tracks_;
  std::map<std::pair<std::string, std::string>, size_t> track_index_;
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
  std::vector<ir::CounterSeries> counters_;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> counter_index_;
};

absl::StatusOr<ir::CallTree> TraceReader::Build() {
  // Tracks by (pid, tid); numbers by value.
  std::vector<size_t> order(tracks_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const IdKey pa = KeyOf(tracks_[a].pid), pb = KeyOf(tracks_[b].pid);
    if (pa < pb) return true;
    if (pb < pa) return false;
    return KeyOf(tracks_[a].tid) < KeyOf(tracks_[b].tid);
  });
  std::vector<PendingMemory> memory;
  for (size_t i : order) {
    TrackData& data = tracks_[i];
    if (!data.open.empty()) {
      builder_.tree().diagnostics.Warn("\"B\" event without a matching \"E\" (ends at the trace's end)",
                                       source_.name());
    }
    BuildTrack(data, ir::TrackId(static_cast<int64_t>(builder_.tree().tracks.size())), &memory);
  }
  std::stable_sort(memory.begin(), memory.end(), [](const PendingMemory& a, const PendingMemory& b) {
    if (a.event.ts_ns != b.event.ts_ns) return a.event.ts_ns < b.event.ts_ns;
    return a.order < b.order;
  });
  for (PendingMemory& m : memory) builder_.tree().memory_events.push_back(std::move(m.event));
  std::sort(counters_.begin(), counters_.end(), [](const ir::CounterSeries& a, const ir::CounterSeries& b) {
    const IdKey pa = KeyOf(a.pid), pb = KeyOf(b.pid);
    if (pa < pb) return true;
    if (pb < pa) return false;
    return std::tie(a.name, a.series) < std::tie(b.name, b.series);
  });
  for (ir::CounterSeries& series : counters_) {
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
  }
  builder_.tree().counters = std::move(counters_);
  return std::move(builder_).Finish();
}

void TraceReader::BuildTrack(TrackData& data, ir::TrackId track_id,
                             std::vector<PendingMemory>* memory) {
  // "B" events never ended close at the last time seen on the track.
  int64_t last_ns = 0;
  bool any_time = false;
  for (const Slice& s : data.slices) {
    last_ns = any_time ? std::max(last_ns, s.start_ns + s.dur_ns) : s.start_ns + s.dur_ns;
    any_time = true;
  }
  for (const OpenBegin& b : data.open) {
    last_ns = any_time ? std::max(last_ns, b.start_ns) : b.start_ns;
    any_time = true;
  }
  while (!data.open.empty()) {
    OpenBegin b = std::move(data.open.back());
    data.open.pop_back();
    data.slices.push_back(Slice{b.start_ns, std::max<int64_t>(0, last_ns - b.start_ns),
                                std::move(b.name), b.category, order_++});
  }
  std::sort(data.slices.begin(), data.slices.end(), [](const Slice& a, const Slice& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.dur_ns != b.dur_ns) return a.dur_ns > b.dur_ns;  // the enclosing one first
    return a.order < b.order;
  });
  std::stable_sort(data.memory.begin(), data.memory.end(),
                   [](const PendingMemory& a, const PendingMemory& b) {
                     return a.event.ts_ns < b.event.ts_ns;
                   });

  ir::CallTree& tree = builder_.tree();
  ir::Track track;
  track.id = track_id;
  track.pid = data.pid;
  track.tid = data.tid;
  if (auto it = process_names_.find(data.pid); it != process_names_.end()) {
    track.process_name = it->second;
  }
  if (auto it = thread_names_.find({data.pid, data.tid}); it != thread_names_.end()) {
    track.thread_name = it->second;
  }
  const ir::CallNodeId track_node = builder_.AddNode(tree.root(), ir::CallNodeKind::kTrack, {});
  builder_.node(track_node).track = track_id;
  track.node = track_node;
  tree.tracks.push_back(std::move(track));

  int64_t track_start = 0, track_end = 0;
  bool first = true;
  auto extend = [&](int64_t start, int64_t end) {
    track_start = first ? start : std::min(track_start, start);
    track_end = first ? end : std::max(track_end, end);
    first = false;
  };

  struct Open {
    int64_t end_ns;
    ir::CallNodeId node;
  };
  std::vector<Open> open;
  size_t next_memory = 0;
  auto enclosing_at = [&](int64_t ts) {
    while (!open.empty() && open.back().end_ns <= ts) open.pop_back();
    return open.empty() ? track_node : open.back().node;
  };
  auto flush_memory_before = [&](int64_t ts, bool all) {
    while (next_memory < data.memory.size() &&
           (all || data.memory[next_memory].event.ts_ns < ts)) {
      PendingMemory m = std::move(data.memory[next_memory++]);
      m.event.track = track_id;
      m.event.enclosing = enclosing_at(m.event.ts_ns);
      extend(m.event.ts_ns, m.event.ts_ns);
      memory->push_back(std::move(m));
    }
  };
  bool overlap_warned = false;
  for (Slice& s : data.slices) {
    flush_memory_before(s.start_ns, /*all=*/false);
    const int64_t end = s.start_ns + s.dur_ns;
    const ir::CallNodeId parent = enclosing_at(s.start_ns);
    if (!open.empty() && end > open.back().end_ns && !overlap_warned) {
      tree.diagnostics.Warn("slice ends after the slice it starts in (kept as its child)",
                            StrCat(source_.name(), ": track pid ", data.pid, " tid ", data.tid));
      overlap_warned = true;
    }
    std::string_view function = s.name, file;
    int64_t line = 0;
    SplitPythonFrameName(s.name, &function, &file, &line);
    const ir::FunctionId fn = builder_.InternFunction(function, file, line);
    const ir::CallNodeId id = builder_.AddNode(parent, ir::CallNodeKind::kCall, fn);
    ir::CallNode& node = builder_.node(id);
    node.start_ns = s.start_ns;
    node.duration_ns = s.dur_ns;
    node.category = s.category;
    extend(s.start_ns, end);
    open.push_back(Open{end, id});
  }
  flush_memory_before(0, /*all=*/true);
  ir::CallNode& node = builder_.node(track_node);
  node.start_ns = first ? 0 : track_start;
  node.duration_ns = first ? 0 : track_end - track_start;
}

}  // namespace

bool SplitPythonFrameName(std::string_view slice_name, std::string_view* function,
                          std::string_view* file, int64_t* line) {
  auto parse_line = [](std::string_view digits, int64_t* out) {
    if (digits.empty() || digits.size() > 12) return false;
    int64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
  };
  // JAX / TSL Python tracer: "$file.py:132 func".
  if (!slice_name.empty() && slice_name.front() == '$') {
    const std::string_view rest = slice_name.substr(1);
    const size_t space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    const std::string_view location = rest.substr(0, space);
    const size_t colon = location.rfind(':');
    int64_t n = 0;
    if (colon == std::string_view::npos || !parse_line(location.substr(colon + 1), &n)) return false;
    *file = location.substr(0, colon);
    *line = n;
    *function = rest.substr(space + 1);
    return !function->empty();
  }
  // PyTorch python_function: "path/train.py(45): forward".
  const size_t close = slice_name.find("): ");
  if (close == std::string_view::npos) return false;
  const size_t open = slice_name.rfind('(', close);
  if (open == std::string_view::npos || open < 3 || slice_name.substr(open - 3, 3) != ".py") {
    return false;
  }
  int64_t n = 0;
  if (!parse_line(slice_name.substr(open + 1, close - open - 1), &n)) return false;
  if (close + 3 >= slice_name.size()) return false;
  *file = slice_name.substr(0, open);
  *line = n;
  *function = slice_name.substr(close + 3);
  return true;
}

bool LooksLikeChromeTrace(std::string_view head) {
  for (char c : head) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

absl::StatusOr<ir::CallTree> ParseChromeTrace(const SourceText& source) {
  TraceReader reader(source);
  return reader.Run();
}

}  // namespace memplan::parsers
