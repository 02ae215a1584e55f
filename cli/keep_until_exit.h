// Large results a command has finished with, handed to the process's exit
// instead of being destroyed object by object. Freeing a program read from a
// 100 MB input (every instruction's and value's vectors, one free each) took
// a quarter of `memplan analyze`'s CPU time on a large HLO module; the
// kernel reclaims the same memory at exit at once.
#ifndef MEMPLAN_CLI_KEEP_UNTIL_EXIT_H_
#define MEMPLAN_CLI_KEEP_UNTIL_EXIT_H_

#include <type_traits>
#include <utility>
#include <vector>

namespace memplan::cli {

// Moves `object` to the heap and never destroys it: it lives until the
// process exits. It stays reachable (through a process-wide list), so leak
// checkers (LeakSanitizer, valgrind) count it as reachable, not lost. Call it
// only once the command's output is written; what `object` held is then an
// empty, moved-from shell that the caller destroys at no cost.
template <typename T>
void KeepUntilExit(T&& object) {
  using Kept = std::remove_cvref_t<T>;
  // Allocated once and never destroyed, so no exit-time destructor runs.
  static std::vector<const void*>* const kept = new std::vector<const void*>();
  kept->push_back(new Kept(std::forward<T>(object)));
}

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_KEEP_UNTIL_EXIT_H_
