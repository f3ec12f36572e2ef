"""The parts of a composite subproblem min_w f(w) + g(w): a smooth loss f and a penalty g.

A subproblem that declares them (``subproblem.smooth``, ``subproblem.penalty``) gets, with no
further code, a NumPy certificate (:func:`composite_certificate`), a native polish, and the
native backends that need only these parts (L-BFGS-B, proximal gradient, LOGO's gradient path);
a backend that needs a part the subproblem does not declare says which (:func:`missing_parts`).

A **smooth loss** declares ``value(w)``, ``gradient(w)`` and ``n_features`` (the length of w), and
may declare ``value_and_gradient(w)`` and ``restrict(columns)`` (the same loss on the coordinates
``columns`` of w, every other coordinate held at 0).  The slot is called ``smooth``, but a loss
says whether it is (``smooth = True`` / ``False``; a :class:`MarginLoss` that says nothing is
probed, :func:`nonsmooth_reason`).  One that is not (a hinge) goes only to the backends that take
its cvxpy form, and is certified by a duality gap (:func:`duality_gap`) instead of a gradient:
it then declares ``conjugate(u)`` (f = L(Aw): L*(u)), ``adjoint(u)`` (Aᵀu) and ``dual_claim(w)``
(a u ∈ ∂L(Aw) to start from when the solver gives none).

A **penalty** g (its feasible set C included, g = +∞ outside C) declares
- ``value(w)``: g(w) for w in C;
- ``prox(v, step)``: argmin_x step·g(x) + ½‖x − v‖² over C;
- ``zero_slack(w, grad)``: per coordinate j, how far the optimality condition of w_j = 0 holds
  given the smooth gradient ``grad`` at ``w`` (≥ 0: it holds, and ``violation`` is 0 there; < 0:
  j must enter); nondecreasing in every grad_j, so a lower bound of the gradient gives a lower
  bound of the slack (LOGO's checks rely on both to decide features from bounded estimates);
- ``violation(w, grad)``: per coordinate, how far the optimality condition fails (default
  |w − prox(w − grad, 1)|, 0 exactly at the optimum; continuous in w, unlike a distance to ∂g(w));
- ``infeasibility(w)``: how far w is from C (0 inside);
- ``cvxpy_form(w)``: the cvxpy ``(expression, constraints)`` of g, its data in Parameters made by
  ``parameter(name)`` (refreshed from the attribute of that name before every solve); with
  ``nonneg = True`` the variable w is a nonnegative cvxpy Variable and w ≥ 0 is not repeated;
- ``separable``: True when zero_slack of a coordinate reads only that coordinate (elimination may
  then check columns one block at a time; otherwise it must pass every feature at once);
- ``restrict(columns)``: the penalty of w[columns] with every other coordinate at 0;
- optionally ``gradient(w)`` and ``box = (lower, upper)``: g is differentiable on C and C is that
  box — what L-BFGS-B and the gradient path's w = v² need; ``smooth`` says whether g is
  differentiable on C (None, the default: where it declares ``gradient``);
- for the duality gap of a non-smooth loss, ``conjugate(v)`` (g*(v) on its domain) and
  ``dual_scale(v)`` (the largest s ∈ [0, 1] with s·v in that domain, which holds 0).
"""
from __future__ import annotations

import contextlib
import contextvars
import copy
import inspect

import numpy as np
from scipy.special import expit, xlogy


# --- smooth losses ------------------------------------------------------------------------------
def placeholder(method):
    """Mark a base-class method that only says a subclass must declare it: the part counts as
    undeclared (:func:`undeclared`) until a subclass defines it."""
    method.undeclared = True
    return method


