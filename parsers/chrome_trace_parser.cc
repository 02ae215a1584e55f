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
#include "parsers/chrome_trace_tracks.h"
#include "parsers/json_reader.h"

namespace memplan::parsers {
namespace {

using internal::OpenBegin;
using internal::PendingMemory;
using internal::Slice;
using internal::TraceEvents;
using internal::TrackData;
using internal::BuildTraceTree;

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
    return BuildTraceTree(std::move(events_), std::move(builder_), source_.name());
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

  const SourceText& source_;
  JsonReader json_;
  ir::CallTreeBuilder builder_;
  TraceEvents events_;
  size_t& order_ = events_.next_order;
  std::vector<TrackData>& tracks_ = events_.tracks;
  std::map<std::pair<std::string, std::string>, size_t> track_index_;
  std::map<std::string, std::string>& process_names_ = events_.process_names;
  std::map<std::pair<std::string, std::string>, std::string>& thread_names_ = events_.thread_names;
  std::vector<ir::CounterSeries>& counters_ = events_.counters;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> counter_index_;
};

}  // namespace

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
