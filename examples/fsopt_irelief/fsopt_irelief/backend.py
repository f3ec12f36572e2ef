"""Native backend "UNITBALL": the closed form of a linear objective over the nonnegative unit ball,
w* = c₊/‖c₊‖₂ for ``max cᵀw s.t. ‖w‖₂ ≤ 1, w ≥ 0``.  It solves any subproblem that declares
``feasible_set = "nonnegative unit ball"`` and a ``cost`` vector — a capability, not a name."""
from __future__ import annotations

import numpy as np

from fsopt import NativeBackend

from .subproblem import NONNEG_UNIT_BALL


class UnitBallClosedForm(NativeBackend):
    name = "UNITBALL"
    package = "numpy"
    description = "closed form of max c'w over {w >= 0, |w|_2 <= 1} (plugin fsopt-irelief)"
    default_tol = None  # exact: nothing to tighten

    def supports(self, subproblem):
        return getattr(subproblem, "feasible_set", None) == NONNEG_UNIT_BALL \
            and getattr(subproblem, "cost", None) is not None

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        positive = np.maximum(subproblem.cost, 0.0)
        norm = float(np.linalg.norm(positive))
        w = positive / norm if norm > 0 else np.zeros_like(positive)
        return {"w": w}, "optimal", 0
