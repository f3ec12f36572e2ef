"""The garrote's loss over all J features with only some columns of z̄ in memory.

LOGO's plain run after a hand-over (:mod:`fsopt.logo.working_set`) solves each subproblem over all
J features, as the plain iteration does, but holds z̄ only for the features its last updates
weighted.  A backend that declares ``working_set_from`` (LBFGSB: L-BFGS-B on a working set of
coordinates, grown by the full gradient's KKT test) reads the smooth part, from that many features
on, only through ``gradient`` (over all J) and ``restrict`` (a few columns).  Here the gradient of a
column not held comes from the method (LOGO: z̄ of every column in float32 once per update with a
rigorous error bound, :class:`~fsopt.logo.margins.SingleMargins`, computed exactly where the bound
cannot decide), and a column's z̄ is computed the first time the backend restricts to it.  With
``estimates``, the backend's test of which features enter (``gradient_estimate``, then
``gradient_entries`` where the bound cannot decide it: :func:`fsopt.core.lbfgsb.most_violating`)
asks exact gradients only of the features near its threshold or among the most violating, not of
every feature that fails surely; those are the features it takes in (in two default fits, every
column taken in had been asked first, and 87–89 % of those asked were taken in), so their z̄ columns
are computed and held then, and their gradients read from them.  z̄ of a
column does not depend on which others are computed with it, so every decision the backend takes
and every restricted problem it solves is the one over the full z̄, bit for bit: the run's
iterates are the plain iteration's (``tests/test_logo_shapes.py``, ``tests/test_held_margins.py``).
"""
from __future__ import annotations

import numpy as np


class HeldMargins:
    """Σ_n ℓ(z̄_nᵀw) over J features of which the z̄ columns ``held`` are in memory (Z, in that
    order); ``columns(features)`` computes the z̄ columns of others, ``gradients(features, m)``
    their gradients z̄_jᵀℓ'(m) at margins m; optionally ``estimates(features, m)`` their gradients
    as ``(G, err)`` with |G − z̄ᵀℓ'(m)| ≤ err (or None when it has none)."""

    def __init__(self, loss, Z, held, n_features, columns, gradients, estimates=None):
        self.loss, self._columns, self._gradients, self._estimates = loss, columns, gradients, estimates
        self.smooth = getattr(loss, "smooth", True)
        self._n = n_features
        self._position = np.full(n_features, -1)  # column of each held feature in self.Z
        self._position[held] = np.arange(held.size)
        self.held, self.Z = np.asarray(held), Z
        self._last = (None, None)  # (w, gradient) of the last gradient

    @property
    def n_features(self):
        return self._n

    def margin_derivative(self, m):
        return self.loss.margin_derivative(m)

    def margin_value(self, m):
        return self.loss.margin_value(m)

    def margins(self, w):
        """Zw over the features w weights (their columns computed first if not held)."""
        support = np.flatnonzero(w)
        return self._held(support) @ w[support]

    def value(self, w):
        return float(np.sum(self.loss.margin_value(self.margins(w))))

    def gradient(self, w):
        """∇f(w) = z̄ᵀℓ'(Zw) over all J: the held columns from Z, the others by their products."""
        last_w, g = self._last
        if last_w is not None and np.array_equal(last_w, w):
            return g.copy()
        m, held = self._held_gradient(w)
        g = np.empty(self._n)
        g[self.held] = held
        others = np.flatnonzero(self._position < 0)
        g[others] = self._gradients(others, m)
        self._last = (np.array(w, dtype=float), g)
        return g.copy()

    def gradient_estimate(self, w):
        """``(g, err)`` with |∇f(w) − g| ≤ err: the held columns' exact (err 0), the others' from
        ``estimates``, none computed exactly (all exact, err 0, without estimates)."""
        if self._estimates is None:
            return self.gradient(w), np.zeros(self._n)
        m, held = self._held_gradient(w)
        others = np.flatnonzero(self._position < 0)
        estimated = self._estimates(others, m)
        if estimated is None:
            return self.gradient(w), np.zeros(self._n)
        g, err = np.empty(self._n), np.zeros(self._n)
        g[self.held] = held
        g[others], err[others] = estimated
        return g, err

    def gradient_entries(self, w, features):
        """∂_j f(w) for ``features``, as :meth:`gradient` gives them: their z̄ columns held first
        (computed where they are not: the backend asks the features it may take in)."""
        features = np.asarray(features)
        self._held(features)
        return self._held_gradient(w)[1][self._position[features]]

    def _held_gradient(self, w):
        """The margins Zw and z̄ᵀℓ'(Zw) over the held columns, in Z's order: the numbers every
        gradient here gives a held column."""
        m = self.margins(w)
        return m, self.Z.T @ self.loss.margin_derivative(m)

    def restrict(self, columns):
        """The loss on the columns ``columns`` (computed first where not held), as the full z̄'s."""
        return self.loss.with_margins(np.ascontiguousarray(self._held(np.asarray(columns))))

    def _held(self, features):
        """Z's columns for ``features``, computing and keeping those not held yet."""
        missing = np.unique(features[self._position[features] < 0])  # (increasing, as ``columns`` takes them)
        if missing.size:
            self._position[missing] = self.Z.shape[1] + np.arange(missing.size)
            self.Z = np.hstack([self.Z, self._columns(missing)])
            self.held = np.concatenate([self.held, missing])
            self._last = (None, None)
        return self.Z[:, self._position[features]]
