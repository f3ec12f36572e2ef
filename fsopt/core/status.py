"""The closed set of solve statuses: cvxpy's names plus fsopt's own.

Every :class:`fsopt.subproblem.SolveRecord` and every row of ``fsopt bench`` carries one of these
strings and nothing else; details (a solver's message, a residual) go to separate fields.
"""
from __future__ import annotations

# cvxpy's statuses (cvxpy.settings), kept verbatim
OPTIMAL = "optimal"
OPTIMAL_INACCURATE = "optimal_inaccurate"
INFEASIBLE = "infeasible"
INFEASIBLE_INACCURATE = "infeasible_inaccurate"
UNBOUNDED = "unbounded"
UNBOUNDED_INACCURATE = "unbounded_inaccurate"
INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
USER_LIMIT = "user_limit"
SOLVER_ERROR = "solver_error"

# fsopt's own
REJECTED_CERTIFICATE = "rejected_certificate"  # solver claimed success; the NumPy certificate failed
TIMEOUT = "timeout"  # stopped by a wall-clock limit (fsopt bench)
SKIPPED = "skipped"  # not run: solver cannot solve the kind, not installed, excluded (reason kept apart)
ERROR = "error"  # an exception outside the solver (fsopt bench: the worker process failed)

STATUSES = frozenset({
    OPTIMAL, OPTIMAL_INACCURATE, INFEASIBLE, INFEASIBLE_INACCURATE, UNBOUNDED, UNBOUNDED_INACCURATE,
    INFEASIBLE_OR_UNBOUNDED, USER_LIMIT, SOLVER_ERROR, REJECTED_CERTIFICATE, TIMEOUT, SKIPPED, ERROR,
})
VERDICTS = frozenset({REJECTED_CERTIFICATE, TIMEOUT, SKIPPED, ERROR})  # fsopt's own verdicts, never a solver's word
SOLVER_STATUSES = STATUSES - VERDICTS  # what a solver may say of its own solve
SUCCESS = frozenset({OPTIMAL, OPTIMAL_INACCURATE})  # statuses that come with a solution to certify
NO_SOLUTION_CLAIMS = frozenset({INFEASIBLE, INFEASIBLE_INACCURATE, UNBOUNDED, UNBOUNDED_INACCURATE,
                                INFEASIBLE_OR_UNBOUNDED})  # a solver's word that no optimum exists
CLAIMS = SUCCESS | NO_SOLUTION_CLAIMS  # the statuses in which a solver asserts something checkable
FAILURES = frozenset({SOLVER_ERROR, ERROR})  # the backend failed: it raised, or returned no usable output
ALIASES = {"iteration_limit": USER_LIMIT}  # native backends' spelling of a closed-set status


def known_status(status) -> str | None:
    """``status`` (or its closed-set name, see ``ALIASES``) if it is one of the closed set, else None
    (also for a status that is not a string)."""
    if not isinstance(status, str):
        return None
    status = ALIASES.get(status, status)
    return status if status in STATUSES else None


def check_status(status: str) -> str:
    """``status`` (or its closed-set name, see ``ALIASES``) if it belongs to the closed set, else a
    ValueError naming it."""
    known = known_status(status)
    if known is None:
        raise ValueError(f"unknown solve status {status!r}; statuses are {sorted(STATUSES)}")
    return known
