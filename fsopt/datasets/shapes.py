"""Two-class data of several shapes, a few relevant features among N(0, 1) noise features.

The fast path of LOGO (working set, elimination) was tuned on spirals; these families have other
geometry, each with its geometry as parameters, to measure it where it was not tuned (issue 42):

- :func:`make_interaction`: the label is the parity (XOR) of the signs of ``n_interacting``
  features: no one of them separates the classes alone.
- :func:`make_minority`: a minority class (``minority``, e.g. 10 %) beyond a curved boundary over
  ``n_relevant`` features.
- :func:`make_correlated_copies`: one relevant latent feature, seen through ``n_copies`` noisy
  copies of it (correlation ``correlation`` with the latent): many equally good features.
- :func:`make_shells`: the class alternates between ``n_shells`` concentric shells in
  ``n_relevant`` dimensions: the label depends on the radius only.

Held out (:data:`HELD_OUT`: never used to choose a constant of the fast path, only to check it):

- :func:`make_sine_boundary`: the class boundary is a sine wave over two features.
- :func:`make_checkerboard`: the class alternates over an ``n_cells`` × ``n_cells`` grid of two
  features (a finer XOR).
- :func:`make_clusters`: ``n_clusters`` Gaussian clusters in ``n_relevant`` dimensions, the class
  alternating from cluster to cluster.
- :func:`make_noisy_linear`: a linear boundary over ``n_relevant`` features with a share ``flip``
  of the labels flipped, ``outliers`` rows far out and ``duplicated`` rows repeated.

Every generator returns (X, y) with the relevant columns first, standardized to unit variance (so
their scale matches the N(0, 1) columns that follow, as in :func:`~fsopt.datasets.spiral.make_spiral`),
labels ±1, and ``n_irrelevant`` N(0, 1) columns; ``noise`` is the standard deviation of a Gaussian
jitter added to the relevant coordinates after labelling (the classes then overlap near the
boundary), and every random step takes ``random_state``.
"""
from __future__ import annotations

import numpy as np

from ..core.validation import check_random_state_seed


def make_interaction(n_samples=300, n_irrelevant=0, n_interacting=2, balance=0.5, noise=0.1,
                     random_state=None):
    """XOR of ``n_interacting`` uniform features: y = +1 where the product of the centred
    coordinates is above its (1 − ``balance``) quantile (``balance`` = 0.5: the sign of the
    product, the parity of the signs).  Each feature alone carries no information on y."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, balance=balance, noise=noise)
    if int(n_interacting) < 2:
        raise ValueError(f"n_interacting must be >= 2; got {n_interacting}")
    rng = check_random_state_seed(random_state)
    R = rng.uniform(-1.0, 1.0, size=(n_samples, int(n_interacting)))
    score = np.prod(R, axis=1)
    return _finish(R, _by_quantile(score, balance), n_irrelevant, noise, rng)


def make_minority(n_samples=300, n_irrelevant=0, n_relevant=4, minority=0.1, curvature=1.0, noise=0.1,
                  random_state=None):
    """A minority class (share ``minority``) beyond a curved boundary over ``n_relevant`` N(0, 1)
    features: y = +1 where s(x) = Σ_k a_k x_k + ``curvature``·(x_1² − x_2²)/2 (a random unit
    direction a) is in its top ``minority`` share."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, balance=minority, noise=noise)
    if int(n_relevant) < 2:
        raise ValueError(f"n_relevant must be >= 2; got {n_relevant}")
    rng = check_random_state_seed(random_state)
    R = rng.standard_normal((n_samples, int(n_relevant)))
    a = rng.standard_normal(int(n_relevant))
    score = R @ (a / np.linalg.norm(a)) + curvature * (R[:, 0] ** 2 - R[:, 1] ** 2) / 2
    return _finish(R, _by_quantile(score, minority), n_irrelevant, noise, rng)


