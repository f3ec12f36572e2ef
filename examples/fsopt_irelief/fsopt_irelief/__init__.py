"""fsopt-irelief: an fsopt plugin package.  It adds a method (I-RELIEF, Sun 2007), the closed-form
backend of its subproblem (UNITBALL), a penalty for LOGO (the adaptive ℓ1 garrote weighted by
I-RELIEF's weights), checks with their planted bugs, and a problem file — all through fsopt's
public names and entry points."""
from .estimator import IRelief
from .subproblem import ReliefUpdate

__all__ = ["IRelief", "ReliefUpdate"]
