"""The solvers fsopt reaches through cvxpy: their cones, status maps and what ``tol`` means.

Each class declares, for one of cvxpy's solver names: the cone classes it takes (``LP``, ``SOC``,
``EXP``: LFS's LPs (8)-(9) and NMMKL's LP (15); NMMKL's QCQP (8); LOGO's garrote (7)), the
python package that must import, the cvxpy options fsopt's common ``tol`` and ``max_iter`` become
(``Backend.translate``) and ``status_map``: cvxpy's statuses this solver's interface can return,
each mapped to fsopt's closed set (:mod:`fsopt.core.status`).  A status outside the map is a
failed solve naming it (:meth:`fsopt.core.subproblem.Subproblem.attempt`), never a silent claim.
docs/solvers.md has the table (cones, ``tol``, licence) and the solvers that cannot run here.
"""
from __future__ import annotations

import functools

from . import status as st
from .solvers import (EXP, LP, SOC, Backend, _importable, check_highs_options, highs_option_names,
                      is_highs_option, silence_highs_banner)


def _same(*statuses) -> dict:
    """A status map that keeps each of cvxpy's ``statuses`` under its own name (fsopt's closed
    set holds cvxpy's nine statuses verbatim)."""
    return {status: st.check_status(status) for status in statuses}


class CvxpyBackend(Backend):
    """A solver reached through ``cvxpy.Problem.solve(solver=...)``; options declared by name.

    ``tol_options`` / ``max_iter_options`` receive the common ``tol`` / ``max_iter`` (inside the
    dict option ``nested`` when the solver takes its parameters in one, e.g. ``mosek_params``);
    ``pins_default_tol``: a solve without ``tol`` passes ``default_tol`` (for a solver whose own
    defaults differ among its ``tol_options``, or whose options persist between cvxpy calls).
    """

    tol_options: tuple = ()  # keyword arguments that receive the common ``tol``
    max_iter_options: tuple = ()  # ... and the common ``max_iter``
    nested: str = ""  # the dict option holding them (empty: top-level keywords)
    pins_default_tol = False
    solver_options: frozenset = frozenset()  # what cvxpy passes to the solver for this backend
    # keywords of cvxpy.Problem.solve itself (use_quad_obj: canonicalization, conic interfaces)
    cvxpy_options = frozenset({"warm_start", "ignore_dpp", "enforce_dpp", "canon_backend",
                               "use_quad_obj"})
    status_map: dict = {}  # cvxpy status -> fsopt status, the statuses this solver's interface returns
    licence: str = ""

    def installed(self) -> bool:
        return self.name in _cvxpy_installed_solvers()

    def accepted_options(self):
        if self.nested:
            return self.cvxpy_options | self.solver_options | {self.nested}
        return self.cvxpy_options | self.solver_options | frozenset(self.tol_options) \
            | frozenset(self.max_iter_options)

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        tol = self.default_tol if tol is None and self.pins_default_tol else tol
        params = dict.fromkeys(self.tol_options, tol) if tol is not None else {}
        params.update(dict.fromkeys(self.max_iter_options, int(max_iter)) if max_iter is not None else {})
        opts = dict(extra, verbose=bool(verbose))
        if not self.nested:
            return dict(opts, **params)
        params.update(opts.pop(self.nested, None) or {})
        if params:
            opts[self.nested] = params
        return opts


class Clarabel(CvxpyBackend):
    name, package, licence = "CLARABEL", "clarabel", "Apache-2.0"
    cones = frozenset({LP, SOC, EXP})
    description = "interior point (Rust), LP/SOC/EXP/PSD"
    tol_options = ("tol_gap_abs", "tol_gap_rel", "tol_feas")
    max_iter_options = ("max_iter",)
    tol_meaning = "absolute and relative duality gap and feasibility (tol_gap_abs, tol_gap_rel, tol_feas)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.INFEASIBLE_INACCURATE,
                       st.UNBOUNDED, st.UNBOUNDED_INACCURATE, st.USER_LIMIT, st.SOLVER_ERROR)

    def accepted_options(self):
        """cvxpy sets every option as an attribute of ``clarabel.DefaultSettings``."""
        import clarabel

        defaults = clarabel.DefaultSettings()
        settings = {a for a in dir(defaults) if not a.startswith("_") and not callable(getattr(defaults, a))}
        return super().accepted_options() | settings | {"accept_unknown"}