class MarginLoss:
    """A loss on margins, f(w) = Σ_n ℓ(z̄_nᵀw) for an N×J margin matrix Z (LOGO's subproblems).

    A subclass declares the per-sample loss ``margin_value(m)`` (ℓ(m_n), elementwise), its
    derivative ``margin_derivative(m)`` (ℓ'(m_n)) and ``cvxpy_margin(m)`` (Σ_n ℓ(m_n) of a cvxpy
    expression m); value, gradient ∇f(w) = Zᵀℓ'(Zw), ``restrict`` and the cvxpy form follow.
    ``margin_derivative`` is what LOGO's elimination and working set need: the gradient of a feature
    they hold out is z̄_jᵀℓ'(m), one product with that feature's column.  The margins Zw of the last
    point are kept, so value and gradient at one w cost one product with Z each way.

    Parameters
    ----------
    Z : ndarray of shape (N, J) or None, default=None
        The margins, one row per sample (None: set the attribute ``Z`` later).

    Examples
    --------
    A squared hinge ℓ(m) = max(0, 1 − m)²:

    >>> import numpy as np
    >>> from fsopt import MarginLoss
    >>> class SquaredHinge(MarginLoss):
    ...     def margin_value(self, m):
    ...         return np.maximum(0.0, 1.0 - m) ** 2
    ...     def margin_derivative(self, m):
    ...         return -2.0 * np.maximum(0.0, 1.0 - m)
    ...     def cvxpy_margin(self, m):
    ...         import cvxpy as cp
    ...         return cp.sum_squares(cp.pos(1 - m))
    >>> loss = SquaredHinge(np.array([[1.0, 0.0], [0.0, 2.0]]))
    >>> loss.value(np.zeros(2)), loss.gradient(np.zeros(2)).tolist()
    (2.0, [-2.0, -4.0])
    """

    smooth = None
    cone = None
    margin_dual_domain = (-np.inf, np.inf)
    # the pieces each derived part rests on: a part is declared when they are (:func:`undeclared`)
    derived_from = {"value": ("margin_value",), "gradient": ("margin_derivative",),
                    "value_and_gradient": ("margin_value", "margin_derivative"),
                    "cvxpy_form": ("cvxpy_margin",), "conjugate": ("margin_conjugate",),
                    "dual_claim": ("margin_derivative",)}

    def __init__(self, Z=None):
        self.Z = Z
        self._last = (None, None)  # (w, Zw) of the last evaluation

    @placeholder
    def margin_value(self, m):
        raise NotImplementedError(f"{type(self).__name__} declares no margin_value(m)")

    @placeholder
    def margin_derivative(self, m):
        raise NotImplementedError(f"{type(self).__name__} declares no margin_derivative(m)")

    @placeholder
    def cvxpy_margin(self, m):
        raise NotImplementedError(f"{type(self).__name__} declares no cvxpy_margin(m)")

    @placeholder
    def margin_conjugate(self, u):
        raise NotImplementedError(f"{type(self).__name__} declares no margin_conjugate(u)")

    @property
    def n_features(self):
        return None if self.Z is None else self.Z.shape[1]

    def with_margins(self, Z):
        """The same loss on the margin matrix ``Z`` (a shallow copy: its parameters are shared)."""
        other = copy.copy(self)
        other.Z, other._last = Z, (None, None)
        return other

    def margins(self, w):
        """Zw (kept for the next call at the same w; at w = 0 no product, and the kept one stays)."""
        if not np.any(w):
            return np.zeros(self.Z.shape[0])
        last_w, m = self._last
        if last_w is None or last_w.shape != w.shape or not np.array_equal(last_w, w):
            m = self.Z @ w
            self._last = (np.array(w, dtype=float), m)
        return m

    def value(self, w):
        """f(w) = Σ_n ℓ(z̄_nᵀw).

        Parameters
        ----------
        w : ndarray of shape (J,)
            The feature weights.

        Returns
        -------
        value : float
        """
        return float(np.sum(self.margin_value(self.margins(w))))

    def gradient(self, w):
        """∇f(w) = Zᵀℓ'(Zw).

        Parameters
        ----------
        w : ndarray of shape (J,)
            The feature weights.

        Returns
        -------
        gradient : ndarray of shape (J,)
        """
        return self.Z.T @ self.margin_derivative(self.margins(w))

    def value_and_gradient(self, w):
        m = self.margins(w)
        return float(np.sum(self.margin_value(m))), self.Z.T @ self.margin_derivative(m)

    def restrict(self, columns):
        return self.with_margins(np.ascontiguousarray(self.Z[:, columns]))

    def cvxpy_form(self, w):
        return self.cvxpy_margin(self.Z @ w)

    def conjugate(self, u):
        """L*(u) = Σ_n ℓ*(u_n) for u in the dual domain (the caller clips to it)."""
        return float(np.sum(self.margin_conjugate(u)))

    def adjoint(self, u):
        """Zᵀu: the margins' dual mapped to the features."""
        return self.Z.T @ u

    def clip_dual(self, u):
        """u moved into ``margin_dual_domain``, where ℓ* is finite."""
        return np.clip(u, *self.margin_dual_domain)

    def dual_claim(self, w):
        """ℓ'(Zw): a subgradient of the loss at the margins of w (exact where ℓ is smooth)."""
        return np.asarray(self.margin_derivative(self.margins(w)), dtype=float)


class LogisticMarginLoss(MarginLoss):
    """LOGO's loss on the expected margins Z (N×J), eq. (7) without its penalty:

        f(w) = Σ_n log(1 + exp(−z̄_nᵀw)),     ∇f(w) = −Zᵀ σ(−Zw),     ℓ'(m) = −σ(−m).

    Parameters
    ----------
    Z : ndarray of shape (N, J) or None, default=None
        The expected margins z̄_n, one row per sample (None: set the attribute ``Z`` later).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import LogisticMarginLoss
    >>> loss = LogisticMarginLoss(np.array([[1.0, 0.0], [0.0, 2.0]]))
    >>> bool(np.isclose(loss.value(np.zeros(2)), 2 * np.log(2)))   # log(1 + e^0) per sample
    True
    >>> loss.gradient(np.zeros(2)).tolist()                              # −Zᵀσ(0) = −Zᵀ·½
    [-0.5, -1.0]
    """

    smooth, cone = True, "EXP"
    margin_dual_domain = (-1.0, 0.0)

    def margin_value(self, m):
        return np.logaddexp(0.0, -m)

    def margin_conjugate(self, u):
        """ℓ*(u) = (−u) log(−u) + (1 + u) log(1 + u) on [−1, 0]."""
        return xlogy(-u, -u) + xlogy(1.0 + u, 1.0 + u)

    def margin_derivative(self, m):
        return -expit(-m)

    def value_and_gradient(self, w):
        """f(w) and ∇f(w) in one pass over the margins; each call is at a new point (L-BFGS-B's
        evaluations), so Zw is computed without looking up the last one (and kept for the next
        ``gradient``): 2-5 % of a LOGO fit (Fermat spiral, J = 20,000; interaction, J = 8,000; sonar
        with 2,000 noise features; both versions in turn in one process), the same weights bit for
        bit."""
        m = self.Z @ w
        self._last = (np.array(w, dtype=float), m)
        minus = np.negative(m)
        loss = np.logaddexp(0.0, minus)
        ratio = np.exp(np.subtract(minus, loss, out=minus), out=minus)  # exp(−m)/(1+exp(−m)) stably
        gradient = self.Z.T @ ratio
        return float(loss.sum()), np.negative(gradient, out=gradient)

    def cvxpy_margin(self, m):
        import cvxpy as cp

        return cp.sum(cp.logistic(-m))


