"""The plugin's claims, checked by ``fsopt verify`` against independent references."""
import numpy as np

from fsopt import GarroteLogistic
from fsopt.verify import Margins, check, draws, probe
from fsopt.core.solvers import resolve_solver
from fsopt.datasets.spiral import make_spiral
from fsopt.logo.margins import expected_margins

from .estimator import IRelief
from .penalty import AdaptiveL1, adaptive_weights
from .subproblem import ReliefUpdate

probe(ReliefUpdate.name, lambda: ReliefUpdate(np.array([1.0, -1.0])))


@check("IRELIEF update (R)", "a solver's answer to (R) attains max c'w = |c+|_2 over the nonnegative "
       "unit ball (the closed form, computed here from its definition)", kinds=(ReliefUpdate.name,))
def update_optimum(quick, rng=None, solver=None):
    """Random costs with mixed signs, J ∈ [2, 200]; the reference is c₊/‖c₊‖₂ written out here."""
    solver = solver or "UNITBALL"
    resolve_solver(solver)
    margins, gaps, dists = Margins(), [], []
    for g in draws(rng, 3 if quick else 10, seed=11):
        cost = g.standard_normal(int(g.integers(2, 201))) * g.uniform(0.1, 10.0)
        reference = np.maximum(cost, 0.0) / np.linalg.norm(np.maximum(cost, 0.0))
        record = ReliefUpdate(cost).solve(solver, refine=False)
        w = record.solution["w"]
        gaps.append((np.linalg.norm(np.maximum(cost, 0.0)) - cost @ w) / np.linalg.norm(cost))
        dists.append(float(np.abs(w - reference).max()))
    margins.at_most("rel_objective_gap", max(gaps), 1e-6)
    margins.at_most("max_abs_weight_diff", max(dists), 1e-3)
    return margins.outcome({"instances": len(gaps), "max_rel_gap": max(gaps), "max_diff": max(dists)},
                           f"solver {solver}; reference: c+/|c+|_2 from the definition")


@check("IRELIEF spiral", "I-RELIEF's fixed point converges and ranks the spiral's two features first, "
       "on spirals of 1 and 1.5 turns with irrelevant features")
def spiral_recovery(quick, rng=None):
    margins, ranks = Margins(), []
    for g in draws(rng, 2 if quick else 6, seed=5):
        turns = [1.0, 1.5][int(g.integers(2))]
        X, y = make_spiral(int(g.integers(80, 161)), int(g.integers(10, 60 if quick else 300)),
                           turns=turns, random_state=int(g.integers(2**31)))
        est = IRelief(n_features_to_select=2, max_iter=100).fit(X, y)
        margins.require("converged", est.converged_)
        ranks.append(int(np.argsort(np.argsort(-est.weights_))[[0, 1]].max()))
    margins.require("relevant_features_ranked_first", max(ranks) <= 1)
    return margins.outcome({"fits": len(ranks), "worst_rank": max(ranks)}, "turns in {1, 1.5}")


@check("IRELIEF adaptive garrote", "a solver's answer to LOGO's garrote with the adaptive penalty (A) "
       "attains the optimum of a conic solve of the same model", kinds=("garrote_logistic",),
       reference="Clarabel at tolerance 1e-10 on the cvxpy model (PROXGRAD at 1e-10 when Clarabel is under study)")
def adaptive_garrote_optimum(quick, rng=None, solver=None):
    """Spirals with n per class ∈ [40, 120], J ∈ [5, 80], λ ∈ [0.3, 3], random adaptive weights."""
    subject = solver or "PROXGRAD"
    reference = "PROXGRAD" if resolve_solver(subject).backend.name == "CLARABEL" else "clarabel-tight"
    margins, gaps = Margins(), []
    for g in draws(rng, 2 if quick else 6, seed=7):
        X, y = make_spiral(int(g.integers(40, 121)), int(g.integers(5, 81)), random_state=int(g.integers(2**31)))
        c = adaptive_weights(g.uniform(0.0, 1.0, X.shape[1]))
        sp = GarroteLogistic(lam=1.0, penalty=AdaptiveL1(float(g.uniform(0.3, 3.0)), c),
                             Z=expected_margins(X, y, np.ones(X.shape[1]), 2.0))
        ref = sp.solve(reference, **({"tol": 1e-10} if reference == "PROXGRAD" else {}))
        got = sp.solve(subject, refine=False)
        gaps.append(abs(got.objective - ref.objective) / max(1.0, abs(ref.objective)))
    margins.at_most("rel_objective_gap", max(gaps), 1e-6)
    return margins.outcome({"instances": len(gaps), "max_rel_gap": max(gaps)},
                           f"solver {subject}; reference {reference}")
