"""Native backends for box-bounded LPs such as LFS's, registered on import of :mod:`fsopt.lfs`.

Each takes any subproblem that declares the form it solves (never a subproblem by name):

HIGHSPY  ``lp_data() -> (cost, rows, row_lower, row_upper)``: min costᵀx over 0 ≤ x ≤ 1 with
         row_lower ≤ rows·x ≤ row_upper, through highspy without cvxpy.  The model is passed
         once per ``data_version``; a change of row bounds only (the β sweep of LFS (9)) is a
         dual-simplex warm start from the previous basis.  ``lp_dual_names`` names the row duals
         in the solution.
BOXLP    ``lp_data()`` as HIGHSPY with at most two rows, declared by the class attribute
         ``lp_rows`` (≤ 2): the exact dual method of :mod:`fsopt.lfs.box_lp`, O(M log M) per
         solve; only a change of the outer row's bounds (the β sweep of (9)) reuses the lines
         of the previous solves.  No tolerance: the answer is a vertex of the LP, certified by
         the subproblem's own primal-dual check like any other.
TOPK     ``top_k_data() -> (b, alpha)`` with b ≥ 0: max bᵀx over 0 ≤ x ≤ 1, 1 ≤ 1ᵀx ≤ α, whose
         closed form puts 1 on the α largest b_m (LFS (8)).
The solution's variable is ``lp_variable`` (default "x").  Both are cross-checked against the
cvxpy path in tests/test_lfs_lp.py.
"""
from __future__ import annotations

import numpy as np

from ..core import status as st
from ..core.solvers import NativeBackend, check_highs_options, quiet_highs
from .box_lp import MAX_NEWTON, Infeasible, TwoRowDual, solve_one_row


def _declares(subproblem, method):
    """True when the subproblem's class defines ``method`` (a static declaration: no data needed)."""
    return callable(getattr(type(subproblem), method, None))


class HighsDirect(NativeBackend):
    name, package = "HIGHSPY", "highspy"
    description = "box-bounded LPs declaring lp_data (LFS (8)-(9)) through highspy; bound changes warm-start"
    default_tol = 1e-7
    tol_meaning = "primal and dual feasibility of dual simplex (primal/dual_feasibility_tolerance)"
    status_map = {status: status for status in (st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.INFEASIBLE_OR_UNBOUNDED,
                                                st.USER_LIMIT, st.SOLVER_ERROR)}

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


class BoxDual(NativeBackend):
    name, package = "BOXLP", ""
    description = ("exact dual method for box LPs with at most two rows (lp_data, lp_rows <= 2; "
                   "LFS (8)-(9)); the beta sweep reuses earlier solves")
    default_tol = None  # exact: nothing to refine
    tol_meaning = "none: exact breakpoints of the dual (tol is accepted and ignored)"
    status_map = {status: status for status in (st.OPTIMAL, st.INFEASIBLE, st.USER_LIMIT)}

    def supports(self, subproblem):
        rows = getattr(type(subproblem), "lp_rows", None)
        return _declares(subproblem, "lp_data") and isinstance(rows, int) and 0 <= rows <= 2

    def refusal(self, subproblem):
        return "it solves box LPs that declare lp_data and at most two rows (lp_rows <= 2)"

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        model, inner, outer, lo, hi = _cached_model(subproblem)
        if model is not None:  # only the outer row's bounds may have changed: no lp_data()
            return self._two_rows(subproblem, model, inner, outer, lo, hi, max_iter)
        cost, rows, lo, hi = subproblem.lp_data()
        cost, rows = np.asarray(cost, dtype=float), np.atleast_2d(np.asarray(rows, dtype=float))
        lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        if rows.shape[0] > 2:
            raise ValueError(f"{subproblem.describe()} has {rows.shape[0]} rows; BOXLP takes at most 2")
        live = np.flatnonzero(np.isfinite(lo) | np.isfinite(hi))  # a row without bounds is no row
        try:
            if live.size == 2:
                ones = [r for r in range(2) if np.all(rows[r] == 1.0)]  # a cardinality row: inner
                inner = ones[0] if ones else 0
                model = TwoRowDual(cost, rows[inner], float(lo[inner]), float(hi[inner]), rows[1 - inner])
                subproblem._box_dual = (model, inner, _model_key(subproblem, inner, lo, hi))
                return self._two_rows(subproblem, model, inner, 1 - inner, lo, hi, max_iter)
            duals = np.zeros(rows.shape[0])
            if live.size == 0:
                x = (cost < 0).astype(float)
            else:
                (r,) = live
                x, duals[r] = solve_one_row(cost, rows[r], lo[r], hi[r])
        except Infeasible:
            return {}, st.INFEASIBLE, 1
        return _solution(subproblem, x, duals), st.OPTIMAL, 1

    @staticmethod
    def _two_rows(subproblem, model, inner, outer, lo, hi, max_iter):
        before = model.evaluations
        duals = np.zeros(2)
        try:
            x, duals[inner], duals[outer], converged = model.solve(
                float(lo[outer]), float(hi[outer]), MAX_NEWTON if max_iter is None else int(max_iter))
        except Infeasible:
            return {}, st.INFEASIBLE, model.evaluations - before
        if not converged:
            return {}, st.USER_LIMIT, model.evaluations - before
        return _solution(subproblem, x, duals), st.OPTIMAL, model.evaluations - before


def _solution(subproblem, x, duals):
    solution = {getattr(subproblem, "lp_variable", "x"): x}
    solution.update(zip(getattr(subproblem, "lp_dual_names", ()), map(float, duals)))
    return solution


def _model_key(subproblem, inner, lo, hi):
    """What a kept model of two rows depends on besides the outer row's bounds: the data
    version (None: no caching) and the inner row's bounds."""
    version = getattr(subproblem, "data_version", None)
    return None if version is None else (version, float(lo[inner]), float(hi[inner]))


def _cached_model(subproblem):
    """(model, inner, outer, lo, hi) of the two-row model kept on ``subproblem`` when it still
    applies (same data version and inner bounds; the row bounds from ``lp_row_bounds()``,
    which a subproblem may declare to spare building ``lp_data``), else Nones."""
    kept = getattr(subproblem, "_box_dual", None)
    bounds = getattr(subproblem, "lp_row_bounds", None)
    if kept is None or kept[2] is None or not callable(bounds):
        return None, None, None, None, None
    model, inner, key = kept
    lo, hi = bounds()
    if key != _model_key(subproblem, inner, lo, hi):
        return None, None, None, None, None
    return model, inner, 1 - inner, lo, hi


class TopK(NativeBackend):
    name, package = "TOPK", ""
    description = "closed form of max b'x, 0 <= x <= 1, 1 <= sum x <= alpha (top_k_data; LFS (8))"
    default_tol = None  # exact: nothing to refine
    tol_meaning = "none: the closed form is exact (tol is accepted and ignored)"
    status_map = {st.OPTIMAL: st.OPTIMAL}

    def supports(self, subproblem):
        return _declares(subproblem, "top_k_data")

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        b, alpha = subproblem.top_k_data()
        alpha = min(int(alpha), b.size)
        f = np.zeros(b.size)
        f[np.argpartition(b, b.size - alpha)[b.size - alpha:]] = 1.0
        return {getattr(subproblem, "lp_variable", "x"): f}, "optimal", 0
