// A propagation test fixture: an HLO module text parsed into a Program, its
// PropagationGraph built once, propagated under a mesh from given argument
// shardings; instructions looked up by name (tests only).
#ifndef MEMPLAN_TESTS_PROPAGATE_FIXTURE_H_
#define MEMPLAN_TESTS_PROPAGATE_FIXTURE_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ir/mesh.h"
#include "parsers/hlo_text_program.h"
#include "parsers/source_text.h"
#include "predictor/axes_sharding.h"
#include "predictor/propagation.h"

namespace memplan::predictor {

inline ir::Mesh MakeMesh(std::vector<std::pair<std::string, int64_t>> axes) {
  ir::Mesh mesh;
  for (auto& [name, size] : axes) mesh.axes.push_back({name, size});
  return mesh;
}

class PropagateTest : public ::testing::Test {
 protected:
  void Load(std::string text) {
    auto source = parsers::SourceText::FromString("t.hlo", std::move(text));
    absl::StatusOr<ir::Program> p = parsers::ParseHloTextProgram({source}, ir::Program());
    ASSERT_TRUE(p.ok()) << p.status();
    program_ = std::make_unique<ir::Program>(*std::move(p));
    graph_ = PropagationGraph::Build(program_->module);
  }
  Propagation Run(const ir::Mesh& mesh, std::vector<AxesSharding> params) {
    MeshSizes sizes;
    for (const auto& a : mesh.axes) sizes.sizes.push_back(a.size);
    absl::StatusOr<Propagation> p = Propagate(program_->module, graph_, sizes, params);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : Propagation{};
  }
  const ir::Instruction* Named(std::string_view name) const {
    for (const ir::Instruction& i : program_->module.instructions()) {
      if (i.name == name) return &i;
    }
    ADD_FAILURE() << "no " << name;
    return nullptr;
  }
  const AxesSharding& Of(const Propagation& p, std::string_view name) {
    if (const ir::Instruction* i = Named(name)) return p.leaves[static_cast<size_t>(i->id.value())].at(0);
    static AxesSharding none;
    return none;
  }
  std::unique_ptr<ir::Program> program_;
  PropagationGraph graph_;
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_TESTS_PROPAGATE_FIXTURE_H_
