"""fsopt: convex-optimization modeling framework for feature selection."""
from .core.checks import Margins, Outcome, blind_certificate, check, draws, patch, planted_bug, probe, wrap_backend
from .core.driver import FixedPointDriver, FixedPointMethod, Step
from .core.exceptions import SolverFailed, SolverWarning
from .core.fit_certificate import FitCertificate
from .core.parts import (LogisticMarginLoss, MarginLoss, NonnegElasticNet, NonnegGroupL1, NonnegL1,
                         NonnegL1Ball, Penalty)
from .core.solvers import Backend, NativeBackend, register_backend
from .core.subproblem import SolveRecord, Subproblem
from .lfs import LFS
from .logo import LOGO, GarroteLogistic, MarginGarrote
from .nmmkl import NMMKL

__version__ = "0.1.0"

__all__ = ["LOGO", "NMMKL", "LFS", "GarroteLogistic", "FixedPointDriver", "FixedPointMethod",
           "Step", "SolverFailed", "SolveRecord", "Subproblem", "Backend", "NativeBackend",
           "register_backend", "check", "planted_bug", "patch", "probe", "wrap_backend", "blind_certificate",
           "Margins", "Outcome", "draws", "LogisticMarginLoss", "Penalty",
           "NonnegL1", "NonnegElasticNet", "NonnegL1Ball", "NonnegGroupL1", "MarginLoss", "MarginGarrote",
           "FitCertificate", "SolverWarning"]