class HingeMarginLoss(MarginLoss):
    """The hinge ℓ(m) = max(0, 1 − m): not smooth (a kink at m = 1), so it goes to the conic
    backends only and is certified by a duality gap.  ℓ*(u) = u on [−1, 0].  With
    :class:`NonnegL1` the garrote is the LP min Σ_n t_n + λ1ᵀw, t ≥ 1 − Zw, t ≥ 0, w ≥ 0.

    Parameters
    ----------
    Z : ndarray of shape (N, J) or None, default=None
        The margins, one row per sample (None: set the attribute ``Z`` later).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import HingeMarginLoss, MarginGarrote, NonnegL1
    >>> garrote = MarginGarrote(HingeMarginLoss(), NonnegL1(0.5), Z=np.array([[1.0, -0.5], [0.8, 0.2]]))
    >>> record = garrote.solve("CLARABEL")
    >>> record.certified, round(record.objective, 6)     # w = (1.25, 0): both margins ≥ 1
    (True, 0.625)
    """

    smooth, cone = False, "LP"
    margin_dual_domain = (-1.0, 0.0)

    def margin_value(self, m):
        return np.maximum(0.0, 1.0 - m)

    def margin_derivative(self, m):
        """A subgradient: −1 below the kink, 0 from it on."""
        return -(np.asarray(m) < 1.0).astype(float)

    def margin_conjugate(self, u):
        return np.asarray(u, dtype=float)

    def cvxpy_margin(self, m):
        import cvxpy as cp

        return cp.sum(cp.pos(1 - m))


class SquaredHingeMarginLoss(MarginLoss):
    """The squared hinge ℓ(m) = max(0, 1 − m)²: smooth (ℓ' = −2 max(0, 1 − m) is 2-Lipschitz).
    ℓ*(u) = u + u²/4 for u ≤ 0.

    Parameters
    ----------
    Z : ndarray of shape (N, J) or None, default=None
        The margins, one row per sample (None: set the attribute ``Z`` later).

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import SquaredHingeMarginLoss
    >>> SquaredHingeMarginLoss(np.array([[1.0, 0.0], [0.0, 2.0]])).gradient(np.zeros(2)).tolist()
    [-2.0, -4.0]
    """

    smooth, cone = True, "SOC"
    margin_dual_domain = (-np.inf, 0.0)

    def margin_value(self, m):
        return np.maximum(0.0, 1.0 - m) ** 2

    def margin_derivative(self, m):
        return -2.0 * np.maximum(0.0, 1.0 - m)

    def margin_conjugate(self, u):
        return u + 0.25 * u * u

    def cvxpy_margin(self, m):
        import cvxpy as cp

        return cp.sum_squares(cp.pos(1 - m))


# --- penalties ----------------------------------------------------------------------------------
class Penalty:
    """Base class of penalties on w ≥ 0 (see the module docstring for what a penalty declares).

    Examples
    --------
    A penalty of your own declares what the solvers it wants need (here: ``value`` and ``prox``
    are enough for PROXGRAD and the certificate):

    >>> import numpy as np
    >>> from fsopt import Penalty
    >>> class Box(Penalty):                        # g = 0 on 0 ≤ w ≤ 1
    ...     def value(self, w):
    ...         return 0.0
    ...     def prox(self, v, step):
    ...         return np.clip(v, 0.0, 1.0)
    >>> Box().violation(np.array([0.5, 1.0]), np.array([0.0, -2.0])).tolist()   # optimal: 0, 0
    [0.0, 0.0]
    """

    separable = True
    n_features = None  # features the penalty is defined on (None: any number)
    nonneg = True  # C ⊂ {w ≥ 0}: cvxpy_form leaves w ≥ 0 to a nonneg Variable
    cone = None  # the hardest cone of cvxpy_form ("LP", "SOC", "EXP"; None: "EXP")
    smooth = None  # g differentiable on its feasible set: True, False, or None (where it declares gradient)

    def parameter(self, name, **kwargs):
        """A cvxpy Parameter holding the attribute ``name`` (refreshed by ``set_parameters``)."""
        import cvxpy as cp

        value = np.asarray(getattr(self, name), dtype=float)
        param = cp.Parameter(value.shape, name=name, value=value, **kwargs)
        self.__dict__.setdefault("parameters", {})[name] = param
        return param

    def set_parameters(self):
        for name, param in self.__dict__.get("parameters", {}).items():
            param.value = np.asarray(getattr(self, name), dtype=float)

    def violation(self, w, grad):
        """``abs(w − prox(w − grad, 1))`` per coordinate: 0 exactly where the optimality condition holds
        (for a group penalty, the group's condition shows on its coordinates).

        Parameters
        ----------
        w : ndarray of shape (J,)
            A point of the feasible set.
        grad : ndarray of shape (J,)
            The smooth loss's gradient at ``w``.

        Returns
        -------
        violation : ndarray of shape (J,)
        """
        return np.abs(w - self.prox(w - grad, 1.0))

    def infeasibility(self, w):
        return float(max(0.0, -np.min(w, initial=0.0)))

    def restrict(self, columns):
        """The penalty of ``w[columns]`` with every other coordinate held at 0 (what LOGO's working
        set solves).  The default serves a separable penalty defined on any number of features;
        any other penalty overrides it.

        Parameters
        ----------
        columns : ndarray of int
            The coordinates kept.

        Returns
        -------
        penalty : Penalty
        """
        if self.separable and self.n_features is None:
            return self
        raise NotImplementedError(f"{type(self).__name__} declares no restrict(columns)")

    def describe(self):
        return type(self).__name__


