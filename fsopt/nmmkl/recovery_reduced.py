"""Native backend "MKLLP" for NMMKL's recovery LP (15): the LP reduced by its structure.

Corollary 2 fixes p on A (p = 1) and C (p = 0), and each row of (16) needs only its cheapest
allowed slack on either side, so (15) has the same optimum and row multipliers as an LP in
(p_B, θ, σ⁺, σ⁻): N + 1 rows, |B| + 1 + 2N columns, independent of d
(:meth:`~fsopt.nmmkl.recovery.PrimalRecoveryLP.reduced_lp` builds it and maps its solution back).
That LP is solved exactly by HiGHS' dual simplex (through SciPy, no model compilation); the vertex
and the row multipliers u are expanded to (p, ν, δ, θ, ξ⁺, ξ⁻) and judged by the full LP's NumPy
primal–dual certificate (:meth:`~fsopt.nmmkl.recovery.PrimalRecoveryLP.certificate`), like any
solver's answer.  It takes a subproblem that declares ``reduced_lp()``.
"""
from __future__ import annotations

import numpy as np

from ..core import status as st
from ..core.solvers import NativeBackend

_LINPROG_STATUS = {1: st.USER_LIMIT, 2: st.INFEASIBLE, 3: st.UNBOUNDED, 4: st.SOLVER_ERROR}


class ReducedRecoveryLP(NativeBackend):
    name, package = "MKLLP", "scipy"
    description = ("NMMKL's recovery LP (15) reduced to its free part (p on the tie block B, theta, one "
                   "slack pair per row: |B| + 1 + 2N columns), dual simplex (HiGHS via SciPy)")
    default_tol = 1e-9
    status_map = {status: status for status in (st.OPTIMAL, *_LINPROG_STATUS.values())}
    tol_meaning = ("primal and dual feasibility of HiGHS' dual simplex on the reduced LP "
                   "(primal/dual_feasibility_tolerance, at least 1e-10)")

    def supports(self, subproblem):
        return callable(getattr(type(subproblem), "reduced_lp", None))

    def refusal(self, subproblem):
        return "it declares no reduced_lp()"

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        from scipy.optimize import linprog

        tol = max(self.default_tol if tol is None else float(tol), 1e-10)  # HiGHS' smallest
        cost, A_eq, b_eq, bounds, expand = subproblem.reduced_lp()
        options = {"primal_feasibility_tolerance": tol, "dual_feasibility_tolerance": tol, "disp": bool(verbose),
                   "presolve": False}
        if max_iter is not None:
            options["maxiter"] = int(max_iter)
        res = linprog(cost, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs-ds", options=options)
        if res.status != 0:
            return {}, _LINPROG_STATUS.get(res.status, st.SOLVER_ERROR), getattr(res, "nit", None)
        return expand(res.x, res.eqlin.marginals), st.OPTIMAL, int(res.nit)

