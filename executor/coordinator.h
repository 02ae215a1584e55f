// The control plane between the ranks of one run: who they are, and a
// deadline-guarded exchange of small messages (status, reports, NCCL's
// unique id). MPI when a launcher started the processes
// (executor/mpi_session.h), else one rank alone.
#ifndef MEMPLAN_EXECUTOR_COORDINATOR_H_
#define MEMPLAN_EXECUTOR_COORDINATOR_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace memplan::executor {

class Coordinator {
 public:
  virtual ~Coordinator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This process's position among the ranks on its host (picks its GPU).
  virtual int local_rank() const = 0;
  // "MPI (Open MPI v4.1.4)", or "none (one process)".
  virtual std::string Transport() const = 0;

  // Every rank's `mine`, in rank order, on every rank. DeadlineExceeded
  // when not every rank took part within `timeout_seconds`.
  virtual absl::StatusOr<std::vector<std::string>> AllGather(std::string_view mine,
                                                             double timeout_seconds) = 0;
};

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_COORDINATOR_H_
