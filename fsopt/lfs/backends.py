"""Native backends for box-bounded LPs such as LFS's, registered on import of :mod:`fsopt.lfs`.

Each takes any subproblem that declares the form it solves (never a subproblem by name):

HIGHSPY  ``lp_data() -> (cost, rows, row_lower, row_upper)``: min costᵀx over 0 ≤ x ≤ 1 with
         row_lower ≤ rows·x ≤ row_upper, through highspy without cvxpy.  The model is passed
         once per ``data_version``; a change of row bounds only (the β sweep of LFS (9)) is a
         dual-simplex warm start from the previous basis.  ``lp_dual_names`` names the row duals
         in the solution.
TOPK     ``top_k_data() -> (b, alpha)`` with b ≥ 0: max bᵀx over 0 ≤ x ≤ 1, 1 ≤ 1ᵀx ≤ α, whose
         closed form puts 1 on the α largest b_m (LFS (8)).
The solution's variable is ``lp_variable`` (default "x").  Both are cross-checked against the
cvxpy path in tests/test_lfs_lp.py.
"""
from __future__ import annotations

import numpy as np

from ..core import status as st
from ..core.solvers import NativeBackend, check_highs_options, quiet_highs


def _declares(subproblem, method):
    """True when the subproblem's class defines ``method`` (a static declaration: no data needed)."""
    return callable(getattr(type(subproblem), method, None))


class HighsDirect(NativeBackend):
    name, package = "HIGHSPY", "highspy"
    description = "box-bounded LPs declaring lp_data (LFS (8)-(9)) through highspy; bound changes warm-start"
    default_tol = 1e-7
    tol_meaning = "primal and dual feasibility of dual simplex (primal/dual_feasibility_tolerance)"

    def supports(self, subproblem):
        return _declares(subproblem, "lp_data")

    def check_options(self, options, what=""):
        """The common options plus any HiGHS option, by name."""
        super().check_options({k: v for k, v in options.items() if k in {"tol", "max_iter", "verbose"}})
        check_highs_options({k: v for k, v in options.items() if k not in {"tol", "max_iter", "verbose"}},
                            f"solver {self.name}{what}")

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False, **options):
        import highspy

        settings = dict(options, output_flag=bool(verbose))
        if tol is not None:
            settings.update(primal_feasibility_tolerance=float(tol), dual_feasibility_tolerance=float(tol))
        if max_iter is not None:
            settings["simplex_iteration_limit"] = int(max_iter)
        h, version, used = getattr(subproblem, "_highs", (None, None, None))
        cost, rows, lo, hi = subproblem.lp_data()
        current = getattr(subproblem, "data_version", None)  # None: no cache, a new model each solve
        if h is None or current is None or version != current or used != settings:
            h = quiet_highs()
            for key, value in settings.items():
                if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
                    raise ValueError(f"HiGHS rejected option {key}={value!r}")
            h.passModel(_highs_lp(highspy, cost, rows, lo, hi))
            subproblem._highs = (h, current, settings)
        else:
            h.changeRowsBounds(len(lo), np.arange(len(lo), dtype=np.int32),
                               np.asarray(lo, float), np.asarray(hi, float))
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            return {}, _HIGHS_STATUS.get(h.modelStatusToString(status), st.SOLVER_ERROR), None
        sol = h.getSolution()
        solution = {getattr(subproblem, "lp_variable", "x"): np.asarray(sol.col_value, dtype=float)}
        for name, value in zip(getattr(subproblem, "lp_dual_names", ()), sol.row_dual):
            solution[name] = float(value)
        return solution, "optimal", int(h.getInfo().simplex_iteration_count)


_HIGHS_STATUS = {"Infeasible": st.INFEASIBLE, "Unbounded": st.UNBOUNDED,
                 "Primal infeasible or unbounded": st.INFEASIBLE_OR_UNBOUNDED,
                 "Time limit reached": st.USER_LIMIT, "Iteration limit reached": st.USER_LIMIT}


def _highs_lp(highspy, cost, rows, lo, hi):
    lp = highspy.HighsLp()
    n_row, n_col = rows.shape
    lp.num_col_, lp.num_row_ = n_col, n_row
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_, lp.col_upper_ = np.zeros(n_col), np.ones(n_col)
    lp.row_lower_, lp.row_upper_ = np.asarray(lo, float), np.asarray(hi, float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.arange(0, (n_row + 1) * n_col, n_col, dtype=np.int32)
    lp.a_matrix_.index_ = np.tile(np.arange(n_col, dtype=np.int32), n_row)
    lp.a_matrix_.value_ = np.ascontiguousarray(rows, dtype=float).ravel()
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n_col, n_row
    return lp


class TopK(NativeBackend):
    name, package = "TOPK", ""
    description = "closed form of max b'x, 0 <= x <= 1, 1 <= sum x <= alpha (top_k_data; LFS (8))"
    default_tol = None  # exact: nothing to refine
    tol_meaning = "none: the closed form is exact (tol is accepted and ignored)"

    def supports(self, subproblem):
        return _declares(subproblem, "top_k_data")

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        b, alpha = subproblem.top_k_data()
        alpha = min(int(alpha), b.size)
        f = np.zeros(b.size)
        f[np.argpartition(b, b.size - alpha)[b.size - alpha:]] = 1.0
        return {getattr(subproblem, "lp_variable", "x"): f}, "optimal", 0
