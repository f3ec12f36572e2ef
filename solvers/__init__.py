"""Solver profiles: one TOML file per profile (schema in fsopt/solvers.py)."""
