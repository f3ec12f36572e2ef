"""LFS: local feature selection with per-sample epsilon-constraint LPs (Armanfard et al., TPAMI 2016)."""
from .estimator import LFS
from .lp import EpsilonConstraint, EpsilonMax, epsilon_max_closed_form
from .method import LFSConfig, LFSFixedPoint, LFSResult, PointResult, resolve_solvers

__all__ = ["LFS", "EpsilonConstraint", "EpsilonMax", "LFSConfig", "LFSFixedPoint", "LFSResult",
           "PointResult", "epsilon_max_closed_form", "resolve_solvers"]