def make_correlated_copies(n_samples=300, n_irrelevant=0, n_copies=20, correlation=0.9, balance=0.5,
                           noise=0.1, random_state=None):
    """``n_copies`` columns u·ρ + √(1 − ρ²)·e_k (ρ = ``correlation``, e_k independent N(0, 1)) of
    one N(0, 1) latent u; y = +1 where u is above its (1 − ``balance``) quantile.  Every copy is
    relevant, none is the latent itself."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, balance=balance, noise=noise)
    if int(n_copies) < 1:
        raise ValueError(f"n_copies must be >= 1; got {n_copies}")
    if not 0 < correlation <= 1:
        raise ValueError(f"correlation must be in (0, 1]; got {correlation}")
    rng = check_random_state_seed(random_state)
    u = rng.standard_normal(n_samples)
    y = _by_quantile(u, balance)
    R = correlation * u[:, None] + np.sqrt(1 - correlation ** 2) * rng.standard_normal((n_samples, int(n_copies)))
    return _finish(R, y, n_irrelevant, noise, rng)


def make_shells(n_samples=300, n_irrelevant=0, n_relevant=3, n_shells=3, noise=0.1, random_state=None):
    """Points uniform in the ``n_relevant``-ball, their radius split into ``n_shells`` shells of
    equal count; the class alternates from shell to shell (+1 innermost)."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, noise=noise)
    if int(n_relevant) < 1:
        raise ValueError(f"n_relevant must be >= 1; got {n_relevant}")
    if not 2 <= int(n_shells) <= n_samples // 2:
        raise ValueError(f"n_shells must be in [2, n_samples / 2]; got {n_shells}")
    rng = check_random_state_seed(random_state)
    d = int(n_relevant)
    direction = rng.standard_normal((n_samples, d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = rng.uniform(0.0, 1.0, n_samples) ** (1.0 / d)  # uniform in the ball
    shell = np.minimum((np.argsort(np.argsort(radius)) * int(n_shells)) // n_samples, int(n_shells) - 1)
    y = np.where(shell % 2 == 0, 1, -1)
    return _finish(direction * radius[:, None], y, n_irrelevant, noise, rng)


def make_sine_boundary(n_samples=300, n_irrelevant=0, frequency=2.0, amplitude=0.7, balance=0.5, noise=0.1,
                       random_state=None):
    """Two uniform features on [−π, π]: y = +1 where x_2 − π·``amplitude``·sin(``frequency``·x_1)
    is in its top ``balance`` share (a wavy boundary: each feature alone says little)."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, balance=balance, noise=noise)
    if not frequency > 0:
        raise ValueError(f"frequency must be > 0; got {frequency}")
    rng = check_random_state_seed(random_state)
    R = rng.uniform(-np.pi, np.pi, size=(n_samples, 2))
    score = R[:, 1] - amplitude * np.pi * np.sin(frequency * R[:, 0])
    return _finish(R, _by_quantile(score, balance), n_irrelevant, noise, rng)


def make_checkerboard(n_samples=300, n_irrelevant=0, n_cells=3, noise=0.05, random_state=None):
    """Two uniform features on [0, 1]²: y = +1 where ⌊k·x_1⌋ + ⌊k·x_2⌋ is even (k = ``n_cells``):
    each feature alone says nothing of y."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, noise=noise)
    if int(n_cells) < 2:
        raise ValueError(f"n_cells must be >= 2; got {n_cells}")
    rng = check_random_state_seed(random_state)
    R = rng.uniform(0.0, 1.0, size=(n_samples, 2))
    cells = np.floor(int(n_cells) * R).sum(axis=1)
    y = np.where(cells % 2 == 0, 1, -1)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    return _finish(R, y, n_irrelevant, noise, rng)


def make_clusters(n_samples=300, n_irrelevant=0, n_relevant=5, n_clusters=4, separation=2.0, noise=0.1,
                  random_state=None):
    """``n_clusters`` clusters N(c_k, I) in ``n_relevant`` dimensions, the centres c_k drawn
    N(0, ``separation``²·I), samples assigned to them at random; the class alternates from cluster
    to cluster (+1 for the even ones)."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, noise=noise)
    if int(n_relevant) < 1:
        raise ValueError(f"n_relevant must be >= 1; got {n_relevant}")
    if not 2 <= int(n_clusters) <= n_samples // 2:
        raise ValueError(f"n_clusters must be in [2, n_samples / 2]; got {n_clusters}")
    if not separation > 0:
        raise ValueError(f"separation must be > 0; got {separation}")
    rng = check_random_state_seed(random_state)
    centres = separation * rng.standard_normal((int(n_clusters), int(n_relevant)))
    k = rng.permutation(np.arange(n_samples) % int(n_clusters))  # every cluster in use
    R = centres[k] + rng.standard_normal((n_samples, int(n_relevant)))
    return _finish(R, np.where(k % 2 == 0, 1, -1), n_irrelevant, noise, rng)


def make_noisy_linear(n_samples=300, n_irrelevant=0, n_relevant=10, flip=0.1, outliers=0.02, duplicated=0.05,
                      noise=0.1, random_state=None):
    """y = sign(aᵀx) over ``n_relevant`` N(0, 1) features (a random direction a), then a share
    ``flip`` of the labels flipped, a share ``outliers`` of the rows moved 10 standard deviations
    out along a random direction (relevant features only), and a share ``duplicated`` of the rows
    repeated: the last rows copy earlier ones, every column."""
    _check(n_samples=n_samples, n_irrelevant=n_irrelevant, noise=noise)
    if int(n_relevant) < 1:
        raise ValueError(f"n_relevant must be >= 1; got {n_relevant}")
    for name, share in (("flip", flip), ("outliers", outliers), ("duplicated", duplicated)):
        if not 0 <= share < 0.5:
            raise ValueError(f"{name} must be in [0, 0.5); got {share}")
    rng = check_random_state_seed(random_state)
    m = n_samples - int(round(duplicated * n_samples))  # distinct rows
    R = rng.standard_normal((m, int(n_relevant)))
    y = _by_quantile(R @ rng.standard_normal(int(n_relevant)), 0.5)
    flipped = rng.choice(m, int(round(flip * m)), replace=False)
    y[flipped] = -y[flipped]
    far = rng.choice(m, int(round(outliers * m)), replace=False)
    direction = rng.standard_normal((far.size, int(n_relevant)))
    R[far] += 10.0 * direction / np.linalg.norm(direction, axis=1, keepdims=True)
    X, y = _finish(R, y, n_irrelevant, noise, rng)
    rows = np.concatenate([np.arange(m), rng.integers(0, m, n_samples - m)])
    X, y = X[rows], y[rows]
    k = int(n_relevant)  # standardized again over every row (a copy stays a copy)
    X[:, :k] = (X[:, :k] - X[:, :k].mean(axis=0)) / X[:, :k].std(axis=0)
    return X, y


FAMILIES = {"interaction": make_interaction, "minority": make_minority,
            "correlated copies": make_correlated_copies, "shells": make_shells}
HELD_OUT = {"sine boundary": make_sine_boundary, "checkerboard": make_checkerboard,  # checks of the fast
            "clusters": make_clusters, "noisy linear": make_noisy_linear}  # path, never tuned on


def _by_quantile(score, share):
    """+1 for the top ``share`` of ``score`` (exactly round(share·n) samples, at least one of each
    class), −1 for the rest."""
    n = score.size
    k = min(max(int(round(share * n)), 1), n - 1)
    y = -np.ones(n, dtype=int)
    y[np.argsort(score, kind="stable")[n - k:]] = 1
    return y


def _finish(R, y, n_irrelevant, noise, rng):
    """[R + jitter, standardized | N(0, 1) noise columns], y."""
    R = R + noise * rng.standard_normal(R.shape)
    n, k = R.shape
    X = np.empty((n, k + int(n_irrelevant)))
    X[:, :k] = (R - R.mean(axis=0)) / R.std(axis=0)
    rows = max(1, 2**24 // max(1, int(n_irrelevant)))  # fill in blocks: no second N×J copy
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        X[start:stop, k:] = rng.standard_normal((stop - start, int(n_irrelevant)))
    return X, y


def _check(n_samples, n_irrelevant, noise, balance=0.5):
    """The parameters every family shares, refused before any work."""
    if int(n_samples) < 4:
        raise ValueError(f"n_samples must be >= 4; got {n_samples}")
    if int(n_irrelevant) < 0:
        raise ValueError(f"n_irrelevant must be >= 0; got {n_irrelevant}")
    if not 0 < balance < 1:
        raise ValueError(f"the class share (balance, minority) must be in (0, 1); got {balance}")
    if not noise >= 0:
        raise ValueError(f"noise must be >= 0; got {noise}")
