// Prints docs/accuracy.md's prediction table: every (program, candidate) of
// samples/sharded predicted from the program's single-device compile and
// held against XLA's memory_analysis() of the 8-device compile.
//   build/tests/predict_accuracy_table [samples/sharded]
#include <iostream>

#include "tests/predict_corpus.h"

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : "samples/sharded";
  auto corpus = memplan::test::LoadCorpus(root);
  if (!corpus.ok()) {
    std::cerr << corpus.status() << "\n";
    return 2;
  }
  auto rows = memplan::test::PredictCorpus(*corpus);
  if (!rows.ok()) {
    std::cerr << rows.status() << "\n";
    return 1;
  }
  std::cout << memplan::test::CorpusTable(*rows);
  return 0;
}
