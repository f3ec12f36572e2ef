"""LFS: local feature selection with per-sample epsilon-constraint LPs (Armanfard et al., TPAMI 2016)."""
