"""Errors raised by fsopt."""
import math


class SolverFailed(RuntimeError):
    """No solve of a subproblem ended in a certified solution.

    Carries the subproblem, the last solver tried, its status (from :mod:`fsopt.core.status`) and
    certificate residual (NaN when the solver returned no solution), and every attempt made
    (solves, polishes and refinements, over the fallback list).

    Examples
    --------
    >>> from fsopt import SolverFailed
    >>> err = SolverFailed("garrote_logistic", "SCS", "optimal_inaccurate", residual=0.03)
    >>> print(err)
    garrote_logistic: solver SCS ended with status 'optimal_inaccurate', certificate residual 0.03
    >>> err.solver, err.status
    ('SCS', 'optimal_inaccurate')
    """

    def __init__(self, subproblem, solver, status, detail="", attempts=(), residual=math.nan):
        self.subproblem = subproblem
        self.solver = solver
        self.status = status
        self.residual = residual
        self.attempts = list(attempts)
        msg = f"{subproblem}: solver {solver} ended with status {status!r}"
        if not math.isnan(residual):
            msg += f", certificate residual {residual:.3g}"
        if detail:
            msg += f" ({detail})"
        if len(self.attempts) > 1:
            tried = ", ".join(f"{a.solver}{'' if a.stage == 'solve' else '/' + a.stage}: {a.status}"
                              + ("" if math.isnan(a.residual) else f" ({a.residual:.2g})")
                              for a in self.attempts)
            msg += f"; tried {tried}"
        super().__init__(msg)


class SolverWarning(UserWarning):
    """A fit's answers came mostly from somewhere other than the solver it was asked to use: the
    native polish of rejected answers, or a fallback solver (the solver said "optimal" where the
    NumPy certificate did not hold).  The answers are certified; the solver's word was not."""