class NonnegL1(Penalty):
    """g(w) = λ‖w‖₁ on C = {w ≥ 0}: the penalty of LOGO's garrote (7).

    On C, g is linear with gradient λ1.

    Parameters
    ----------
    lam : float, default=1.0
        λ ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import NonnegL1
    >>> NonnegL1(lam=1.0).prox(np.array([3.0, 0.5, -1.0]), step=1.0).tolist()
    [2.0, 0.0, 0.0]
    >>> NonnegL1(lam=1.0).zero_slack(np.zeros(2), np.array([-2.0, 0.5])).tolist()  # j = 0 must enter
    [-1.0, 1.5]
    """

    box = (0.0, np.inf)
    smooth, cone = True, "LP"  # linear on C

    def __init__(self, lam=1.0):
        self.lam = float(lam)

    def describe(self):
        return f"lam={self.lam:g}"

    def value(self, w):
        return self.lam * float(np.abs(w).sum())

    def gradient(self, w):
        return np.full(w.shape, self.lam)

    def prox(self, v, step):
        """argmin_x step·g(x) + ½‖x − v‖² over x ≥ 0: max(v − step·λ, 0).

        Parameters
        ----------
        v : ndarray of shape (J,)
            The point to map.
        step : float
            The step size (> 0).

        Returns
        -------
        x : ndarray of shape (J,)
        """
        return np.maximum(v - step * self.lam, 0.0)

    def violation(self, w, grad):
        """``abs(w − prox(w − grad, 1))`` = |min(w, grad + λ)|, without the cancellation of the
        difference (which rounds to 0 where w_j ≫ |grad_j + λ|)."""
        return np.abs(np.minimum(w, grad + self.lam))

    def zero_slack(self, w, grad):
        """How far w_j = 0 stays optimal, per coordinate: grad_j + λ (< 0: feature j must enter).

        Parameters
        ----------
        w : ndarray of shape (J,)
            The current weights (unused: ℓ1 is separable).
        grad : ndarray of shape (J,)
            The smooth loss's gradient at ``w``.

        Returns
        -------
        slack : ndarray of shape (J,)
        """
        return grad + self.lam

    def cvxpy_form(self, w):
        import cvxpy as cp

        return self.parameter("lam", nonneg=True) * cp.sum(w), []

    def conjugate(self, v):
        """g*(v) = sup_{w ≥ 0} (v − λ)ᵀw: 0 on its domain {v ≤ λ}."""
        return 0.0

    def dual_scale(self, v):
        """The largest s ≤ 1 with s·v ≤ λ."""
        top = float(np.max(v, initial=0.0))
        return 1.0 if top <= self.lam else self.lam / top


class NonnegElasticNet(NonnegL1):
    """g(w) = λ‖w‖₁ + (μ/2)‖w‖₂² on C = {w ≥ 0}: an elastic-net garrote.

    prox: max(v − step·λ, 0) / (1 + step·μ); gradient on C: λ + μw; at w_j = 0 the ridge term
    has zero derivative, so zero_slack_j = grad_j + λ as for ℓ1.

    Parameters
    ----------
    lam : float, default=1.0
        λ ≥ 0, the weight of the ℓ1 term.
    mu : float, default=0.1
        μ ≥ 0, the weight of the ridge term.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import NonnegElasticNet
    >>> NonnegElasticNet(lam=1.0, mu=1.0).prox(np.array([3.0, 0.5]), step=1.0).tolist()
    [1.0, 0.0]
    """

    cone = "SOC"

    def __init__(self, lam=1.0, mu=0.1):
        super().__init__(lam)
        self.mu = float(mu)

    def describe(self):
        return f"lam={self.lam:g}, mu={self.mu:g}"

    def value(self, w):
        return super().value(w) + 0.5 * self.mu * float(w @ w)

    def gradient(self, w):
        return self.lam + self.mu * w

    def prox(self, v, step):
        return super().prox(v, step) / (1.0 + step * self.mu)

    def violation(self, w, grad):
        """``abs(w − prox(w − grad, 1))``: (μw + grad + λ) / (1 + μ) where w > grad + λ, else w."""
        slack = grad + self.lam
        return np.abs(np.where(w > slack, (self.mu * w + slack) / (1.0 + self.mu), w))

    def cvxpy_form(self, w):
        import cvxpy as cp

        l1, constraints = super().cvxpy_form(w)
        return l1 + 0.5 * self.parameter("mu", nonneg=True) * cp.sum_squares(w), constraints

    def conjugate(self, v):
        """g*(v) = Σ_j max(0, v_j − λ)² / (2μ) (μ > 0; for μ = 0, ℓ1's)."""
        excess = np.maximum(np.asarray(v) - self.lam, 0.0)
        return float(excess @ excess) / (2.0 * self.mu) if self.mu > 0 else 0.0

    def dual_scale(self, v):
        return 1.0 if self.mu > 0 else super().dual_scale(v)


