"""fsopt: convex-optimization modeling framework for feature selection.

The public names below are imported on first use (PEP 562 module ``__getattr__``): ``import
fsopt`` alone, ``fsopt --version`` and ``fsopt --help`` load no numerical library.
"""
import importlib

__version__ = "0.1.0"

_HOMES = {  # public name -> the module defining it
    "Margins": "core.checks", "Outcome": "core.checks", "check": "core.checks", "draws": "core.checks",
    "planted_bug": "core.checks", "patch": "core.checks", "probe": "core.checks",
    "wrap_backend": "core.checks", "blind_certificate": "core.checks",
    "FixedPointDriver": "core.driver", "FixedPointMethod": "core.driver", "Step": "core.driver",
    "SolverFailed": "core.exceptions", "SolverWarning": "core.exceptions",
    "BackendFailureWarning": "core.exceptions",
    "FitCertificate": "core.fit_certificate",
    "LogisticMarginLoss": "core.parts", "HingeMarginLoss": "core.parts",
    "SquaredHingeMarginLoss": "core.parts", "MarginLoss": "core.parts", "NonnegElasticNet": "core.parts",
    "NonnegGroupL1": "core.parts", "NonnegL1": "core.parts", "NonnegL1Ball": "core.parts",
    "Penalty": "core.parts",
    "Backend": "core.solvers", "NativeBackend": "core.solvers", "register_backend": "core.solvers",
    "SolveRecord": "core.subproblem", "Subproblem": "core.subproblem",
    "LFS": "lfs", "LOGO": "logo", "GarroteLogistic": "logo", "MarginGarrote": "logo", "NMMKL": "nmmkl",
}
_SUBPACKAGES = {"core", "datasets", "logo", "nmmkl", "lfs", "tools"}

__all__ = ["LOGO", "NMMKL", "LFS", "GarroteLogistic", "FixedPointDriver", "FixedPointMethod",
           "Step", "SolverFailed", "SolveRecord", "Subproblem", "Backend", "NativeBackend",
           "register_backend", "check", "planted_bug", "patch", "probe", "wrap_backend", "blind_certificate",
           "Margins", "Outcome", "draws", "LogisticMarginLoss", "Penalty",
           "HingeMarginLoss", "SquaredHingeMarginLoss",
           "NonnegL1", "NonnegElasticNet", "NonnegL1Ball", "NonnegGroupL1", "MarginLoss", "MarginGarrote",
           "FitCertificate", "SolverWarning", "BackendFailureWarning"]


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value  # the next access does not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)
