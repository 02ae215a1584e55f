#include "viz/check_report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "ir/strings.h"
#include "viz/describe.h"
#include "viz/format.h"
#include "viz/junit.h"

namespace memplan::viz {
namespace {

using analyzer::CheckOutcome;
using analyzer::Metric;

std::string OnePlace(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%+.1f%%", percent);
  return buffer;
}

std::string PercentAllowed(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g%%", percent);
  return buffer;
}

std::string Bytes(int64_t bytes) {
  return StrCat(HumanBytes(bytes), " (", GroupedBytes(bytes), " bytes)");
}

// Why the input cannot tell the metric.
std::string WhyUnknown(Metric metric) {
  if (metric == Metric::kPeak) {
    return "the input has no live ranges (use a buffer-assignment dump with its HloLiveRange)";
  }
  return "the input does not state it";
}

// A number from an input that stops early, failed unless checked anyway
// (how to ask for that is the caller's to say).
std::string DescribeUntrusted(const CheckOutcome& o) {
  return StrCat("cannot be trusted: ", viz::DescribeNote(*o.untrusted));
}

std::string DescribeBudget(const CheckOutcome& o, const std::string& limit_text) {
  const std::string key(analyzer::MetricKey(o.metric));
  const int64_t limit = o.limit.value_or(0);
  const std::string limit_words =
      limit_text.empty() ? Bytes(limit)
          : StrCat(limit_text, " = ", Bytes(limit));
  if (!o.value) {
    std::string text = StrCat(key, " cannot be checked for this input: ", WhyUnknown(o.metric),
                              "; its budget is ", HumanBytes(limit));
    if (o.result == CheckOutcome::Result::kFail) text += " (strict: an unchecked budget fails)";
    return text;
  }
  if (o.result == CheckOutcome::Result::kPass) {
    return StrCat(key, " is ", Bytes(*o.value), ", within its budget of ", limit_words);
  }
  std::string text = StrCat(key, " is ", Bytes(*o.value), ", over its budget of ", limit_words,
                            " by ", HumanBytes(*o.value - limit));
  if (const std::optional<double> percent = o.Percent()) {
    StrAppend(&text, " (", OnePlace(*percent), ")");
  }
  return text;
}

std::string DescribeRegression(const CheckOutcome& o) {
  const std::string key(analyzer::MetricKey(o.metric));
  if (!o.value || !o.baseline) {
    return StrCat(key, " is unknown in the ", !o.value ? "input" : "baseline", " (",
                  WhyUnknown(o.metric), "): not compared");
  }
  const int64_t before = *o.baseline;
  const int64_t after = *o.value;
  if (after == before) return StrCat(key, " is unchanged at ", HumanBytes(after));
  const bool grew = after > before;
  std::string change = StrCat(key, grew ? " grew" : " shrank", " from ", HumanBytes(before),
                              " to ", HumanBytes(after));
  const std::string allowed = PercentAllowed(o.allowed_percent);
  if (before == 0) {
    StrAppend(&change, " (from nothing)");
  } else {
    StrAppend(&change, " (", OnePlace(*o.Percent()), ")");
  }
  if (!grew) return change;
  return StrCat(change, o.result == CheckOutcome::Result::kFail ? ", over the " : ", within the ",
                allowed, " allowed");
}

const char* ResultWord(CheckOutcome::Result r) {
  switch (r) {
    case CheckOutcome::Result::kPass:
      return "pass";
    case CheckOutcome::Result::kFail:
      return "FAIL";
    case CheckOutcome::Result::kUncheckable:
      return "n/a";
    case CheckOutcome::Result::kSkipped:
      return "skip";
  }
  return "?";
}

std::string DescribeNote(const CheckNote& note) {
  switch (note.kind) {
    case CheckNote::Kind::kBaselineOtherModule:
      return StrCat("the baseline's module is ", note.module,
                    "; compared as the only module on each side");
    case CheckNote::Kind::kNoBaselineModule:
      return StrCat("no module ", note.module, " in the baseline: no regression checks");
    case CheckNote::Kind::kBudgetSetsNoLimit:
      return StrCat("budget \"", note.module, "\" sets no limit");
  }
  return "";
}

}  // namespace

std::string OutcomeName(const CheckOutcome& outcome) {
  std::string name(analyzer::MetricKey(outcome.metric));
  if (outcome.kind == CheckOutcome::Kind::kRegression) name += " vs baseline";
  return name;
}

std::string DescribeOutcome(const CheckOutcome& outcome, const std::string& limit_text) {
  if (outcome.untrusted) return DescribeUntrusted(outcome);
  return outcome.kind == CheckOutcome::Kind::kBudget ? DescribeBudget(outcome, limit_text)
                                                     : DescribeRegression(outcome);
}

std::string RenderCheckText(const std::vector<CheckModuleReport>& reports) {
  std::string out;
  int64_t checks = 0;
  int64_t failed = 0;
  int64_t unchecked = 0;
  size_t name_width = 0;
  for (const CheckModuleReport& r : reports) {
    for (const CheckOutcome& o : r.outcomes) name_width = std::max(name_width, OutcomeName(o).size());
  }
  for (const CheckModuleReport& r : reports) {
    StrAppend(&out, "module ", r.module, " (", r.source, ")\n");
    if (r.budget_key.empty()) {
      StrAppend(&out, "  skipped: no budget for it (neither its name nor \"*\")\n");
    } else {
      StrAppend(&out, "  budget \"", r.budget_key, "\"");
      if (!r.baseline.empty()) StrAppend(&out, ", baseline ", r.baseline);
      out += "\n";
    }
    for (const CheckNote& note : r.notes) StrAppend(&out, "  note: ", DescribeNote(note), "\n");
    for (const CheckOutcome& o : r.outcomes) {
      ++checks;
      if (o.result == CheckOutcome::Result::kFail) ++failed;
      if (o.result == CheckOutcome::Result::kUncheckable) ++unchecked;
      const std::string name = OutcomeName(o);
      const char* word = ResultWord(o.result);
      StrAppend(&out, "  ", word, std::string(6 - std::strlen(word), ' '), name,
                std::string(name_width - name.size() + 2, ' '),
                DescribeOutcome(o, r.limit_text[static_cast<int>(o.metric)]), "\n");
    }
  }
  out += "\n";
  if (checks == 0) {
    out += "no checks ran\n";
  } else if (failed == 0) {
    StrAppend(&out, "all ", checks - unchecked, " checks passed");
    if (unchecked > 0) StrAppend(&out, "; ", unchecked, " could not be checked for this input");
    out += "\n";
  } else {
    StrAppend(&out, failed, " of ", checks, " checks failed");
    if (unchecked > 0) StrAppend(&out, ", ", unchecked, " could not be checked for this input");
    out += "\n";
  }
  return MarkupSafeText(out);  // names come from the input: no terminal escapes
}

std::string RenderCheckJUnit(const std::vector<CheckModuleReport>& reports) {
  std::vector<JUnitSuite> suites;
  std::map<std::string, int> seen;
  for (const CheckModuleReport& r : reports) {
    JUnitSuite suite;
    suite.name = r.module;
    if (seen[r.module]++ > 0) suite.name = StrCat(r.module, " (", r.source, ")");
    suite.properties.emplace_back("source", r.source);
    if (!r.budget_key.empty()) suite.properties.emplace_back("budget", r.budget_key);
    if (!r.baseline.empty()) suite.properties.emplace_back("baseline", r.baseline);
    const std::string classname = StrCat("memplan.check.", r.module);
    if (r.budget_key.empty()) {
      suite.cases.push_back({"budget", classname, JUnitCase::Outcome::kSkipped,
                             "no budget for this module (neither its name nor \"*\")", ""});
    }
    for (const CheckOutcome& o : r.outcomes) {
      JUnitCase c;
      c.name = OutcomeName(o);
      c.classname = classname;
      const std::string message = DescribeOutcome(o, r.limit_text[static_cast<int>(o.metric)]);
      switch (o.result) {
        case CheckOutcome::Result::kPass:
          c.outcome = JUnitCase::Outcome::kPass;
          break;
        case CheckOutcome::Result::kFail:
          c.outcome = JUnitCase::Outcome::kFailure;
          c.message = message;
          c.details = StrCat(r.module, ": ", message);
          break;
        case CheckOutcome::Result::kUncheckable:
        case CheckOutcome::Result::kSkipped:
          c.outcome = JUnitCase::Outcome::kSkipped;
          c.message = message;
          break;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  return RenderJUnit("memplan check", suites);
}

}  // namespace memplan::viz
