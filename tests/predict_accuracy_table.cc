// Prints docs/accuracy.md's prediction table: every (program, candidate) of
// samples/sharded predicted from the program's single-device compile and
// held against XLA's memory_analysis() of the 8-device compile.
//   build/tests/predict_accuracy_table [samples/sharded]
// With a case named, prints that case's propagated sharding of every
// reached array (per-device shape and bytes) and its collectives, to hold
// against the partitioned HLO of the sharded compile
// (scripts/gen_sharding_corpus.py --dumps):
//   build/tests/predict_accuracy_table samples/sharded moe_train_step/ep8
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "parsers/load_program.h"
#include "tests/predict_corpus.h"

namespace {

using memplan::predictor::AxesShardingToString;
using memplan::predictor::CollectiveKindName;
using memplan::predictor::MeshSizes;
using memplan::predictor::ShardDims;

int ExplainCase(const std::vector<memplan::test::CorpusProgram>& corpus, const std::string& name) {
  for (const auto& p : corpus) {
    for (const auto& c : p.cases) {
      if (absl::StrCat(p.name, "/", c.candidate) != name) continue;
      auto loaded = memplan::parsers::LoadProgram(p.dir, {});
      if (!loaded.ok()) {
        std::cerr << loaded.status() << "\n";
        return 2;
      }
      auto predictor = memplan::predictor::Predictor::Create(loaded->program);
      if (!predictor.ok()) {
        std::cerr << predictor.status() << "\n";
        return 2;
      }
      auto prediction = (*predictor)->Predict(c.plan);
      if (!prediction.ok()) {
        std::cerr << prediction.status() << "\n";
        return 1;
      }
      const memplan::ir::Module& module = loaded->program.module;
      MeshSizes mesh;
      for (const auto& axis : c.plan.mesh.axes) mesh.sizes.push_back(axis.size);
      for (const memplan::ir::Instruction& inst : module.instructions()) {
        const auto& all = *prediction->instruction_shardings;
        const auto& leaves = all[static_cast<size_t>(inst.id.value())];
        if (leaves.empty()) continue;
        std::vector<const memplan::ir::Shape*> shapes;
        memplan::predictor::CollectLeafShapes(inst.shape, &shapes);
        std::string text;
        for (size_t k = 0; k < leaves.size() && k < shapes.size(); ++k) {
          if (shapes[k]->dims.empty()) continue;
          absl::StrAppend(&text, " [", absl::StrJoin(ShardDims(*shapes[k], leaves[k], mesh), ","),
                          "]", AxesShardingToString(leaves[k], c.plan.mesh));
        }
        if (text.empty()) continue;
        std::cout << module.computation(inst.computation).name << " " << inst.name << " "
                  << inst.opcode_text << text << "\n";
      }
      for (const auto& col : prediction->collective_list) {
        std::cout << "collective " << CollectiveKindName(col.kind) << " at "
                  << module.instruction(col.at).name << " from "
                  << (col.source.valid() ? module.instruction(col.source).name : "(fused)")
                  << " bytes " << col.operand_bytes << " -> " << col.result_bytes << "\n";
      }
      for (const auto& g : prediction->collectives) {
        std::cout << "group " << CollectiveKindName(g.kind) << " ops " << g.count << " combined "
                  << g.combined << " bytes " << g.result_bytes << "\n";
      }
      return 0;
    }
  }
  std::cerr << "no case " << name << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "samples/sharded";
  auto corpus = memplan::test::LoadCorpus(root);
  if (!corpus.ok()) {
    std::cerr << corpus.status() << "\n";
    return 2;
  }
  if (argc > 2) return ExplainCase(*corpus, argv[2]);
  // MEMPLAN_TABLE_REASSIGN=1: the table with XLA's buffer assigner re-run
  // (PredictOptions::reassign_output_allocations, off by default).
  memplan::predictor::PredictOptions options;
  const char* reassign = std::getenv("MEMPLAN_TABLE_REASSIGN");
  options.reassign_output_allocations = reassign != nullptr && reassign[0] == '1';
  auto rows = memplan::test::PredictCorpus(*corpus, options);
  if (!rows.ok()) {
    std::cerr << rows.status() << "\n";
    return 1;
  }
  std::cout << memplan::test::CorpusTable(*rows);
  return 0;
}
