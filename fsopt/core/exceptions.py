"""Errors and warnings raised by fsopt."""
import math
import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../fsopt/


def warn(message, category):
    """``warnings.warn`` attributed to the first caller outside fsopt (the user's line that called
    ``fit``, however deep inside fsopt the warning arose), so that the shown location and the
    filters by module are the caller's."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


class SolverFailed(RuntimeError):
    """No solve of a subproblem ended in a certified solution.

    With more than one attempt, the message lists every one: its solver (and stage), its status,
    and what the backend raised or returned, or its residual.

    Parameters
    ----------
    subproblem : str
        The subproblem's name.
    solver : str
        The last solver tried.
    status : str
        Its status (from :mod:`fsopt.core.status`).
    detail : str, default=""
        What else the message says (e.g. the solver's error).
    attempts : sequence of SolveRecord, default=()
        Every attempt made: solves, polishes and refinements, over the fallback list.
    residual : float, default=nan
        The last certificate residual (NaN when the solver returned no solution).

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
            msg += "; tried " + ", ".join(describe_attempt(a) for a in self.attempts)
        super().__init__(msg)


def describe_attempt(record) -> str:
    """One attempt in a message: ``SOLVER[/stage]: status`` and its error message or residual."""
    stage = "" if record.stage == "solve" else f"/{record.stage}"
    said = record.message or ("" if math.isnan(record.residual) else f"{record.residual:.2g}")
    return f"{record.solver}{stage}: {record.status}" + (f" ({said})" if said else "")


class SolverWarning(UserWarning):
    """A fit's answers came mostly from somewhere other than the solver it was asked to use: the
    native polish of rejected answers, or a fallback solver (the solver said "optimal" where the
    NumPy certificate did not hold).  The answers are certified; the solver's word was not.

    Examples
    --------
    Made an error, e.g. where a study must measure the named solver itself:

    >>> import warnings
    >>> from fsopt import SolverWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", SolverWarning)
    ...     try:
    ...         warnings.warn("3 of 10 solves were LBFGSB's own certified answers", SolverWarning)
    ...     except SolverWarning as exc:
    ...         print("raised:", exc)
    raised: 3 of 10 solves were LBFGSB's own certified answers
    """


class BackendFailureWarning(UserWarning):
    """A solve was answered, certified, after a backend failed: it raised, returned output that
    is not a solution of the subproblem (not a ``(solution, status, iterations)`` tuple, a missing
    or misshapen entry, a status outside :mod:`fsopt.core.status`, ...), reported an error, or
    returned non-finite values.  The message names each failed backend and what it did; the
    answer is the certified one of the solver named last.  Not a :class:`SolverWarning`: the
    result is usable, and a filter that makes SolverWarning an error does not stop it.

    Examples
    --------
    >>> import numpy as np, warnings
    >>> from fsopt import BackendFailureWarning, GarroteLogistic, NativeBackend, register_backend
    >>> class Broken(NativeBackend):
    ...     name = "BROKEN_EXAMPLE"
    ...     def supports(self, subproblem):
    ...         return True
    ...     def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
    ...         raise RuntimeError("no license")
    >>> _ = register_backend(Broken())
    >>> sub = GarroteLogistic(lam=1.0, Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     record = sub.solve("BROKEN_EXAMPLE", fallback=["LBFGSB"])
    >>> record.solver, record.certified
    ('LBFGSB', True)
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    garrote_logistic: BROKEN_EXAMPLE: solver_error (backend BROKEN_EXAMPLE: solve() raised RuntimeError: no license); answered by LBFGSB, certified
    """