class ECOS(CvxpyBackend):
    name, package, licence = "ECOS", "ecos", "GPL-3.0"
    cones = frozenset({LP, SOC, EXP})
    description = "interior point (C), LP/SOC/EXP"
    tol_options = ("abstol", "reltol", "feastol")
    tol_meaning = "absolute and relative duality gap and feasibility (abstol, reltol, feastol)"
    max_iter_options = ("max_iters",)
    solver_options = frozenset({"feastol_inacc", "abstol_inacc", "reltol_inacc", "nitref"})
    status_map = Clarabel.status_map


class SCS(CvxpyBackend):
    name, package, licence = "SCS", "scs", "MIT"
    cones = frozenset({LP, SOC, EXP})
    description = "first-order splitting (ADMM), LP/SOC/EXP/PSD; low accuracy by default"
    tol_options = ("eps_abs", "eps_rel")
    tol_meaning = "absolute and relative residuals of the ADMM stopping rule (eps_abs, eps_rel)"
    max_iter_options = ("max_iters",)
    solver_options = frozenset({
        "eps", "eps_infeas", "normalize", "scale", "adaptive_scale", "rho_x", "alpha",
        "time_limit_secs", "acceleration_lookback", "acceleration_interval", "write_data_filename",
        "log_csv_filename", "use_indirect", "linear_solver", "gpu"})
    default_tol = 1e-5
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.INFEASIBLE_INACCURATE,
                       st.UNBOUNDED, st.UNBOUNDED_INACCURATE, st.SOLVER_ERROR)


class HiGHS(CvxpyBackend):
    name, package, licence = "HIGHS", "highspy", "MIT"
    cones = frozenset({LP})
    description = "simplex / interior point LP (C++)"
    tol_options = ("primal_feasibility_tolerance", "dual_feasibility_tolerance",
                   "ipm_optimality_tolerance")
    max_iter_options = ("simplex_iteration_limit", "ipm_iteration_limit")
    default_tol = 1e-7
    tol_meaning = ("primal and dual feasibility, and the interior-point optimality gap "
                   "(primal_feasibility_tolerance, dual_feasibility_tolerance, ipm_optimality_tolerance)")
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.INFEASIBLE_OR_UNBOUNDED,
                       st.USER_LIMIT, st.SOLVER_ERROR)

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        silence_highs_banner()  # cvxpy creates its highspy.Highs() before it sets output_flag
        return super().translate(tol=tol, max_iter=max_iter, verbose=verbose, **extra)

    def accepted_options(self):
        return super().accepted_options() | highs_option_names() | {"highs_options", "write_model_file"}

    def check_options(self, options, what=""):
        top = {k: v for k, v in options.items() if not is_highs_option(k)}  # advanced HiGHS names
        super().check_options(top, what)
        check_highs_options(options.get("highs_options") or {}, f"highs_options of {self.name}{what}")


