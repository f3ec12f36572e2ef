"""``fsopt verify --mutants``: plant each registered bug (:func:`fsopt.verify.planted_bug`, in
``fsopt/<method>/bugs.py``, a plugin or ``--checks PATH``) and run the checks it names.

A cell is *caught* when the check passes on clean code and fails under the bug.  What caught it:
``m`` the check's own measurement (a condition of its :class:`~fsopt.verify.Margins`), ``c``
the certificate policy (a rejected certificate: ``SolverFailed`` or a rejected solve counted),
``e`` another exception the bug caused.  Every solve runs without refinement (see
:func:`fsopt.tools.verify.raw_solves`), so the policy does not repair the planted bug.  The
table is ``ok`` when every bug is caught and every check run catches at least one bug by its own
measurement.  ``exhaustive`` runs every bug against every check.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import verify

MEASUREMENT, CERTIFICATE, ERROR, MISSED = "m", "c", "e", "."


@dataclass
class Table:
    bugs: list
    checks: list
    cells: dict = field(default_factory=dict)  # (bug, check) -> MEASUREMENT / CERTIFICATE / ERROR / MISSED
    baseline: dict = field(default_factory=dict)  # check -> clean Result
    refined: set = field(default_factory=set)  # checks run with refinement (_needs_refinement)

    def caught_by(self, bug) -> dict:
        """{check name: how} for the checks that caught ``bug``."""
        return {c.name: self.cells[(bug.name, c.name)] for c in self.checks
                if self.cells.get((bug.name, c.name), MISSED) != MISSED}

    def measured(self, bug) -> bool:
        return MEASUREMENT in self.caught_by(bug).values()

    def measures(self, chk) -> bool:
        return any(self.cells.get((b.name, chk.name)) == MEASUREMENT for b in self.bugs)

    @property
    def ok(self) -> bool:
        """Every bug caught (a bug caught only by the certificate policy is reported as such) and
        every check catches one by its own measurement."""
        return all(self.caught_by(b) for b in self.bugs) and all(map(self.measures, self.checks))

    def format(self) -> str:
        cols = [c.name for c in self.checks]
        width = max(len(b.name) for b in self.bugs) + 2
        lines = ["checks: " + "; ".join(f"{i + 1} = {n}" for i, n in enumerate(cols)),
                 " " * width + " ".join(f"{i + 1:>3}" for i in range(len(cols))) + "   caught by"]
        for b in self.bugs:
            row = [self.cells.get((b.name, n), "") for n in cols]
            how = self.caught_by(b)
            said = ("measurement: " + ", ".join(n for n, k in how.items() if k == MEASUREMENT)
                    if self.measured(b) else
                    "certificate policy only (SolverFailed): " + ", ".join(how) if how else "NOT CAUGHT")
            lines.append(f"{b.name:<{width}}" + " ".join(f"{r:>3}" for r in row) + f"   {said}")
        lines.append("m caught by the check's measurement, c by the certificate policy (a rejected "
                     "certificate), e by another exception, . not caught, blank not run")
        unmeasured = [c.name for c in self.checks if not self.measures(c)]
        caught, measured = sum(bool(self.caught_by(b)) for b in self.bugs), sum(map(self.measured, self.bugs))
        if self.refined:
            lines.append(f"run with refinement (their clean run fails without it): {', '.join(sorted(self.refined))}")
        lines.append(f"bugs caught: {caught} of {len(self.bugs)} ({measured} by a check's measurement, "
                     f"{caught - measured} by the certificate policy only); checks that catch none by "
                     f"their measurement: {len(unmeasured)}" + (f" ({', '.join(unmeasured)})" if unmeasured else ""))
        return "\n".join(lines)


def select_bugs(names=None, paths=()) -> list:
    """The registered planted bugs whose name contains one of ``names`` (all when empty)."""
    known = verify.bugs(paths)
    if names:
        unknown = [n for n in names if not any(n.lower() in k.lower() for k in known)]
        if unknown:
            raise ValueError(f"no planted bug matches {unknown}; known: {', '.join(known)}")
        known = {k: b for k, b in known.items() if any(n.lower() in k.lower() for n in names)}
    checks = verify.checks(paths)
    for b in known.values():
        missing = [c for c in b.catches if c not in checks]
        if missing:
            raise ValueError(f"planted bug {b.name!r} names checks that are not registered: {missing}")
    return list(known.values())


def how_caught(res) -> str:
    """What made the check fail: its measurement, the certificate policy or another exception."""
    if res.outcome.raised == "SolverFailed" or any(
            c.get(verify.REJECTED) for c in res.solves.values()):
        return CERTIFICATE
    return ERROR if res.outcome.raised else MEASUREMENT


def run(quick=True, exhaustive=False, names=None, paths=(), baseline=None, echo=print) -> Table:
    """The bugs × checks table: each bug against the checks it names (every check if
    ``exhaustive``); ``baseline``: clean Results to reuse (computed, like every cell, without
    refinement, but for the checks :func:`_needs_refinement` names)."""
    bugs = select_bugs(names, paths)
    checks = verify.checks(paths)
    wanted = set(checks) if exhaustive else {c for b in bugs for c in b.catches}
    columns = [checks[n] for n in sorted(wanted)]
    table = Table(bugs, columns)
    base = {r.check.name: r for r in (baseline or [])}
    for c in columns:
        if c.name not in base:
            base[c.name] = verify.run_check(c, quick, refine=False)
    table.refined = _needs_refinement(base, columns, quick, echo)
    table.baseline = base
    for b in bugs:
        for c in columns if exhaustive else [checks[n] for n in b.catches]:
            with b.planted():
                res = verify.run_check(c, quick, refine=c.name in table.refined)
            caught = base[c.name].outcome.passed and not res.outcome.passed
            table.cells[(b.name, c.name)] = how_caught(res) if caught else MISSED
            if echo:
                state = {MEASUREMENT: "caught by its measurement", CERTIFICATE: "caught by the certificate",
                         ERROR: f"caught ({res.outcome.raised})", MISSED: "not caught"}[table.cells[(b.name, c.name)]]
                echo(f"  {b.name} x {c.name}: {state} ({res.seconds:.1f} s; slack "
                     f"{verify._fmt(res.outcome.slack)}{'; ' + res.outcome.binding if res.outcome.binding else ''})")
    return table



def _needs_refinement(base, columns, quick, echo) -> set:
    """The checks whose clean run fails only because a solver's unrefined answer was rejected
    (SolverFailed): run, clean and with each bug, with the certificate policy's refinement (as
    ``fsopt verify`` runs them), so that a bug they catch is not hidden by the clean failure.  A
    check's own certificate bugs are then caught only where refinement cannot repair them."""
    refined = set()
    for c in columns:
        if base[c.name].outcome.raised == "SolverFailed":
            base[c.name] = verify.run_check(c, quick, refine=True)
            refined.add(c.name)
            if echo:
                echo(f"  {c.name}: the clean check needs refinement (a rejected unrefined answer); "
                     f"its cells are run with it")
    return refined


def report(table) -> str:
    """A Markdown table, one row per check: its claim, independent reference, worst slack on clean
    code (the baseline of this run, without refinement) and the bugs it caught, and how."""
    how = {MEASUREMENT: "measurement", CERTIFICATE: "certificate", ERROR: "exception"}
    lines = ["| check | claim | independent reference | worst slack (binding condition) | bugs caught |",
             "|---|---|---|---|---|"]
    for c in table.checks:
        base = table.baseline[c.name].outcome
        caught = [f"{b.name} ({how[table.cells[(b.name, c.name)]]})" for b in table.bugs
                  if table.cells.get((b.name, c.name), MISSED) != MISSED]
        cells = [c.name, c.claim, c.reference, f"{verify._fmt(base.slack)} ({base.binding})",
                 "; ".join(caught) or "none"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def command(args) -> int:
    """``fsopt verify --mutants [NAME ...]``: exit 0 when the table is ``ok``."""
    table = run(quick=args.quick, exhaustive=args.all_cells, names=args.mutants, paths=args.checks)
    print(table.format())
    if args.report:
        with open(args.report, "w") as out:
            out.write(report(table) + "\n")
    return 0 if table.ok else 1
