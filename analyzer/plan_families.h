// Plan families: the standard ways to shard a program's arguments over a
// mesh, derived from a few inputs (ir::FamilyInputs) by the rules in
// samples/sharded/README.md ("Family rules"):
//
//   dp    data arguments split on their leading dimension over `dp`
//   fsdp  data as dp; parameters of at least min_fsdp_elements split over
//         `fsdp` on their largest still-unsharded divisible dimension
//         (ZeRO-3 / seed 002's rule, ties to the earliest dimension)
//   tp    parameters matching a tensor-parallel glob split over `tp`
//         (colwise: last dimension; rowwise: second-to-last)
//   ep    parameters matching an expert glob split over `ep` on dimension 0;
//         data as dp
//
// A family is a '+'-joined set of these (dp+tp, fsdp+tp, dp+ep, ...), one
// mesh axis of the same name each; each rule applies when the mesh has its
// axis.
#ifndef MEMPLAN_ANALYZER_PLAN_FAMILIES_H_
#define MEMPLAN_ANALYZER_PLAN_FAMILIES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/entry_arguments.h"
#include "ir/mesh.h"
#include "ir/plan.h"
#include "ir/spec_plan.h"

namespace memplan::analyzer {

// The mesh axes a family names: "dp+tp" -> {"dp", "tp"}. InvalidArgument
// on an empty part, a part that is not dp, fsdp, tp or ep, or one named twice.
absl::StatusOr<std::vector<std::string>> FamilyAxes(std::string_view family);

// Checks that `mesh` has exactly the axes of `family_axes` (any order).
absl::Status CheckFamilyMesh(const std::vector<std::string>& family_axes, const ir::Mesh& mesh);

// "dp2_tp4": each axis name followed by its size, major to minor.
std::string FamilyLabel(const ir::Mesh& mesh);

// The plan the family rules give `arguments` on `mesh` (whose axis names
// pick the rules). Every argument gets a spec of its rank; donation is
// copied from the arguments. InvalidArgument, naming the argument, when a
// sharded dimension does not divide by its axes, a parameter matches two tp
// globs, a rowwise glob matches a parameter of rank below 2, a colwise glob
// one of rank 0, or the ep and tp rules want the same dimension.
absl::StatusOr<ir::SpecPlan> BuildFamilyPlan(const std::vector<ir::EntryArgument>& arguments,
                                             const ir::Mesh& mesh, const ir::FamilyInputs& inputs);

// The plan lowered without a file round trip: each spec to the HloSharding
// JAX gives it (ir::PartitionSpecToHloSharding; each distinct spec and rank
// lowered once), every argument kKey (keyed by its name, or its number when
// unnamed), donation kept, outputs unspecified, label from the spec plan.
// What parsers::ResolvePlan gives for WritePlanYaml(plan). InvalidArgument
// on an invalid mesh or a spec that does not lower (an axis not in the
// mesh, a spec longer than the rank).
absl::StatusOr<ir::ResolvedPlan> LowerSpecPlan(const ir::SpecPlan& plan);

// A program's arguments prepared, once, for many family plans: grouped into
// classes that every family rule treats alike (the same shape, the same
// data, expert and tp-glob matches), so a plan costs a rule evaluation per
// class, not per argument, and every plan shares one table of names.
class FamilyArguments {
 public:
  FamilyArguments(const std::vector<ir::EntryArgument>& arguments, ir::FamilyInputs inputs);

  // LowerSpecPlan(BuildFamilyPlan(arguments, mesh, inputs)), field for
  // field (the same errors, shardings table in the same order), with the
  // names and keys shared by every plan of this object.
  absl::StatusOr<ir::ResolvedPlan> Plan(const ir::Mesh& mesh) const;

  const ir::FamilyInputs& inputs() const { return inputs_; }
  size_t class_count() const { return representatives_.size(); }

 private:
  ir::FamilyInputs inputs_;
  // Each class's first argument, in order of first appearance.
  std::vector<ir::EntryArgument> representatives_;
  std::vector<int32_t> class_of_;  // by argument
  std::vector<int64_t> parameters_;
  std::vector<bool> donated_;
  std::shared_ptr<const ir::ArgumentLabels> labels_;
};

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_PLAN_FAMILIES_H_
