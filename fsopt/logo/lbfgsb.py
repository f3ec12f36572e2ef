"""The LBFGSB backend, generic, lives in :mod:`fsopt.core.lbfgsb` (its working set included);
these names stay importable from here."""
from ..core.lbfgsb import _WORKING_SET_FROM, LBFGSB, WORKING_SET_NEEDS, curvature_scale, minimize_certified

__all__ = ["LBFGSB", "WORKING_SET_NEEDS", "_WORKING_SET_FROM", "curvature_scale", "minimize_certified"]
