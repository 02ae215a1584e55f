// analyzer::FamilyArguments (the plans `memplan rank` enumerates): a plan
// built from the argument classes equals the family plan built argument by
// argument and lowered (BuildFamilyPlan, LowerSpecPlan), on a fixture with
// repeated shapes under different rules, alike arguments, an unnamed one,
// rule errors and every factorisation of 1..16 devices over the families.
#include <string>
#include <vector>

#include "analyzer/plan_families.h"
#include "gtest/gtest.h"
#include "ir/entry_arguments.h"
#include "ir/strings.h"

namespace memplan {
namespace {

ir::EntryArgument Arg(int64_t parameter, std::string name, std::vector<int64_t> dims,
                      bool donated = false) {
  ir::EntryArgument a;
  a.parameter = parameter;
  a.name = std::move(name);
  a.shape.dtype = ir::DType::kF32;
  a.shape.dims = std::move(dims);
  a.donated = donated;
  return a;
}

std::vector<ir::EntryArgument> Arguments() {
  return {Arg(0, "x", {64, 128}),
          Arg(1, "params['a']", {512, 2048}),    // tp colwise, expert
          Arg(2, "params['b']", {2048, 512}),    // tp rowwise
          Arg(3, "params['c']", {512, 2048}),    // 1's shape, no rule
          Arg(4, "params['a2']", {512, 2048}),   // 1's class
          Arg(5, "", {10}),                      // unnamed
          Arg(6, "params['d']", {3, 98304}),     // fsdp on dimension 1 only
          Arg(7, "params['e']", {512, 2048}, true),  // 3's shape, expert
          Arg(8, "y", {64}),
          Arg(9, "params['a3']", {96}),           // a colwise rank-1 parameter
          Arg(10, "params['c2']", {512, 2048}),  // 3's class again
          Arg(11, "params['b2']", {2048, 512})};
}

ir::FamilyInputs Inputs() {
  ir::FamilyInputs in;
  in.data = {"x", "y"};
  in.min_fsdp_elements = 1000;
  in.tp = {{"params['a*", ir::TpStyle::kColwise}, {"params['b*", ir::TpStyle::kRowwise}};
  in.ep = {"params['a*", "params['e*"};
  return in;
}

std::string StatusText(const absl::Status& s) { return std::string(s.message()); }

// Every field of `b` the enumeration's readers see equals `a`'s.
void ExpectSamePlan(const ir::ResolvedPlan& a, const ir::ResolvedPlan& b, const std::string& what) {
  EXPECT_EQ(a.label, b.label) << what;
  EXPECT_EQ(a.mesh.ToString(), b.mesh.ToString()) << what;
  EXPECT_EQ(a.shardings.entries(), b.shardings.entries()) << what;
  EXPECT_EQ(a.unmatched_arguments, b.unmatched_arguments) << what;
  EXPECT_EQ(a.outputs.size(), b.outputs.size()) << what;
  ASSERT_EQ(a.arguments.size(), b.arguments.size()) << what;
  for (size_t i = 0; i < a.arguments.size(); ++i) {
    EXPECT_EQ(a.arguments[i].parameter, b.arguments[i].parameter) << what << " " << i;
    EXPECT_EQ(a.arguments[i].sharding_index, b.arguments[i].sharding_index) << what << " " << i;
    EXPECT_EQ(a.arguments[i].source, b.arguments[i].source) << what << " " << i;
    EXPECT_EQ(a.arguments[i].donated, b.arguments[i].donated) << what << " " << i;
    EXPECT_EQ(a.ArgumentName(i), b.ArgumentName(i)) << what << " " << i;
    EXPECT_EQ(a.ArgumentKey(i), b.ArgumentKey(i)) << what << " " << i;
  }
}

void CompareOnEveryMesh(const std::vector<ir::EntryArgument>& arguments, const ir::FamilyInputs& inputs,
                        int* planned, int* failed) {
  const analyzer::FamilyArguments prepared(arguments, inputs);
  const ir::ArgumentLabels* shared = nullptr;
  for (const char* family : {"dp", "fsdp", "tp", "ep", "dp+tp", "tp+dp", "fsdp+tp", "dp+ep",
                             "ep+tp", "dp+fsdp+tp", "tp+fsdp+dp"}) {
    const std::vector<std::string> axes = *analyzer::FamilyAxes(family);
    for (int64_t devices = 1; devices <= 16; ++devices) {
      // Every ordered factorisation of `devices` (sizes of at least 1).
      std::vector<int64_t> sizes(axes.size(), 1);
      while (true) {
        int64_t product = 1;
        for (int64_t s : sizes) product *= s;
        if (product == devices) {
          ir::Mesh mesh;
          for (size_t k = 0; k < axes.size(); ++k) mesh.axes.push_back({axes[k], sizes[k]});
          const std::string what = StrCat(family, " ", mesh.ToString());
          absl::StatusOr<ir::SpecPlan> spec = analyzer::BuildFamilyPlan(arguments, mesh, inputs);
          absl::StatusOr<ir::ResolvedPlan> direct =
              spec.ok() ? analyzer::LowerSpecPlan(*spec) : absl::StatusOr<ir::ResolvedPlan>(spec.status());
          absl::StatusOr<ir::ResolvedPlan> fast = prepared.Plan(mesh);
          ASSERT_EQ(direct.ok(), fast.ok()) << what;
          if (!direct.ok()) {
            EXPECT_EQ(StatusText(direct.status()), StatusText(fast.status())) << what;
            ++*failed;
          } else {
            ExpectSamePlan(*direct, *fast, what);
            // The plans share one table of names.
            if (shared == nullptr) shared = fast->labels.get();
            EXPECT_EQ(fast->labels.get(), shared) << what;
            ++*planned;
          }
        }
        size_t k = 0;
        while (k < sizes.size() && ++sizes[k] > devices) sizes[k++] = 1;
        if (k == sizes.size()) break;
      }
    }
  }
}

TEST(FamilyArguments, PlansEqualThoseBuiltArgumentByArgument) {
  const std::vector<ir::EntryArgument> arguments = Arguments();
  EXPECT_LT(analyzer::FamilyArguments(arguments, Inputs()).class_count(), arguments.size());
  int planned = 0, failed = 0;
  CompareOnEveryMesh(arguments, Inputs(), &planned, &failed);
  // Both paths ran: plans built, and meshes the rules refuse (3 does not
  // divide 64, a colwise glob on dimension 0 taken by ep, ...).
  EXPECT_GT(planned, 20);
  EXPECT_GT(failed, 20);
}

TEST(FamilyArguments, ErrorsNameTheFirstFailingArgument) {
  // Two tp globs match params['b2'] (and not params['b']): the error names it
  // under tp, and an unnamed argument's key is its parameter number.
  ir::FamilyInputs inputs = Inputs();
  inputs.tp.push_back({"*b2*", ir::TpStyle::kColwise});
  int planned = 0, failed = 0;
  CompareOnEveryMesh(Arguments(), inputs, &planned, &failed);
  EXPECT_GT(planned, 0);
  EXPECT_GT(failed, 0);
  ir::Mesh tp;
  tp.axes = {{"tp", 2}};
  absl::StatusOr<ir::ResolvedPlan> plan = analyzer::FamilyArguments(Arguments(), inputs).Plan(tp);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(StatusText(plan.status()).find("params['b2']"), std::string::npos) << plan.status();
  ir::Mesh dp;
  dp.axes = {{"dp", 2}};
  plan = analyzer::FamilyArguments(Arguments(), Inputs()).Plan(dp);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->ArgumentKey(5), "5");
  EXPECT_EQ(plan->ArgumentKey(1), "params['a']");
}

}  // namespace
}  // namespace memplan
