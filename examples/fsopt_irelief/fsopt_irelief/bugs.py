"""The plugin's planted bugs (``fsopt verify --mutants``), each paired with the check that must
catch it by its own measurement (the subproblem's certificate is blinded or fooled too)."""
import numpy as np

from fsopt import GarroteLogistic
from fsopt.verify import blind_certificate, patch, planted_bug, wrap_backend

from .penalty import AdaptiveL1
from .subproblem import ReliefUpdate


@planted_bug("UNITBALL keeps negative weights", catches=("IRELIEF update (R)",),
             description="the closed form returns c/|c|_2 (no positive part) and the certificate is blind")
def unit_ball_signed(stack):
    wrap_backend(stack, "UNITBALL",
                 lambda sp, sol, status, it: ({"w": sp.cost / np.linalg.norm(sp.cost)}, status, it))
    blind_certificate(stack, ReliefUpdate)


@planted_bug("adaptive prox ignores c", catches=("IRELIEF adaptive garrote",),
             description="the prox of (A) thresholds by λ instead of λc, and the garrote's certificate "
                         "is blind: only the conic solve of the cvxpy model, outside the prox, sees it")
def adaptive_prox_unweighted(stack):
    patch(stack, AdaptiveL1, "prox", lambda self, v, step: np.maximum(v - step * self.lam, 0.0))
    blind_certificate(stack, GarroteLogistic)
