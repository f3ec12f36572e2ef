"""What a fit's "converged" rests on: a certificate of the fit, as each solve carries its own.

A fixed-point fit is certified when
(a) its fixed-point residual θ_t = ‖T(x) − x‖ / ‖T(x)‖ at the last evaluated point x is below θ
    (the returned answer is T(x), a certified solve, never an extrapolated point), and
(b) the optimality conditions of the last subproblem hold over **all** the features at the
    statistics it was solved at — measured from the subproblem's declared parts by the method
    (:meth:`fsopt.core.driver.FixedPointMethod.certificate`), not only over the features a working
    set held.
It also says who answered: each solve of the fit counted by :attr:`SolveRecord.answered_by`
(the named solver's own certified answer, refined, polished, or a fallback).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

ANSWERS = ("solver", "refined", "polished", "fallback")  # SolveRecord.answered_by, in this order


def count_answers(records) -> dict:
    """How many of ``records`` each kind of answer gave (:data:`ANSWERS`, all present)."""
    counts = Counter(r.answered_by for r in records)
    return {kind: counts.get(kind, 0) for kind in ANSWERS}


def tally_answers(records) -> dict:
    """Solves counted by (the solver asked, :attr:`SolveRecord.answered_by`, the solver that gave
    the certified answer), in the order first met."""
    return dict(Counter(((r.attempts[0] if r.attempts else r).solver, r.answered_by, r.solver)
                        for r in records))


def asked_solvers(records) -> list[str]:
    """The solvers the records were first asked of (the named one first), without repeats."""
    return list(dict.fromkeys((r.attempts[0] if r.attempts else r).solver for r in records))


@dataclass
class FitCertificate:
    """The certificate of one fit.

    Parameters
    ----------
    fixed_point_residual : float
        θ_t at the last iteration (the returned answer is that solve).
    theta : float
        The threshold it must be below.
    kkt_residual : float, default=nan
        The largest violation of the last subproblem's optimality conditions over
        ``n_features`` features at the statistics it was solved at (nan: the method measures
        none, and (b) is then not claimed).
    kkt_bound : float, default=nan
        The bound ``kkt_residual`` must not exceed.
    n_features : int, default=0
        The features the KKT conditions were measured over.
    answers : dict
        Solves counted by :attr:`SolveRecord.answered_by` ("solver", "refined", "polished",
        "fallback").
    solvers : list of str
        The solvers asked, the named one first.
    tally : dict
        Solves counted by (solver asked, kind of answer, solver that answered)
        (:func:`tally_answers`); what ``describe`` reports.

    Examples
    --------
    >>> from fsopt.core.fit_certificate import FitCertificate
    >>> c = FitCertificate(0.004, 0.01, 2e-7, 1e-4, 5000, {"solver": 7, "refined": 0, "polished": 0,
    ...                    "fallback": 0}, ["LBFGSB"])
    >>> c.holds, c.failed
    (True, [])
    """

    fixed_point_residual: float
    theta: float
    kkt_residual: float = float("nan")
    kkt_bound: float = float("nan")
    n_features: int = 0
    answers: dict = field(default_factory=dict)
    solvers: list = field(default_factory=list)
    tally: dict = field(default_factory=dict)

    @property
    def fixed_point_holds(self) -> bool:
        return bool(self.fixed_point_residual < self.theta) or self.theta == 0

    @property
    def kkt_measured(self) -> bool:
        return not np.isnan(self.kkt_residual)

    @property
    def kkt_holds(self) -> bool:
        return not self.kkt_measured or bool(self.kkt_residual <= self.kkt_bound)

    @property
    def holds(self) -> bool:
        return self.fixed_point_holds and self.kkt_holds

    @property
    def failed(self) -> list[str]:
        """The names of the conditions that do not hold: "fixed point", "kkt"."""
        return [name for name, ok in (("fixed point", self.fixed_point_holds), ("kkt", self.kkt_holds))
                if not ok]

    @property
    def own_answers(self) -> int:
        return self.answers.get("solver", 0) + self.answers.get("refined", 0)

    def describe(self) -> str:
        """Two lines for a person: the certificate, then who answered."""
        fp = ("a fixed number of passes (no fixed point claimed)" if self.theta == 0 else
              f"fixed-point residual {self.fixed_point_residual:.3g} "
              f"{'<' if self.fixed_point_holds else '>='} theta {self.theta:g}")
        kkt = ("each solve certified on its own (no measurement over all features)" if not self.kkt_measured else
               f"KKT residual over all {self.n_features} features {self.kkt_residual:.3g} "
               f"{'<=' if self.kkt_holds else '>'} {self.kkt_bound:.3g}")
        return (f"certificate: {'holds' if self.holds else 'FAILS (' + ', '.join(self.failed) + ')'}: "
                f"{fp}; {kkt}\n"
                f"answers: {self.describe_answers()}")

    def describe_answers(self) -> str:
        """Who answered, per solver asked: e.g. "10 of 12 solves were LBFGSB's own certified
        answers (2 of them after a tighter re-solve), 1 came from its native polish, 1 from the
        CLARABEL fallback"."""
        if not self.tally:  # a certificate made without the records: the counts only
            total = sum(self.answers.values())
            named = self.solvers[0] if self.solvers else "the solver"
            return f"{self.own_answers} of {total} solves were {named}'s own certified answers"
        parts = []
        for asked in dict.fromkeys(key[0] for key in self.tally):
            mine = {(kind, by): n for (a, kind, by), n in self.tally.items() if a == asked}
            own = sum(n for (kind, _), n in mine.items() if kind in ("solver", "refined"))
            text = f"{own} of {sum(mine.values())} solves were {asked}'s own certified answers"
            refined = sum(n for (kind, _), n in mine.items() if kind == "refined")
            text += f" ({refined} of them after a tighter re-solve)" if refined else ""
            polished = sum(n for (kind, _), n in mine.items() if kind == "polished")
            others = [f"{polished} came from its native polish"] if polished else []
            others += [f"{n} from the {by} fallback" for (kind, by), n in mine.items() if kind == "fallback"]
            parts.append(", ".join([text, *others]))
        return "; ".join(parts)