class SciPy(CvxpyBackend):
    name, package, licence = "SCIPY", "scipy", "BSD-3-Clause (HiGHS inside: MIT)"
    cones = frozenset({LP})
    description = "scipy.optimize.linprog (HiGHS dual simplex / interior point)"
    nested, default_tol = "scipy_options", 1e-7
    tol_options = ("primal_feasibility_tolerance", "dual_feasibility_tolerance")
    max_iter_options = ("maxiter",)
    tol_meaning = ("primal and dual feasibility of linprog's HiGHS methods (scipy_options "
                   "primal_feasibility_tolerance, dual_feasibility_tolerance)")
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class GLPK(CvxpyBackend):
    name, package, licence = "GLPK", "cvxopt", "GPL-3.0 (GLPK and CVXOPT)"
    cones = frozenset({LP})
    description = "GNU Linear Programming Kit simplex (through CVXOPT)"
    nested, default_tol, pins_default_tol = "glpk", 1e-7, True  # cvxopt keeps options between calls
    tol_options = ("tol_bnd", "tol_dj")
    max_iter_options = ("it_lim",)
    tol_meaning = ("primal and dual feasibility of the simplex (glpk tol_bnd, tol_dj; passed "
                   "on every solve: cvxopt keeps its options between calls)")
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class CVXOPT(CvxpyBackend):
    name, package, licence = "CVXOPT", "cvxopt", "GPL-3.0"
    cones = frozenset({LP, SOC})
    description = "primal-dual interior point (Python/C), LP/SOC/PSD"
    tol_options = ("abstol", "reltol", "feastol")
    max_iter_options = ("max_iters",)
    default_tol, pins_default_tol = 1e-7, True  # its own reltol is 1e-6; options persist in cvxopt
    solver_options = frozenset({"kktsolver", "refinement"})
    tol_meaning = ("absolute and relative duality gap and feasibility (abstol, reltol, feastol; "
                   "passed on every solve: cvxopt keeps its options between calls)")
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class CBC(CvxpyBackend):
    name, package, licence = "CBC", "cylp", "EPL-2.0 (COIN-OR CLP/CBC, cylp)"
    cones = frozenset({LP})
    description = "COIN-OR CLP simplex for LPs (CBC branch and bound for integers), through cylp"
    tol_options = ("primalTolerance", "dualTolerance")
    max_iter_options = ("maxNumIteration",)
    default_tol = 1e-7
    solver_options = frozenset({"presolve", "automaticScaling", "scaling", "infeasibilityCost"})
    tol_meaning = "primal and dual feasibility of CLP's simplex (primalTolerance, dualTolerance)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class SCIP(CvxpyBackend):
    name, package, licence = "SCIP", "pyscipopt", "Apache-2.0 (SCIP), MIT (PySCIPOpt)"
    cones = frozenset({LP, SOC})
    description = "SCIP branch and bound / spatial branching with SoPlex LPs"
    nested, default_tol, pins_default_tol = "scip_params", 1e-6, True  # its dualfeastol is 1e-7
    tol_options = ("numerics/feastol", "numerics/dualfeastol")
    tol_range = (1e-17, 1e-3)  # SCIP's range of both parameters (above it: "Invalid value")
    max_iter_options = ("lp/iterlim",)
    tol_meaning = "primal and dual feasibility (scip_params numerics/feastol, numerics/dualfeastol)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED,
                       st.INFEASIBLE_OR_UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


class _OrTools(CvxpyBackend):
    """GLOP and PDLP take their parameters as one protocol buffer (``parameters_proto``)."""

    package, licence = "ortools", "Apache-2.0 (OR-Tools)"
    cones = frozenset({LP})
    solver_options = frozenset({"parameters_proto", "time_limit_sec"})

    def accepted_options(self):
        return self.cvxpy_options | self.solver_options

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        opts = dict(extra, verbose=bool(verbose))
        if tol is None and max_iter is None:
            return opts
        proto = self._parameters()
        if "parameters_proto" in opts:
            proto.MergeFrom(opts["parameters_proto"])
        self._set(proto, tol, max_iter)
        opts["parameters_proto"] = proto
        return opts


class GLOP(_OrTools):
    name = "GLOP"
    description = "Google's primal / dual simplex (OR-Tools)"
    default_tol = 1e-8
    tol_meaning = ("primal and dual feasibility of the simplex (GlopParameters "
                   "primal_feasibility_tolerance, dual_feasibility_tolerance)")
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)

    def _parameters(self):
        from ortools.glop import parameters_pb2

        return parameters_pb2.GlopParameters()

    def _set(self, proto, tol, max_iter):
        if tol is not None:
            proto.primal_feasibility_tolerance = proto.dual_feasibility_tolerance = tol
        if max_iter is not None:
            proto.max_number_of_iterations = max_iter


class PDLP(_OrTools):
    name = "PDLP"
    description = "primal-dual hybrid gradient for LPs, first-order (OR-Tools)"
    default_tol = 1e-6
    tol_meaning = ("absolute and relative optimality of the restarted PDHG (termination_criteria "
                   "simple_optimality_criteria eps_optimal_absolute, eps_optimal_relative)")
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.INFEASIBLE_OR_UNBOUNDED,
                       st.USER_LIMIT, st.SOLVER_ERROR)

    def _parameters(self):
        from ortools.pdlp import solvers_pb2

        return solvers_pb2.PrimalDualHybridGradientParams()

    def _set(self, proto, tol, max_iter):
        criteria = proto.termination_criteria
        if tol is not None:
            criteria.simple_optimality_criteria.eps_optimal_absolute = tol
            criteria.simple_optimality_criteria.eps_optimal_relative = tol
        if max_iter is not None:
            criteria.iteration_limit = max_iter