class NonnegL1Ball(Penalty):
    """C = {w ≥ 0, ‖w‖₁ ≤ β}, g = 0 on C: the budget of LOGO's form (8).

    prox: the Euclidean projection onto C (any step).  At the optimum, with ν ≥ 0 the budget's
    multiplier, grad_j + ν = 0 where w_j > 0 and grad_j + ν ≥ 0 where w_j = 0; ν is read from the
    coordinates with w_j > 0 (ν = max(0, −Σ w_j grad_j / Σ w_j)), so zero_slack_j = grad_j + ν
    needs those coordinates' exact gradient (not separable).

    Parameters
    ----------
    beta : float, default=1.0
        The budget β > 0.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import NonnegL1Ball
    >>> NonnegL1Ball(beta=1.0).prox(np.array([2.0, 1.0, -1.0]), step=1.0).tolist()  # onto the budget
    [1.0, 0.0, 0.0]
    """

    separable = False
    smooth, cone = True, "LP"  # g = 0 on C

    def __init__(self, beta=1.0):
        self.beta = float(beta)

    def describe(self):
        return f"beta={self.beta:g}"

    def value(self, w):
        return 0.0

    def prox(self, v, step):
        p = np.maximum(v, 0.0)
        if p.sum() <= self.beta:
            return p
        return project_simplex(v, self.beta)

    def multiplier(self, w, grad):
        """ν, the budget's multiplier: −grad averaged with weights w (so coordinates a solver left
        barely positive do not count), at least 0."""
        total = float(np.sum(np.maximum(w, 0.0)))
        return max(0.0, -float(np.maximum(w, 0.0) @ grad) / total) if total > 0 else 0.0

    def zero_slack(self, w, grad):
        return grad + self.multiplier(w, grad)

    def infeasibility(self, w):
        return max(super().infeasibility(w), float(np.sum(w) - self.beta))

    def restrict(self, columns):
        return self  # the same budget on any subset of the coordinates

    def cvxpy_form(self, w):
        import cvxpy as cp

        return cp.Constant(0.0), [cp.sum(w) <= self.parameter("beta", nonneg=True)]

    def conjugate(self, v):
        """g*(v) = sup_{w ≥ 0, Σw ≤ β} vᵀw = β max(0, max_j v_j)."""
        return self.beta * float(np.max(v, initial=0.0))

    def dual_scale(self, v):
        return 1.0


