// Small helpers for absl::Status / absl::StatusOr propagation. memplan reports
// every error as a Status; no exceptions are thrown anywhere.
#ifndef MEMPLAN_IR_STATUS_MACROS_H_
#define MEMPLAN_IR_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define MEMPLAN_CONCAT_INNER_(a, b) a##b
#define MEMPLAN_CONCAT_(a, b) MEMPLAN_CONCAT_INNER_(a, b)

// Returns from the current function if `expr` (a Status) is not ok.
#define RETURN_IF_ERROR(expr)                       \
  do {                                              \
    ::absl::Status memplan_status_ = (expr);        \
    if (!memplan_status_.ok()) return memplan_status_; \
  } while (false)

// Evaluates `rexpr` (a StatusOr<T>); on error returns its status, else moves
// the value into `lhs` (which may be a declaration such as `auto x`).
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL_(MEMPLAN_CONCAT_(memplan_statusor_, __LINE__), lhs, rexpr)

#define ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                           \
  if (!tmp.ok()) return std::move(tmp).status(); \
  lhs = std::move(tmp).value()

#endif  // MEMPLAN_IR_STATUS_MACROS_H_
