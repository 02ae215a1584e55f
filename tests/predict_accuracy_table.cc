// Prints docs/accuracy.md's prediction table: every (program, candidate) of
// samples/sharded predicted from the program's single-device compile and
// held against XLA's memory_analysis() of the 8-device compile.
//   build/tests/predict_accuracy_table [samples/sharded]
// With a case named, prints that case's propagated sharding of every
// reached array (per-device shape and bytes) and its collectives, to hold
// against the partitioned HLO of the sharded compile
// (scripts/gen_sharding_corpus.py --dumps):
//   build/tests/predict_accuracy_table samples/sharded moe_train_step/ep8
// MEMPLAN_TABLE_ASSIGNER=keep: either with each value kept in its
// single-device allocation instead of XLA's buffer assigner re-run
// (PredictOptions::reassign_output_allocations off; the CLI's
// --assigner=keep); =rerun, or unset, is the default.
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "parsers/load_program.h"
#include "tests/predict_corpus.h"

namespace {

using memplan::predictor::AxesShardingToString;
using memplan::predictor::CollectiveKindName;
using memplan::predictor::MeshSizes;
using memplan::predictor::ShardDims;

int ExplainCase(const std::vector<memplan::test::CorpusProgram>& corpus, const std::string& name,
                const memplan::predictor::PredictOptions& options) {
  for (const auto& p : corpus) {
    for (const auto& c : p.cases) {
      if (absl::StrCat(p.name, "/", c.candidate) != name) continue;
      auto loaded = memplan::parsers::LoadProgram(p.dir, {});
      if (!loaded.ok()) {
        std::cerr << loaded.status() << "\n";
        return 2;
      }
      auto predictor = memplan::predictor::Predictor::Create(loaded->program, options);
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
      {
        std::vector<const memplan::ir::Shape*> shapes;
        memplan::predictor::CollectLeafShapes(
            module.instruction(module.entry_computation()->root).shape, &shapes);
        for (size_t k = 0; k < shapes.size() && k < prediction->output_shardings.size(); ++k) {
          std::cout << "output " << k << " ["
                    << absl::StrJoin(ShardDims(*shapes[k], prediction->output_shardings[k], mesh), ",")
                    << "]" << AxesShardingToString(prediction->output_shardings[k], c.plan.mesh)
                    << "\n";
        }
      }
      for (size_t k = 0; k < prediction->combined_all_reduces.size(); ++k) {
        std::cout << "combined all-reduce " << k << ":";
        for (size_t m : prediction->combined_all_reduces[k]) {
          std::cout << " " << module.instruction(prediction->collective_list[m].at).name;
        }
        std::cout << "\n";
      }
      return 0;
    }
  }
  std::cerr << "no case " << name << "\n";
  return 2;
}

// The options MEMPLAN_TABLE_ASSIGNER asks for; false for a value that is
// neither rerun nor keep.
bool OptionsFromEnvironment(memplan::predictor::PredictOptions* options) {
  const char* assigner = std::getenv("MEMPLAN_TABLE_ASSIGNER");
  if (assigner == nullptr || std::string(assigner) == "rerun") return true;
  if (std::string(assigner) != "keep") return false;
  options->reassign_output_allocations = false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "samples/sharded";
  auto corpus = memplan::test::LoadCorpus(root);
  if (!corpus.ok()) {
    std::cerr << corpus.status() << "\n";
    return 2;
  }
  memplan::predictor::PredictOptions options;
  if (!OptionsFromEnvironment(&options)) {
    std::cerr << "MEMPLAN_TABLE_ASSIGNER: expected rerun or keep\n";
    return 2;
  }
  if (argc > 2) return ExplainCase(*corpus, argv[2], options);
  auto rows = memplan::test::PredictCorpus(*corpus, options);
  if (!rows.ok()) {
    std::cerr << rows.status() << "\n";
    return 1;
  }
  std::cout << memplan::test::CorpusTable(*rows);
  return 0;
}