class QOCO(CvxpyBackend):
    name, package, licence = "QOCO", "qoco", "BSD-3-Clause"
    cones = frozenset({LP, SOC})
    description = "primal-dual interior point for second-order cone programs (C)"
    tol_options = ("abstol", "reltol")
    max_iter_options = ("max_iters",)
    default_tol = 1e-7
    solver_options = frozenset({"abstol_inacc", "reltol_inacc", "bisect_iters", "ruiz_iters",
                                "iter_ref_iters", "kkt_static_reg", "kkt_dynamic_reg", "algebra"})
    tol_meaning = "absolute and relative duality gap and feasibility (abstol, reltol)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.USER_LIMIT, st.SOLVER_ERROR)


class OSQP(CvxpyBackend):
    name, package, licence = "OSQP", "osqp", "Apache-2.0"
    cones = frozenset({LP})  # a QP solver: linear constraints (fsopt's SOC kinds have quadratic ones)
    description = "operator-splitting QP solver (ADMM), LP/QP; low accuracy by default"
    tol_options = ("eps_abs", "eps_rel")
    max_iter_options = ("max_iter",)
    default_tol = 1e-5  # cvxpy's default, not OSQP's own 1e-3
    solver_options = frozenset({"polish", "polishing", "eps_prim_inf", "eps_dual_inf", "rho", "sigma",
                                "alpha", "scaling", "adaptive_rho", "time_limit"})
    tol_meaning = "absolute and relative primal and dual residuals of the ADMM stopping rule (eps_abs, eps_rel)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.INFEASIBLE_INACCURATE,
                       st.UNBOUNDED, st.UNBOUNDED_INACCURATE, st.USER_LIMIT, st.SOLVER_ERROR)


class PIQP(CvxpyBackend):
    name, package, licence = "PIQP", "piqp", "BSD-2-Clause"
    cones = frozenset({LP})
    description = "proximal interior point QP solver (C++), LP/QP"
    tol_options = ("eps_abs", "eps_rel")
    max_iter_options = ("max_iter",)
    default_tol, pins_default_tol = 1e-8, True  # its own eps_rel is 1e-9
    solver_options = frozenset({"backend", "eps_duality_gap_abs", "eps_duality_gap_rel", "check_duality_gap",
                                "eps_primal_inf", "eps_dual_inf"})
    tol_meaning = "absolute and relative primal and dual residuals of the interior point (eps_abs, eps_rel)"
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.USER_LIMIT)


class PROXQP(CvxpyBackend):
    name, package, licence = "PROXQP", "proxsuite", "BSD-2-Clause"
    cones = frozenset({LP})
    description = "proximal augmented Lagrangian QP solver (ProxSuite, C++), LP/QP"
    tol_options = ("eps_abs",)
    max_iter_options = ("max_iter",)
    default_tol = 1e-8  # cvxpy's default (eps_rel 0)
    solver_options = frozenset({"backend", "eps_rel", "rho", "mu_eq", "mu_in"})
    tol_meaning = "absolute primal and dual residual of the augmented Lagrangian (eps_abs; eps_rel stays 0)"
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.USER_LIMIT)


class DAQP(CvxpyBackend):
    name, package, licence = "DAQP", "daqp", "MIT"
    cones = frozenset({LP})
    description = "dual active-set QP solver (C), dense, LP/QP"
    tol_options = ("primal_tol",)
    max_iter_options = ("iter_limit",)
    default_tol = 1e-6
    solver_options = frozenset({"dual_tol", "zero_tol", "pivot_tol", "progress_tol", "cycle_tol",
                                "fval_bound", "eps_prox", "eta_prox"})
    tol_meaning = "primal feasibility of the active set (primal_tol; dual_tol stays 1e-12)"
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


