// MPI for one run: started when a launcher (mpirun, srun with PMI/PMIx)
// started this process, else a one-rank session that never touches MPI.
// The control plane (Coordinator) and the host backend's collectives use
// separate communicators, so a collective left hanging on one never blocks
// the other.
#ifndef MEMPLAN_EXECUTOR_MPI_SESSION_H_
#define MEMPLAN_EXECUTOR_MPI_SESSION_H_

#include <mpi.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "executor/coordinator.h"

namespace memplan::executor {

// True when this process's environment says a launcher started it.
bool StartedByMpiLauncher();

class MpiSession : public Coordinator {
 public:
  // Initializes MPI when StartedByMpiLauncher(), else makes a one-rank
  // session. FailedPrecondition when MPI cannot start.
  static absl::StatusOr<std::unique_ptr<MpiSession>> Start();
  ~MpiSession() override;

  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  bool uses_mpi() const { return uses_mpi_; }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  std::string Transport() const override;
  absl::StatusOr<std::vector<std::string>> AllGather(std::string_view mine,
                                                     double timeout_seconds) override;

  // A communicator per group (global ranks; their order numbers them), from
  // the data-plane communicator; MPI_COMM_NULL where this rank is not a
  // member. Every rank calls it with the same list. Requires uses_mpi().
  absl::StatusOr<std::vector<MPI_Comm>> SplitGroups(const std::vector<std::vector<int>>& groups);

  // Waits for `request` with MPI_Test until it completes or
  // `timeout_seconds` pass; then DeadlineExceeded naming `what`, and the
  // session is wedged (see Finish).
  absl::Status Wait(MPI_Request* request, double timeout_seconds, std::string_view what);

  // Ends this rank's part in the run and returns `exit_code`: waits (up to
  // `timeout_seconds`) until every rank got here, so that rank 0 has
  // written its output, then finalizes MPI. When any rank's session is
  // wedged (a collective that never completed), or the wait times out, no
  // rank finalizes: each calls MPI_Abort with `exit_code`, which ends every
  // rank of the job.
  int Finish(int exit_code, double timeout_seconds);

 private:
  MpiSession() = default;

  bool uses_mpi_ = false;
  bool finished_ = false;
  bool wedged_ = false;
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  MPI_Comm control_ = MPI_COMM_NULL;
  MPI_Comm data_ = MPI_COMM_NULL;
  std::vector<MPI_Comm> group_comms_;
};

// "MPI_ERR_...: message" for an MPI return code.
std::string MpiErrorString(int code);

}  // namespace memplan::executor

#endif  // MEMPLAN_EXECUTOR_MPI_SESSION_H_
