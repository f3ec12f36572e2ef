"""NMMKL: non-monotonic feature selection via multiple kernel learning (Xu, Jin, Ye, Lyu, King, ICML 2009).

QCQP dual (8) → LP primal recovery (15) → rounding (Algorithm 1, Theorem 5), with Theorem 6's bound.
"""
from .estimator import NMMKL
from .method import NMMKLMethod, NMMKLPass, NMMKLResult, diagnostics
from .qcqp import MKLDual
from .recovery import PrimalRecoveryLP
from .rounding import Partition, partition, select, theorem6_bound
from .svm import exhaustive_search, svm_dual

__all__ = ["NMMKL", "NMMKLMethod", "NMMKLPass", "NMMKLResult", "MKLDual", "PrimalRecoveryLP", "Partition", "partition", "select",
           "theorem6_bound", "diagnostics", "exhaustive_search", "svm_dual"]
