"""Native backends for the LFS LPs, registered on import of :mod:`fsopt.lfs`.

HIGHSPY  calls HiGHS through highspy without cvxpy: the model of one representative point is
         passed once, and the β sweep of (9) only changes the bound of the row bᵀf ≥ ε, so each
         solve is a dual-simplex warm start from the previous basis.
TOPK     the closed form of (8): b ≥ 0, so an optimal f puts 1 on the α largest b_m.
Both are cross-checked against the cvxpy path in tests/test_lfs_lp.py.
"""
from __future__ import annotations

import numpy as np

from ..core import status as st
from ..core.solvers import NativeBackend, check_highs_options, register_backend

_LFS_LPS = ("lfs_epsilon_max", "lfs_epsilon_constraint")


class HighsDirect(NativeBackend):
    name, package = "HIGHSPY", "highspy"
    description = "LFS LPs (8)-(9) through highspy directly; the beta sweep warm-starts dual simplex"
    default_tol = 1e-7
    tol_meaning = "primal and dual feasibility of dual simplex (primal/dual_feasibility_tolerance)"

    def supports(self, subproblem):
        return subproblem.name in _LFS_LPS

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
        if h is None or version != subproblem.data_version or used != settings:
            h = highspy.Highs()
            for key, value in settings.items():
                if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
                    raise ValueError(f"HiGHS rejected option {key}={value!r}")
            h.passModel(_highs_lp(highspy, cost, rows, lo, hi))
            subproblem._highs = (h, subproblem.data_version, settings)
        else:
            h.changeRowsBounds(len(lo), np.arange(len(lo), dtype=np.int32),
                               np.asarray(lo, float), np.asarray(hi, float))
        h.run()
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            return {}, _HIGHS_STATUS.get(h.modelStatusToString(status), st.SOLVER_ERROR), None
        sol = h.getSolution()
        f = np.asarray(sol.col_value, dtype=float)
        solution = {"f": f}
        if len(lo) == 2:  # (9): row 0 = 1ᵀf, row 1 = bᵀf
            solution["nu"], solution["lam"] = float(sol.row_dual[0]), float(sol.row_dual[1])
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
    description = "closed form of LFS LP (8): 1 on the alpha largest b (b >= 0)"
    default_tol = None  # exact: nothing to refine
    tol_meaning = "none: the closed form is exact (tol is accepted and ignored)"

    def supports(self, subproblem):
        return subproblem.name == "lfs_epsilon_max"

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        b, alpha = subproblem.b, min(subproblem.alpha, subproblem.b.size)
        f = np.zeros(b.size)
        f[np.argpartition(b, b.size - alpha)[b.size - alpha:]] = 1.0
        return {"f": f}, "optimal", 0


for _backend in (HighsDirect(), TopK()):
    register_backend(_backend)
