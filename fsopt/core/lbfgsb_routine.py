"""SciPy's L-BFGS-B routine (Byrd, Lu, Nocedal & Zhu 1995) driven directly, without
``scipy.optimize.minimize``'s wrappers.

The loop is the one ``minimize(method="L-BFGS-B")`` runs — the same calls to the same routine
(``scipy.optimize._lbfgsb.setulb``, SciPy's C translation since 1.15) with the same arguments, so
the iterates are the same bit for bit (tested against ``minimize``) — minus the per-evaluation
bookkeeping of SciPy's ``ScalarFunction`` and its per-coordinate Python loop over the bounds.
Inside a LOGO fit those took about 40 µs of each evaluation of a few hundred coordinates
(Fermat spiral, 1.75 turns, seed 1, J = 20,000: the solves 1.30 → 1.00 s of a 4.2 s fit, the
weights unchanged).  The routine is private to SciPy: the direct loop runs only on the versions
it was checked against (``DIRECT``); on any other, ``minimize`` runs instead, with the same result.
"""
from __future__ import annotations

import numpy as np
import scipy
from scipy.optimize import Bounds, OptimizeResult, minimize

_CHECKED = ((1, 15), (1, 17))  # SciPy versions (major, minor) whose setulb the loop was checked against


def _direct_routine():
    """scipy.optimize._lbfgsb.setulb when this SciPy is one the loop was checked against, else None."""
    try:
        version = tuple(int(part) for part in scipy.__version__.split(".")[:2])
        from scipy.optimize import _lbfgsb
    except (ValueError, ImportError):
        return None
    return _lbfgsb.setulb if _CHECKED[0] <= version <= _CHECKED[1] else None


DIRECT = _direct_routine()
_NEW_X, _FG = 1, 3  # the routine's requests (task[0]): a new iterate; f and g at x


def minimize_on_box(fun, x0, lower, upper, memory=10, gtol=1e-5, ftol=2.2e-9, max_iter=15000,
                    max_fun=15000, max_ls=20, stop=None):
    """min fun(x) over lower ≤ x ≤ upper (scalars or arrays, ±inf for none), ``fun(x) → (f, ∇f)``.

    Parameters as ``minimize(method="L-BFGS-B")``'s options: ``memory`` (maxcor), ``gtol``,
    ``ftol``, ``max_iter`` (maxiter), ``max_fun`` (maxfun), ``max_ls`` (maxls); ``stop(x)``, if
    given, is asked at every new iterate and ends the run when it returns True (a stopping test
    of the caller's own, e.g. its certificate; ``success`` is then True).

    Returns
    -------
    result : OptimizeResult
        ``x``, ``fun``, ``jac``, ``nit``, ``nfev`` and ``success`` (the routine's own convergence
        test held), as ``minimize`` gives them.
    """
    x0 = np.asarray(x0, dtype=np.float64).ravel()
    if DIRECT is None:
        stopped = []

        def callback(intermediate_result):
            if stop(intermediate_result.x):
                stopped.append(True)
                raise StopIteration

        res = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=Bounds(lower, upper),
                       callback=None if stop is None else callback,
                       options={"maxcor": memory, "gtol": gtol, "ftol": ftol, "maxiter": max_iter,
                                "maxfun": max_fun, "maxls": max_ls})
        res.success = bool(res.success or stopped)
        return res
    n = x0.size
    lower = np.broadcast_to(np.asarray(lower, dtype=np.float64), (n,))
    upper = np.broadcast_to(np.asarray(upper, dtype=np.float64), (n,))
    has_lower, has_upper = np.isfinite(lower), np.isfinite(upper)
    # the routine's bound codes: 0 none, 1 lower only, 2 both, 3 upper only
    nbd = np.where(has_lower, np.where(has_upper, 2, 1), np.where(has_upper, 3, 0)).astype(np.int32)
    low, high = np.where(has_lower, lower, 0.0), np.where(has_upper, upper, 0.0)
    x = np.clip(x0, lower, upper)
    f, g = np.array(0.0), np.zeros(n)
    wa = np.zeros(2 * memory * n + 5 * n + 11 * memory * memory + 8 * memory)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task, ln_task = np.zeros(2, dtype=np.int32), np.zeros(2, dtype=np.int32)
    lsave, isave, dsave = np.zeros(4, dtype=np.int32), np.zeros(44, dtype=np.int32), np.zeros(29)
    factr = ftol / np.finfo(float).eps
    nit = nfev = 0
    last = None  # (x, f, g) of the last evaluation: the routine may ask again at the same x
    while True:
        DIRECT(memory, x, low, high, nbd, f, g, factr, gtol, wa, iwa, task, lsave, isave, dsave,
               max_ls, ln_task)
        if task[0] == _FG:
            if last is None or not np.array_equal(last[0], x):
                value, grad = fun(x.copy())
                last = (x.copy(), float(value), np.array(grad, dtype=np.float64))
                nfev += 1
            f, g = last[1], last[2].copy()
        elif task[0] == _NEW_X:
            nit += 1
            if stop is not None and stop(x.copy()):
                return OptimizeResult(x=x, fun=f, jac=g, nit=nit, nfev=nfev, success=True)
            if nit >= max_iter or nfev > max_fun:  # stop, with minimize's reason code
                task[0], task[1] = 5, 504 if nit >= max_iter else 502
        else:
            break
    return OptimizeResult(x=x, fun=f, jac=g, nit=nit, nfev=nfev, success=bool(task[0] == 4))
