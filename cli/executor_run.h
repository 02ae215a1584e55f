// What `memplan validate` and `memplan bench-collectives` share: the MPI
// session, the backend the flags ask for, and writing from rank 0 only.
#ifndef MEMPLAN_CLI_EXECUTOR_RUN_H_
#define MEMPLAN_CLI_EXECUTOR_RUN_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cli/executor_commands.h"
#include "executor/mpi_session.h"
#include "executor/replay.h"

namespace memplan::cli {

// "memplan: <message>" on stderr; with a rank prefix under mpirun.
void ReportExecutorError(const executor::Coordinator* coordinator, std::string_view message);
void ReportExecutorError(const executor::Coordinator* coordinator, const absl::Status& status);

// A factory for the backend `flags` ask for. InvalidArgument when a flag
// (e.g. --device-memory) does not parse.
absl::StatusOr<executor::BackendFactory> BackendFactoryFor(const ExecutorFlags& flags,
                                                           executor::MpiSession& session);

}  // namespace memplan::cli

#endif  // MEMPLAN_CLI_EXECUTOR_RUN_H_