class NonnegGroupL1(Penalty):
    """g(w) = Σ_g λ_g‖w_g‖₂ on C = {w ≥ 0}: a group (nonnegative) garrote.

    prox (Yu 2013, prox of a norm plus an orthant): u = max(v, 0), then per group
    x_g = (1 − step·λ_g/‖u_g‖₂)₊ u_g.
    zero_slack_j: the smallest derivative of gradᵀx + g(x) along a unit direction d ≥ 0 that
    moves j's group (if w_g = 0) or j alone (otherwise): for w_g = 0, λ_g − ‖(−grad_g)₊‖₂ when
    some grad_k < 0 in g, else λ_g + min_g grad_k (w_g = 0 is optimal iff ‖(−grad_g)₊‖₂ ≤ λ_g);
    for w_g ≠ 0, grad_j (the subgradient λ_g w_j/‖w_g‖ vanishes at w_j = 0).

    Parameters
    ----------
    lam : float or array-like of shape (n_groups,)
        One λ ≥ 0 for every group, or one per group (λ√|g| is a common choice).
    groups : list of array-like of int, or array-like of shape (J,)
        Disjoint index arrays covering 0..J−1, or one group label per feature.

    Examples
    --------
    >>> import numpy as np
    >>> from fsopt import NonnegGroupL1
    >>> penalty = NonnegGroupL1(lam=1.0, groups=[0, 0, 1])      # features 0 and 1 form a group
    >>> np.round(penalty.prox(np.array([3.0, 4.0, 0.5]), step=1.0), 12).tolist()  # (1 − 1/5)·(3, 4); 0.5 → 0
    [2.4, 3.2, 0.0]
    """

    separable = False
    smooth, cone = False, "SOC"  # a kink where a group is 0

    def __init__(self, lam, groups):
        self.labels = _group_labels(groups)
        self.n_features = self.labels.size
        n_groups = int(self.labels.max(initial=-1)) + 1
        lam = np.asarray(lam, dtype=float)
        if lam.ndim == 0:
            lam = np.full(n_groups, float(lam))
        if lam.shape != (n_groups,) or not np.all(np.isfinite(lam)) or np.any(lam < 0):
            raise ValueError(f"lam must be a nonnegative number or one per group ({n_groups}); "
                             f"got shape {lam.shape}")
        self.lam = lam

    def describe(self):
        return f"{self.lam.size} groups, lam in [{self.lam.min():g}, {self.lam.max():g}]"

    def _norms(self, w):
        return np.sqrt(np.bincount(self.labels, weights=w * w, minlength=self.lam.size))

    def value(self, w):
        return float(self.lam @ self._norms(w))

    def prox(self, v, step):
        u = np.maximum(v, 0.0)
        norms = self._norms(u)
        with np.errstate(divide="ignore", invalid="ignore"):
            shrink = np.where(norms > 0, np.maximum(1.0 - step * self.lam / norms, 0.0), 0.0)
        return u * shrink[self.labels]

    def zero_slack(self, w, grad):
        descent = self._norms(np.maximum(-grad, 0.0))
        smallest = np.full(self.lam.size, np.inf)
        np.minimum.at(smallest, self.labels, grad)
        group = self.lam + np.where(descent > 0, -descent, smallest)
        zero_group = self._norms(w) == 0
        return np.where(zero_group[self.labels], group[self.labels], grad)

    def restrict(self, columns):
        columns = np.asarray(columns)
        kept = self.labels[columns]
        present, labels = np.unique(kept, return_inverse=True)
        return NonnegGroupL1(self.lam[present], labels)

    def cvxpy_form(self, w):
        import cvxpy as cp

        lam = self.parameter("lam", nonneg=True)
        norms = cp.hstack([cp.norm(w[np.flatnonzero(self.labels == g)], 2) for g in range(self.lam.size)])
        return lam @ norms, []

    def conjugate(self, v):
        """g*(v) = 0 on its domain {‖(v_g)₊‖₂ ≤ λ_g for every group}."""
        return 0.0

    def dual_scale(self, v):
        norms = self._norms(np.maximum(v, 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(norms > self.lam, self.lam / norms, 1.0)
        return float(np.min(ratios, initial=1.0))


def _group_labels(groups):
    """One group label 0..G−1 per feature from a label array or a list of index arrays."""
    if isinstance(groups, (list, tuple)) and groups and np.ndim(groups[0]) == 1:
        sizes = [len(g) for g in groups]
        index = np.concatenate([np.asarray(g, dtype=int) for g in groups])
        J = index.size
        if np.any(np.sort(index) != np.arange(J)):
            raise ValueError("groups must be disjoint index arrays covering every feature 0..J-1 once")
        labels = np.empty(J, dtype=int)
        labels[index] = np.repeat(np.arange(len(groups)), sizes)
        return labels
    values = np.asarray(groups)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("groups must be a list of index arrays or one label per feature")
    return np.unique(values, return_inverse=True)[1].astype(int)


def project_simplex(v, radius):
    """Projection onto {x ≥ 0, Σx = radius} (sort-based, Held et al.)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - radius
    k = np.arange(1, v.size + 1)
    positive = np.flatnonzero(u - css / k > 0)  # k = 1 is radius > 0, unless rounding hides a tiny radius
    rho = positive[-1] if positive.size else 0
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


# --- smoothness ---------------------------------------------------------------------------------
CONES = ("LP", "SOC", "EXP")  # easiest first
PROBE_MARGINS = np.unique(np.concatenate([np.linspace(-10.0, 10.0, 4001), np.geomspace(10.0, 1e4, 301),
                                          -np.geomspace(10.0, 1e4, 301)]))
JUMP_RTOL = 1e-6  # a change of ℓ' that survives halving its interval to adjacent floats, relative to max|ℓ'|


def hardest_cone(*parts) -> str:
    """The hardest of the parts' declared cones (one that declares none counts as "EXP")."""
    return max((getattr(p, "cone", None) or "EXP" for p in parts), key=CONES.index)


def derivative_jump(derivative, points=PROBE_MARGINS, candidates=16, halvings=64):
    """(jump, where): the largest change of ``derivative`` left when the intervals of ``points``
    where it changes most are each halved ``halvings`` times toward their larger change.  A
    Lipschitz derivative's change shrinks with the interval (to rounding here); a kink's jump
    does not."""
    d = np.broadcast_to(np.asarray(derivative(points), dtype=float), points.shape)
    change = np.abs(np.diff(d))
    change[~np.isfinite(change)] = 0.0
    top = np.argsort(change)[-candidates:]
    a, b, da, db = points[top], points[top + 1], d[top], d[top + 1]
    for _ in range(halvings):
        mid = 0.5 * (a + b)
        dm = np.broadcast_to(np.asarray(derivative(mid), dtype=float), mid.shape)
        left = np.abs(dm - da) >= np.abs(db - dm)  # keep the half where it changes more
        a, da = np.where(left, a, mid), np.where(left, da, dm)
        b, db = np.where(left, mid, b), np.where(left, dm, db)
    jumps = np.abs(db - da)
    jumps[~np.isfinite(jumps)] = 0.0
    k = int(np.argmax(jumps))
    scale = max(1.0, float(np.max(np.abs(d[np.isfinite(d)]), initial=0.0)))
    return float(jumps[k]) / scale, float(0.5 * (a[k] + b[k]))


def nonsmooth_reason(loss) -> str:
    """Why ``loss`` is not smooth ("" if it is): its ``smooth`` declaration, or, when it declares
    none (None) and has a ``margin_derivative``, a jump of ℓ' found by :func:`derivative_jump` on
    margins in [−1e4, 1e4] (kept on the loss: its copies by ``with_margins`` keep it too)."""
    declared = getattr(loss, "smooth", True) if loss is not None else True
    name = type(loss).__name__
    if declared is not None:
        return "" if declared else f"{name} is not smooth (it declares smooth = False)"
    if not _declares(loss, "margin_derivative") or _placeholder(loss, "margin_derivative"):
        return ""  # nothing to probe: the parts it lacks are named where they are needed
    cached = getattr(loss, "__dict__", {}).get("_smoothness_probe")
    if cached is None:
        try:
            with np.errstate(all="ignore"):  # a steep loss overflows far out: those points are skipped
                jump, where = derivative_jump(loss.margin_derivative)
        except Exception as exc:  # noqa: BLE001 - whatever the user's derivative raised is reported
            raise UnreadablePart("smooth", "margin_derivative", loss, exc) from exc
        cached = "" if jump <= JUMP_RTOL else (
            f"{name} is not smooth: it does not declare smooth, and its margin_derivative jumps by "
            f"{jump:.3g} (relative to its largest value) at m = {where:.6g}")
        if hasattr(loss, "__dict__"):
            loss.__dict__["_smoothness_probe"] = cached
    return cached


# --- what a composite subproblem gets from its parts --------------------------------------------
LOSS_DUAL = "loss_dual"  # a solution's claimed dual of the loss's argument (the margins): a start only
GAP_NEEDS = {"smooth": ("value", "conjugate", "adjoint", "dual_claim", "clip_dual"),
             "penalty": ("value", "conjugate", "dual_scale")}


def composite_certificate(smooth, penalty, w, dual=None, tol=None) -> dict:
    """NumPy optimality of w for min f + g.  A smooth f: the largest ``penalty.violation`` (by
    default the proximal KKT residual ‖w − prox_g(w − ∇f(w), 1)‖∞, zero exactly at the optimum)
    and the distance to the feasible set.  An f that is not smooth (:func:`nonsmooth_reason`):
    the duality gap of :func:`duality_gap`, from the claimed ``dual`` if any.

    With ``tol`` (the subproblem's certificate tolerance), where 0 is feasible, a w whose objective
    is above f(0) + g(0) by more than tol · max(1, |f(0) + g(0)|) is refuted (``refuted`` 1, by how
    much in ``objective_above_zero``; the residual is kept): every minimizer lies below it, whatever
    a residual that rounds to 0 where w ≫ ∇f, or a tolerance relative to max w, would say of a warm
    start of 1e20."""
    if nonsmooth_reason(smooth):
        return duality_gap(smooth, penalty, w, dual)
    zero = np.zeros_like(w, dtype=float)
    refutable = tol is not None and float(np.max(w, initial=0.0)) > 0 and penalty.infeasibility(zero) == 0
    if refutable:  # f(0) first: a loss that keeps its last margins then has w's for the gradient and f(w)
        with np.errstate(all="ignore"):
            at_zero = smooth.value(zero) + penalty.value(zero)
    infeasible = float(penalty.infeasibility(w))  # (a prox residual sees a budget's excess spread thin)
    measures = {"residual": max(float(np.max(penalty.violation(w, smooth.gradient(w)), initial=0.0)), infeasible),
                "primal_infeasibility": infeasible}
    if refutable:
        with np.errstate(all="ignore"):
            excess = smooth.value(w) + penalty.value(w) - at_zero
        if not excess <= tol * max(1.0, abs(at_zero)):  # (NaN: refuted too)
            measures.update(objective_above_zero=float(excess), refuted=1.0)
    return measures


def duality_gap(smooth, penalty, w, claim=None) -> dict:
    """The Fenchel duality gap of w for min_w L(Aw) + g(w), all in NumPy:

        P(w) − D(u) ≥ P(w) − P*,    D(u) = −L*(u) − g*(−Aᵀu),

    valid for every u with L*(u) and g*(−Aᵀu) finite.  u starts from ``claim`` (a solver's dual)
    or ``smooth.dual_claim(w)``, is clipped into L*'s domain (``smooth.clip_dual``) and scaled by
    ``penalty.dual_scale(−Aᵀu)`` into g*'s (both domains hold 0), so D(u) is a true lower bound
    whatever the claim was.  ``residual``: max(|gap| / max(1, |P(w)|), distance of w to the
    feasible set) — a negative gap beyond rounding (an infeasible w) fails it too."""
    primal = smooth.value(w) + penalty.value(w)
    u = smooth.dual_claim(w) if claim is None else np.asarray(claim, dtype=float)
    u = smooth.clip_dual(u)
    scale = penalty.dual_scale(-smooth.adjoint(u))
    u = scale * u
    dual = -smooth.conjugate(u) - penalty.conjugate(-smooth.adjoint(u))
    gap = primal - dual
    infeasible = float(penalty.infeasibility(w))
    return {"residual": max(abs(gap) / max(1.0, abs(primal)), infeasible) if np.isfinite(gap) else np.inf,
            "duality_gap": float(gap), "dual_objective": float(dual), "dual_scale": float(scale),
            "primal_infeasibility": infeasible}


SMOOTH_NEEDS = ("value", "gradient", "n_features")
PENALTY_NEEDS = ("value", "prox")
class UnreadablePart(TypeError):
    """A part declares the attribute asked for, but reading it raised (e.g. a property that needs
    data the subproblem does not hold yet); the error is chained (``__cause__``)."""

    def __init__(self, part, name, obj, error):
        self.part, self.name = part, name
        super().__init__(f"reading {part}.{name} ({type(obj).__name__}.{name}) raised "
                         f"{type(error).__name__}: {error}")


def undeclared(part, obj, needs) -> list[str]:
    """``part`` itself if ``obj`` is None, else ``part.<name>`` for each of ``needs`` it does not
    declare.  Each is read; one that ``obj`` declares (on itself or its class) but whose reading
    raises is not called missing: :class:`UnreadablePart` is raised from the error.  A base
    class's :func:`placeholder` is not a declaration, and a part derived from others
    (``obj.derived_from``, e.g. a :class:`MarginLoss`'s gradient from ``margin_derivative``) is
    declared when they are: the missing one is named."""
    if obj is None:
        return [part]
    missing = []
    derived = _static_attribute(obj, "derived_from", {})
    for name in needs:
        try:
            getattr(obj, name)
        except Exception as exc:  # noqa: BLE001 - whatever the user's property raised is reported
            if not _declares(obj, name):
                missing.append(f"{part}.{name}")
                continue
            raise UnreadablePart(part, name, obj, exc) from exc
        if _placeholder(obj, name):
            missing.append(f"{part}.{name}")
            continue
        missing += [f"{part}.{piece} (for {part}.{name})" for piece in derived.get(name, ())
                    if not _declares(obj, piece) or _placeholder(obj, piece)]
    return list(dict.fromkeys(missing))


def _declares(obj, name) -> bool:
    """Whether ``obj`` or its class defines ``name``, found without running any property."""
    return _static_attribute(obj, name, _ABSENT) is not _ABSENT


def _placeholder(obj, name) -> bool:
    """Whether ``name`` is a base class's :func:`placeholder`, not defined by ``obj``'s class."""
    return getattr(_static_attribute(obj, name, None), "undeclared", False) is True


_ABSENT = object()


def _static_attribute(obj, name, default):
    """``inspect.getattr_static(obj, name, default)`` for an instance, without running any property
    or ``__getattr__``, at a fraction of its cost (every solve asks it of its parts): the instance's
    ``__dict__`` unless a data descriptor of its class wins, then its classes in method order."""
    if isinstance(obj, type):
        return inspect.getattr_static(obj, name, default)
    found = _ABSENT
    for klass in type(obj).__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            break
    try:
        own = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        own = {}
    data_descriptor = found is not _ABSENT and (hasattr(type(found), "__set__") or hasattr(type(found), "__delete__"))
    if name in own and not data_descriptor:
        return own[name]
    return default if found is _ABSENT else found


def missing_parts(subproblem, smooth=SMOOTH_NEEDS, penalty=PENALTY_NEEDS) -> list[str]:
    """The parts ``subproblem`` does not declare among ``smooth.<name>`` and ``penalty.<name>``
    (inside :func:`parts_held`, each question is answered once)."""
    parts = getattr(subproblem, "smooth", None), getattr(subproblem, "penalty", None)
    held = _HELD.get()
    key = (id(subproblem), id(parts[0]), id(parts[1]), tuple(smooth), tuple(penalty))  # (a user's needs: lists too)
    if held is not None and key in held:
        return list(held[key][-1])
    missing = [*undeclared("smooth", parts[0], smooth), *undeclared("penalty", parts[1], penalty)]
    if held is not None:  # the objects kept with the answer: no id is reused while it is held
        held[key] = (subproblem, *parts, tuple(missing))
    return missing


_HELD = contextvars.ContextVar("fsopt_parts_held", default=None)


@contextlib.contextmanager
def parts_held():
    """Within: the subproblems' declared parts do not change (one solve), so :func:`missing_parts`
    reads each part's attributes once per question.  A solve asks 10-20 of them (the capability
    of each solver of its chain, the certificate, the objective), about 10 µs each: 0.15 ms a
    solve with LOGO's chain of five, whatever its size (``benchmarks/solve_overhead.py``: N × columns
    300 × 8 0.49 → 0.34 ms, 150 × 30 0.54 → 0.39, 460 × 200 1.59 → 1.43)."""
    token = _HELD.set({} if _HELD.get() is None else _HELD.get())
    try:
        yield
    finally:
        _HELD.reset(token)


def from_parts(method):
    """Mark a subproblem's method that, like the base class's, works from the declared parts."""
    method.from_parts = True
    return method


def generic_needs(subproblem, conic, nonsmooth=False) -> dict:
    """The parts the subproblem's methods that work from its parts read: the NumPy objective
    (``value``), the certificate (a smooth loss: the KKT residual's ``gradient`` and ``prox``; one
    that is not: :data:`GAP_NEEDS`) and, for a ``conic`` backend, the cvxpy model (``cvxpy_form``).
    A method the subproblem's class defines itself reads whatever it reads: nothing is asked."""
    def generic(name):  # the base class's (found by name: fsopt.core.subproblem imports this module)
        method = getattr(type(subproblem), name, None)
        return getattr(method, "from_parts", False) or (
            getattr(method, "__module__", "") == "fsopt.core.subproblem"
            and getattr(method, "__qualname__", "") == f"Subproblem.{name}")

    needs = {"smooth": [], "penalty": []}
    if generic("objective"):
        needs["smooth"].append("value")
        needs["penalty"].append("value")
    if generic("certificate"):
        certificate = GAP_NEEDS if nonsmooth else {"smooth": ("gradient",), "penalty": PENALTY_NEEDS}
        for part, names in certificate.items():
            needs[part] += names
    if conic and generic("_build"):
        needs["smooth"].append("cvxpy_form")
        needs["penalty"].append("cvxpy_form")
    return {part: tuple(dict.fromkeys(names)) for part, names in needs.items()}


SMOOTH_LOSSES = "SquaredHingeMarginLoss or LogisticMarginLoss"


def parts_refusal(subproblem, backend) -> str:
    """Why ``backend`` cannot take ``subproblem``'s declared parts ("" if it can): a loss that is
    not smooth offered to a native backend (one that does not declare ``takes_nonsmooth``: it
    follows a gradient), or a part the subproblem's generic methods read that is not declared —
    named before any work, with what to use instead."""
    if getattr(subproblem, "smooth", None) is None and getattr(subproblem, "penalty", None) is None:
        return ""  # no parts declared: the subproblem's own methods read its own data
    nonsmooth = nonsmooth_reason(subproblem.smooth)
    if nonsmooth and backend.native and not getattr(backend, "takes_nonsmooth", False):
        return (f"{nonsmooth}; {backend.name} follows a gradient, and a loss that is not smooth has "
                f"none where it has a kink: use a solver that takes its cvxpy form (e.g. "
                f"solver='CLARABEL', or 'HIGHS' for an LP), or a smooth loss ({SMOOTH_LOSSES})")
    missing = missing_parts(subproblem, **generic_needs(subproblem, not backend.native, bool(nonsmooth)))
    if not missing:
        return ""
    why = (f" ({nonsmooth}: it is certified by a duality gap, which reads conjugates; declare them, e.g. "
           f"margin_conjugate and margin_dual_domain, or use a built-in loss: HingeMarginLoss, "
           f"{SMOOTH_LOSSES})") if nonsmooth else ""
    return f"{type(subproblem).__name__} declares no {', '.join(missing)}{why}"
