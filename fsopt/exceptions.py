"""Errors raised by fsopt."""


class SolverFailed(RuntimeError):
    """A subproblem solve did not end in a usable optimal solution.

    Carries the subproblem, the solver and the status the solver reported, and the
    attempts made before giving up (one per solver of the fallback list).
    """

    def __init__(self, subproblem, solver, status, detail="", attempts=()):
        self.subproblem = subproblem
        self.solver = solver
        self.status = status
        self.attempts = list(attempts)
        msg = f"{subproblem}: solver {solver} ended with status {status!r}"
        if detail:
            msg += f" ({detail})"
        if len(self.attempts) > 1:
            tried = ", ".join(f"{a.solver}: {a.status}" for a in self.attempts)
            msg += f"; tried {tried}"
        super().__init__(msg)
