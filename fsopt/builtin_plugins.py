"""fsopt's own methods and native backends, declared as entry points like any plugin's.

This is the table of ``pyproject.toml``'s ``[project.entry-points."fsopt.methods"]`` and
``[project.entry-points."fsopt.backends"]`` (tests/test_architecture.py checks that the two
agree).  fsopt finds its own methods and backends only through entry points
(:func:`fsopt.core.plugins.entry_points`), importing one when a command needs it, so that
``fsopt.core`` names no method package.  An installed fsopt (``pip install -e .``) declares them
in its metadata; this table stands in for those the metadata lacks: a source tree run without
installing it, or installed metadata older than the tree.  It imports nothing.
"""
ENTRY_POINTS = {
    "fsopt.methods": {"logo": "fsopt.logo", "nmmkl": "fsopt.nmmkl", "lfs": "fsopt.lfs"},
    "fsopt.backends": {
        "BOXLP": "fsopt.lfs.backends:BoxDual",
        "CVXPY": "fsopt.core.cvxpy_solvers:BACKENDS",
        "GRADIENT": "fsopt.logo.gradient_path:GradientPath",
        "HIGHSPY": "fsopt.lfs.backends:HighsDirect",
        "LBFGSB": "fsopt.core.lbfgsb:LBFGSB",
        "MKLFAST": "fsopt.nmmkl.fast:WorkingSetMKL",
        "MKLLP": "fsopt.nmmkl.recovery_reduced:ReducedRecoveryLP",
        "PROXGRAD": "fsopt.core.composite:ProximalGradient",
        "TOPK": "fsopt.lfs.backends:TopK",
    },
}
