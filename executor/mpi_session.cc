#include "executor/mpi_session.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "executor/backend.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace memplan::executor {
namespace {

absl::Status MpiStatus(int code, std::string_view what) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  return absl::InternalError(StrCat(what, ": ", MpiErrorString(code)));
}

}  // namespace

std::string MpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return StrCat("MPI error ", code);
  return std::string(text, static_cast<size_t>(length));
}

bool StartedByMpiLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<MpiSession>> MpiSession::Start() {
  std::unique_ptr<MpiSession> session(new MpiSession());
  if (!StartedByMpiLauncher()) return session;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
      return absl::FailedPreconditionError("MPI_Init failed although a launcher started this process");
    }
  }
  session->uses_mpi_ = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  RETURN_IF_ERROR(MpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &session->control_), "MPI_Comm_dup"));
  RETURN_IF_ERROR(MpiStatus(MPI_Comm_dup(MPI_COMM_WORLD, &session->data_), "MPI_Comm_dup"));
  MPI_Comm_set_errhandler(session->control_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(session->data_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &session->rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &session->size_);
  MPI_Comm local = MPI_COMM_NULL;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, session->rank_, MPI_INFO_NULL, &local) ==
          MPI_SUCCESS &&
      local != MPI_COMM_NULL) {
    MPI_Comm_rank(local, &session->local_rank_);
    MPI_Comm_free(&local);
  }
  return session;
}

MpiSession::~MpiSession() {
  if (uses_mpi_ && !finished_) Finish(0, 10);
}

std::string MpiSession::Transport() const {
  if (!uses_mpi_) return "none (one process)";
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<size_t>(length));
  const size_t end = text.find_first_of(",\n");
  return StrCat("MPI (", text.substr(0, end), ")");
}

absl::Status MpiSession::Wait(MPI_Request* request, double timeout_seconds, std::string_view what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(timeout_seconds);
  for (int polls = 0;; ++polls) {
    int done = 0;
    const int code = MPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS) return MpiStatus(code, what);
    if (done) return absl::OkStatus();
    if (Clock::now() > deadline) {
      wedged_ = true;
      return absl::DeadlineExceededError(
          StrCat(what, " did not complete within ", timeout_seconds, " s (a rank of its group failed or is stuck)"));
    }
    // Spin briefly for latency, then yield the core (ranks may outnumber
    // cores), then sleep a little.
    if (polls > 20000) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    } else if (polls > 200) {
      sched_yield();
    }
  }
}

absl::StatusOr<std::vector<std::string>> MpiSession::AllGather(std::string_view mine, double timeout_seconds) {
  if (!uses_mpi_) return std::vector<std::string>{std::string(mine)};
  long long length = static_cast<long long>(mine.size());
  std::vector<long long> lengths(static_cast<size_t>(size_));
  MPI_Request request;
  RETURN_IF_ERROR(MpiStatus(
      MPI_Iallgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, control_, &request),
      "MPI_Iallgather"));
  RETURN_IF_ERROR(Wait(&request, timeout_seconds, "exchanging results between ranks"));
  std::vector<int> counts(static_cast<size_t>(size_));
  std::vector<int> displacements(static_cast<size_t>(size_));
  long long total = 0;
  for (int r = 0; r < size_; ++r) {
    if (lengths[r] < 0 || lengths[r] > (1LL << 30) || total + lengths[r] > (1LL << 31) - 1) {
      return absl::InternalError("a rank's message is too large to exchange");
    }
    counts[r] = static_cast<int>(lengths[r]);
    displacements[r] = static_cast<int>(total);
    total += lengths[r];
  }
  std::string all(static_cast<size_t>(total), '\0');
  RETURN_IF_ERROR(MpiStatus(MPI_Iallgatherv(mine.data(), static_cast<int>(length), MPI_CHAR, all.data(),
                                            counts.data(), displacements.data(), MPI_CHAR, control_, &request),
                            "MPI_Iallgatherv"));
  RETURN_IF_ERROR(Wait(&request, timeout_seconds, "exchanging results between ranks"));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(size_));
  for (int r = 0; r < size_; ++r) out.push_back(all.substr(displacements[r], counts[r]));
  return out;
}

absl::StatusOr<std::vector<MPI_Comm>> MpiSession::SplitGroups(const std::vector<std::vector<int>>& groups) {
  std::vector<MPI_Comm> comms(groups.size(), MPI_COMM_NULL);
  for (const std::vector<int>& layer : DisjointLayers(groups)) {
    int color = MPI_UNDEFINED;
    int key = 0;
    for (int g : layer) {
      for (size_t i = 0; i < groups[g].size(); ++i) {
        if (groups[g][i] == rank_) {
          color = g;
          key = static_cast<int>(i);
        }
      }
    }
    MPI_Comm comm = MPI_COMM_NULL;
    RETURN_IF_ERROR(MpiStatus(MPI_Comm_split(data_, color, key, &comm), "MPI_Comm_split"));
    if (comm != MPI_COMM_NULL) {
      MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
      comms[color] = comm;
      group_comms_.push_back(comm);
    }
  }
  return comms;
}

int MpiSession::Finish(int exit_code, double timeout_seconds) {
  if (!uses_mpi_ || finished_) return exit_code;
  finished_ = true;
  // Every rank meets here once it has said all it will say (rank 0 after
  // writing the report), wedged or not, and learns whether any rank is: a
  // wedged rank that ended the job before rank 0 arrived would kill rank 0
  // mid-write (no report file, its messages lost; seen under load with 4
  // ranks on 2 cores), and ranks finalizing while others abort can crash
  // mpiexec itself (Open MPI 4's PMIx server finalize). So either every
  // rank finalizes or every rank aborts.
  int wedged_here = wedged_ ? 1 : 0;
  int wedged_any = 1;
  MPI_Request request;
  const bool met = MPI_Iallreduce(&wedged_here, &wedged_any, 1, MPI_INT, MPI_MAX, control_, &request) ==
                       MPI_SUCCESS &&
                   Wait(&request, timeout_seconds, "the final exchange of wedged flags").ok();
  if (met && wedged_any == 0) {
    for (MPI_Comm& comm : group_comms_) MPI_Comm_free(&comm);
    MPI_Comm_free(&control_);
    MPI_Comm_free(&data_);
    MPI_Finalize();
    return exit_code;
  }
  // Some rank holds a request that never completed, which cannot be freed,
  // so MPI cannot be finalized: end the job. Everything worth saying has
  // been said (or a rank did not get here within the timeout).
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code == 0 ? 2 : exit_code);
  std::_Exit(exit_code == 0 ? 2 : exit_code);
}

}  // namespace memplan::executor
