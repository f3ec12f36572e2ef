"""fsopt-pnewton: an example fsopt plugin (a solver backend, a theorem check, a problem)."""