class QPALM(CvxpyBackend):
    name, package, licence = "QPALM", "qpalm", "LGPL-3.0"
    cones = frozenset({LP})
    description = "proximal augmented Lagrangian QP solver (C), LP/QP"
    tol_options = ("eps_abs", "eps_rel")
    max_iter_options = ("max_iter",)
    default_tol, pins_default_tol = 1e-8, True  # cvxpy's defaults: eps_abs 1e-8, eps_rel 1e-9
    solver_options = frozenset({"eps_abs_in", "eps_rel_in", "eps_prim_inf", "eps_dual_inf", "rho",
                                "scaling", "time_limit"})
    tol_meaning = "absolute and relative primal and dual residuals of the augmented Lagrangian (eps_abs, eps_rel)"
    status_map = _same(st.OPTIMAL, st.INFEASIBLE, st.UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


class SDPA(CvxpyBackend):
    name, package, licence = "SDPA", "sdpap", "GPL-2.0 (SDPA), GPL-3.0 (sdpa-python)"
    cones = frozenset({LP})
    description = "primal-dual interior point for semidefinite programs (C++), LP/PSD"
    tol_options = ("epsilonStar", "epsilonDash")
    max_iter_options = ("maxIteration",)
    default_tol = 1e-7
    solver_options = frozenset({"lambdaStar", "omegaStar", "lowerBound", "upperBound", "betaStar",
                                "betaBar", "gammaStar", "precision", "print"})
    tol_meaning = "relative duality gap and feasibility of the interior point (epsilonStar, epsilonDash)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class Moreau(CvxpyBackend):
    name, package, licence = "MOREAU", "moreau", "Apache-2.0"
    cones = frozenset({LP, SOC, EXP})
    description = "interior point (Rust, optional GPU), LP/SOC/EXP/POW/PSD"
    nested = "ipm_settings"
    tol_options = ("tol_gap_abs", "tol_gap_rel", "tol_feas")
    solver_options = frozenset({"max_iter", "time_limit", "device", "solver", "accept_unknown"})
    tol_meaning = ("absolute and relative duality gap and feasibility (ipm_settings tol_gap_abs, "
                   "tol_gap_rel, tol_feas)")
    status_map = Clarabel.status_map

    def translate(self, tol=None, max_iter=None, verbose=False, **extra) -> dict:
        """``max_iter`` is a top-level setting, the tolerances go in ``ipm_settings``."""
        opts = super().translate(tol=tol, verbose=verbose, **extra)
        return opts if max_iter is None else dict(opts, max_iter=int(max_iter))


class MPAX(CvxpyBackend):
    name, package, licence = "MPAX", "mpax", "MIT (JAX: Apache-2.0)"
    cones = frozenset({LP})
    description = "restarted PDHG for LPs/QPs in JAX, first-order (each solve is JIT-compiled)"
    tol_options = ("eps_abs", "eps_rel")
    max_iter_options = ("iteration_limit",)
    default_tol = 1e-4
    slow_reason = ("each solve compiles its PDHG with JAX's jit: 20-35 s per LP of the quick study "
                   "(sizes 50 and 500 of lfs_synthetic), against 0.01-0.8 s for the other LP solvers")
    solver_options = frozenset({"algorithm", "eps_primal_infeasible", "eps_dual_infeasible",
                                "feasibility_polishing", "eps_feas_polish", "optimality_norm"})
    tol_meaning = "absolute and relative KKT error of the restarted PDHG (eps_abs, eps_rel)"
    status_map = _same(st.OPTIMAL, st.INFEASIBLE_OR_UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


class _Licensed(CvxpyBackend):
    """A commercial solver: available when its licence lets it solve a one-variable LP.  Those
    whose PyPI package carries a free licence limited in size give a ``solver_error`` naming the
    limit on a larger instance."""

    def unavailable_reason(self):
        reason = super().unavailable_reason()
        if reason or not self.installed():
            return reason or "not listed by cvxpy.installed_solvers()"
        return _licence_problem(self.name)


class MOSEK(_Licensed):
    name, package, licence = "MOSEK", "mosek", "commercial (needs a licence file; free for academics)"
    cones = frozenset({LP, SOC, EXP})
    description = "commercial interior point; needs a license"
    nested = "mosek_params"
    tol_options = ("MSK_DPAR_INTPNT_CO_TOL_REL_GAP", "MSK_DPAR_INTPNT_CO_TOL_PFEAS",
                   "MSK_DPAR_INTPNT_CO_TOL_DFEAS")
    max_iter_options = ("MSK_IPAR_INTPNT_MAX_ITERATIONS",)
    solver_options = frozenset({"save_file", "bfs", "accept_unknown", "eps"})
    tol_meaning = ("relative duality gap and primal and dual feasibility of the conic interior point "
                   "(MSK_DPAR_INTPNT_CO_TOL_REL_GAP, _PFEAS, _DFEAS)")
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class GUROBI(_Licensed):
    name, package = "GUROBI", "gurobipy"
    licence = "commercial; the PyPI package's free licence: 2000 variables and 2000 constraints"
    cones = frozenset({LP, SOC})
    description = "commercial simplex / barrier (size-limited free licence from PyPI)"
    tol_options = ("FeasibilityTol", "OptimalityTol")
    max_iter_options = ("BarIterLimit",)
    default_tol = 1e-6
    solver_options = frozenset({"Method", "BarConvTol", "BarQCPConvTol", "Threads", "TimeLimit", "env"})
    tol_meaning = "primal and dual feasibility (FeasibilityTol, OptimalityTol)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED,
                       st.INFEASIBLE_OR_UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


class CPLEX(_Licensed):
    name, package = "CPLEX", "cplex"
    licence = "commercial; the PyPI package (Community Edition): 1000 variables and 1000 constraints"
    cones = frozenset({LP, SOC})
    description = "commercial simplex / barrier (size-limited Community Edition from PyPI)"
    nested, default_tol, pins_default_tol = "cplex_params", 1e-6, True  # its barrier tol is 1e-7
    tol_options = ("simplex.tolerances.feasibility", "simplex.tolerances.optimality",
                   "barrier.qcpconvergetol")
    max_iter_options = ("barrier.limits.iteration",)
    solver_options = frozenset({"cplex_filename", "reoptimize"})
    tol_meaning = ("primal and dual feasibility of the simplex and the barrier's QCP gap (cplex_params "
                   "simplex.tolerances.feasibility, simplex.tolerances.optimality, barrier.qcpconvergetol)")
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED,
                       st.INFEASIBLE_OR_UNBOUNDED, st.SOLVER_ERROR)


class XPRESS(_Licensed):
    name, package = "XPRESS", "xpress"
    licence = "commercial; the PyPI package's community licence: 5000 rows and columns"
    cones = frozenset({LP, SOC})
    description = "commercial simplex / barrier (size-limited community licence from PyPI)"
    tol_options = ("feastol", "optimalitytol")
    max_iter_options = ("bariterlimit",)
    default_tol, pins_default_tol = 1e-6, True  # cvxpy sets feastol 1e-9, XPRESS's optimalitytol is 1e-6
    solver_options = frozenset({"write_mps", "save_iis", "maxtime", "bargaptarget"})
    tol_meaning = "primal and dual feasibility (feastol, optimalitytol)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED, st.SOLVER_ERROR)


class COPT(_Licensed):
    name, package = "COPT", "coptpy"
    licence = "commercial; without a licence file the PyPI package solves problems of up to 2000 rows and 2000 columns"
    cones = frozenset({LP, SOC, EXP})
    description = "commercial simplex / interior point, LP/SOC/EXP/PSD (size-limited without a licence)"
    tol_options = ("FeasTol", "DualTol")
    max_iter_options = ("BarIterLimit",)
    default_tol = 1e-6
    solver_options = frozenset({"save_file", "reoptimize", "TimeLimit", "LpMethod", "Threads"})
    tol_meaning = "primal and dual feasibility (FeasTol, DualTol)"
    status_map = _same(st.OPTIMAL, st.OPTIMAL_INACCURATE, st.INFEASIBLE, st.UNBOUNDED,
                       st.INFEASIBLE_OR_UNBOUNDED, st.USER_LIMIT, st.SOLVER_ERROR)


# fsopt's cvxpy backends, registered as the entry point CVXPY of fsopt.backends (pyproject.toml)
BACKENDS = (Clarabel, ECOS, SCS, HiGHS, SciPy, GLPK, CVXOPT, CBC, SCIP, GLOP, PDLP, QOCO, OSQP, PIQP,
            PROXQP, DAQP, QPALM, SDPA, Moreau, MPAX, MOSEK, GUROBI, CPLEX, XPRESS, COPT)


@functools.lru_cache(maxsize=None)
def _cvxpy_installed_solvers() -> frozenset:
    if not _importable("cvxpy"):
        return frozenset()
    import cvxpy as cp

    return frozenset(cp.installed_solvers())


@functools.lru_cache(maxsize=None)  # one licence probe per solver and process
def _licence_problem(name) -> str | None:
    """Why an installed commercial solver cannot solve a one-variable LP here (its licence), or None."""
    import cvxpy as cp

    x = cp.Variable()
    try:
        cp.Problem(cp.Minimize(x), [x >= 1]).solve(solver=name)
    except Exception as exc:  # noqa: BLE001 - report whatever the solver says about its licence
        return f"{name} is installed but cannot solve ({str(exc).splitlines()[0][:200]}); check its licence"
    return None
