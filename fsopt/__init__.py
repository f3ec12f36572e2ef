"""fsopt: convex-optimization modeling framework for feature selection.

The public names below are imported on first use (PEP 562 module ``__getattr__``): ``import
fsopt`` alone, ``fsopt --version`` and ``fsopt --help`` load no numerical library.  The top level
is the library: the estimators, the fixed-point driver, the subproblem and solver API, the parts
and the exceptions.  The verification harness (checks, planted bugs and their helpers) lives in
:mod:`fsopt.verify`.
"""
import importlib
import warnings

__version__ = "0.1.0"

_HOMES = {  # public name -> the module defining it
    "FixedPointDriver": "core.driver", "FixedPointMethod": "core.driver", "Step": "core.driver",
    "SolverFailed": "core.exceptions", "SolverWarning": "core.exceptions",
    "BackendFailureWarning": "core.exceptions",
    "LogisticMarginLoss": "core.parts", "HingeMarginLoss": "core.parts",
    "SquaredHingeMarginLoss": "core.parts", "MarginLoss": "core.parts", "NonnegElasticNet": "core.parts",
    "NonnegGroupL1": "core.parts", "NonnegL1": "core.parts", "NonnegL1Ball": "core.parts",
    "Penalty": "core.parts",
    "Backend": "core.solvers", "NativeBackend": "core.solvers", "register_backend": "core.solvers",
    "Subproblem": "core.subproblem",
    "LFS": "lfs", "LOGO": "logo", "GarroteLogistic": "logo", "MarginGarrote": "logo", "NMMKL": "nmmkl",
}
_MOVED = {  # name -> its home now; ``fsopt.NAME`` still works until 0.2, with a DeprecationWarning
    **dict.fromkeys(["Margins", "Outcome", "check", "draws", "planted_bug", "patch", "probe", "wrap_backend",
                     "blind_certificate"], "verify"),
    "SolveRecord": "core.subproblem", "FitCertificate": "core.fit_certificate",
}
_SUBPACKAGES = {"core", "datasets", "logo", "nmmkl", "lfs", "tools", "verify"}

__all__ = ["LOGO", "NMMKL", "LFS", "FixedPointDriver", "FixedPointMethod", "Step",
           "Subproblem", "GarroteLogistic", "MarginGarrote",
           "Backend", "NativeBackend", "register_backend",
           "MarginLoss", "LogisticMarginLoss", "HingeMarginLoss", "SquaredHingeMarginLoss",
           "Penalty", "NonnegL1", "NonnegElasticNet", "NonnegL1Ball", "NonnegGroupL1",
           "SolverFailed", "SolverWarning", "BackendFailureWarning"]


def __getattr__(name):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _MOVED:
        home = f"{__name__}.{_MOVED[name]}"
        warnings.warn(f"fsopt.{name} is deprecated and goes in fsopt 0.2: import it from {home}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(home), name)
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value  # the next access does not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)
