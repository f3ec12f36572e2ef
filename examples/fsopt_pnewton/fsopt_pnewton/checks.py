"""The plugin's claim, checked by ``fsopt verify``: projected Newton reaches the conic optimum of
LOGO's (7) in few iterations (Newton's local quadratic convergence)."""
import numpy as np

from fsopt.datasets.spiral import make_spiral
from fsopt.logo import GarroteLogistic
from fsopt.logo.margins import expected_margins
from fsopt.verify import Outcome, check


@check("PNEWTON garrote", "projected Newton reaches Clarabel's optimum of LOGO (7) within 30 iterations")
def projected_newton_optimum(quick: bool) -> Outcome:
    gaps, iterations = [], []
    for seed in range(2 if quick else 5):
        X, y = make_spiral(60 if quick else 200, 10 if quick else 100, random_state=seed)
        sp = GarroteLogistic(lam=1.0, Z=expected_margins(X, y, np.ones(X.shape[1]), 2.0))
        ref = sp.solve("clarabel-tight")
        record = sp.solve("PNEWTON", tol=1e-8)
        if not record.certified:
            return Outcome(False, {"seed": seed, "residual": record.residual}, "certificate failed")
        gaps.append(abs(record.objective - ref.objective) / abs(ref.objective))
        iterations.append(record.iterations)
    return Outcome(max(gaps) <= 1e-8 and max(iterations) <= 30,
                   {"instances": len(gaps), "max_rel_objective_gap": max(gaps),
                    "max_newton_iterations": max(iterations)}, "reference: clarabel-tight")
