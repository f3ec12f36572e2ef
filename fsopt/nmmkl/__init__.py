"""NMMKL: non-monotonic feature selection via multiple kernel learning (Xu et al., ICML 2009)."""
