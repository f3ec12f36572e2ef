"""Our vectorized ReliefF against skrebate's on Colon (62 × 2000, k = 10): CPU time and agreement.

    pip install skrebate && nice -n 19 python benchmarks/relieff_speed.py
"""
import time

import numpy as np
from skrebate import ReliefF as SkrebateReliefF

from fsopt.datasets import load_dataset, standardize
from fsopt.tools.experiments.relieff import ReliefF

X, y = load_dataset("colon")
X, y = standardize(X), (y == "Tumor").astype(int)
t0 = time.process_time()
ours = ReliefF(n_neighbors=10).fit(X, y).feature_importances_
t1 = time.process_time()
theirs = SkrebateReliefF(n_neighbors=10, n_features_to_select=10).fit(X, y).feature_importances_
t2 = time.process_time()
print(f"colon 62x2000 ReliefF k=10: ours {t1 - t0:.2f} CPU s, skrebate {t2 - t1:.2f} CPU s, "
      f"ratio {(t2 - t1) / (t1 - t0):.0f}x, max |difference| {np.abs(ours - theirs).max():.1e}")
