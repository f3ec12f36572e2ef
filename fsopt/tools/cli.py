"""Command line: fsopt solvers, problems, run, bench, verify, experiment.

A method plugs into ``run`` by providing a module ``<its package>.cli`` with
``add_arguments(parser)`` (optional) and ``run(args, problem, X, y) -> int``; its package is
``fsopt.<method>`` or one named by an installed plugin's ``fsopt.methods`` entry point.
"""
from __future__ import annotations

import argparse
import linecache
import os
import shutil
import sys
import textwrap
import traceback
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..core.exceptions import SolverFailed
from ..core.limits import MAX_JOBS, integer_argument
from .user_modules import add_import_argument, import_modules


def _method_clis(only=None) -> dict:
    """{method: its ``cli`` module}, fsopt's own methods and the plugins' (``fsopt.methods``);
    with ``only``, just that method's (a plugin is imported only when a command needs it)."""
    from ..core.plugins import method_module, method_packages

    found = {}
    for method in method_packages():
        if only is not None and method != only:
            continue
        module = method_module(method, "cli")
        if module is not None:
            found[method] = module
    return found


def _cmd_solvers(args) -> int:
    from ..core import solvers as reg

    profs = reg.profiles()  # a bad profile is an error before the table, not after half of it
    width = max(60, shutil.get_terminal_size((100, 24)).columns)
    indent = " " * 34
    print(f"{'name':10} {'installed':9} {'cones':12} description")
    for name, b in sorted(reg.backends().items()):
        reason = b.unavailable_reason() if b.installed() else "not installed"
        cones = "native" if b.native else ", ".join(sorted(b.cones))
        text = b.description + (f" [{reason}]" if reason and b.installed() else "")
        lines = textwrap.wrap(text, width - len(indent), break_long_words=False,
                              break_on_hyphens=False) or [""]
        print(f"{name:10} {'yes' if reason is None else 'no':9} {cones:12} {lines[0]}")
        for line in lines[1:]:
            print(indent + line)
    if profs:
        print("\nprofiles (solvers/*.toml):")
        for name, p in sorted(profs.items()):
            print(f"  {name:18} -> {p.backend:9} {p.options}")
            for line in textwrap.wrap(p.description, width - 8, break_long_words=False,
                                     break_on_hyphens=False):
                print("        " + line)
    return 0


def _cmd_problems(args) -> int:
    from .problems import problems

    declared = problems(args.method)
    if args.method is not None and not declared:
        methods = sorted({p.method for p in problems().values()})
        raise ValueError(f"--method {args.method}: no problem is declared for it; "
                         f"methods with problems: {', '.join(methods)}")
    for name, p in sorted(declared.items()):
        print(f"{name:22} {p.method:6} {p.description}")
    return 0


def _cmd_bench(args) -> int:
    import shlex
    import time

    from ..core.status import SKIPPED
    from . import bench
    from .bench_stats import summary

    started = time.perf_counter()
    frame = bench.run(out=args.out, quick=args.quick, problem_names=args.problem,
                      solvers=args.solver, timeout=args.timeout, n_jobs=args.jobs,
                      dask=args.dask, progress=not args.quiet, repeat=args.repeat, shift=args.shift,
                      retry=args.retry, allow_hook_files=args.allow_hook_files,
                      command=shlex.join(["fsopt", *args.argv]))
    elapsed = time.perf_counter() - started
    text = summary(frame, args.timeout, args.shift)
    print(text.split("\n## Skipped\n")[0].rstrip())  # the list of skipped pairs stays in summary.md
    whole = frame.groupby(["kind", "solver"])["status"].transform(lambda status: (status == SKIPPED).all())
    skipped = frame[(frame["status"] == SKIPPED) & whole]
    pairs = len(skipped.drop_duplicates(["kind", "solver"]))
    points = int(((frame["status"] == SKIPPED) & ~whole).sum())
    solves = frame.attrs["harness"]["solves"]
    print(f"\n{len(frame)} rows ({int(frame['solved'].sum())} certified solves; {solves} solved in this run, "
          f"{elapsed:.1f} s, {solves / elapsed:.1f} solves/s); in {args.out}/: "
          f"results.csv, results.parquet, claims.parquet, summary.md, performance_profile.png, "
          f"error_vs_time.png, time_vs_size.png, claim_accuracy.png, report.html")
    if pairs:
        print(f"{pairs} (subproblem kind, solver) pair(s) skipped (not installed, cannot solve that "
              f"cone, or left out of --quick): each with its reason under 'Skipped' in "
              f"{args.out}/summary.md and as status 'skipped' in {args.out}/results.csv")
    if points:
        print(f"{points} solve(s) of a schedule skipped: a tolerance outside what the solver takes (the reason "
              f"in {args.out}/results.csv)")
    return 0


def _cmd_verify(args) -> int:
    from . import verify, verify_mutants

    needs = {"--report": (args.report is not None, args.mutants is not None, "--mutants"),
             "--all-cells": (args.all_cells, args.mutants is not None, "--mutants"),
             "--refine": (args.refine, args.solver is not None, "--solver")}
    for option, (given, allowed, partner) in needs.items():
        if given and not allowed:
            raise ValueError(f"{option} goes with {partner}; without it, {option} would change nothing")
    if args.report is not None:
        check_writable_file(args.report, "--report")  # before the mutants run, not after
    return verify.command(args) if args.mutants is None else verify_mutants.command(args)


def check_writable_file(path, what):
    """ValueError naming ``path`` unless a file can be written there: not a directory, in a
    directory that exists."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{what} {path}: is a directory")
    parent = target.parent
    if not parent.is_dir():
        raise ValueError(f"{what} {path}: {parent} " + ("is not a directory" if parent.exists() else "does not exist"))


def _cmd_experiment(args) -> int:
    from .experiments import paper_datasets, run_experiment

    if args.list:
        print(paper_datasets(args.name))
        return 0
    if args.name is None or args.data is None:
        raise ValueError("fsopt experiment needs PROTOCOL and --data (or --list)")
    frame = run_experiment(args.name, args.data, args.out, quick=args.quick, n_splits=args.splits,
                           random_state=args.seed, progress=args.progress, data_dir=args.data_dir,
                           label=args.label, paper_dataset=args.paper_dataset, positive_class=args.positive_class,
                           impute=args.impute, drop_missing=args.drop_missing, n_jobs=args.jobs, n_null=args.null)
    if not args.quiet:
        shown = frame.assign(paper=frame.paper.fillna("–"), note=frame.note.fillna(""))
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"results in {args.out}/results.csv and {args.out}/results.md")
    return 0


def _cmd_run(args, clis) -> int:
    from ..datasets import add_irrelevant_features, load_dataset
    from .problems import Problem, get_problem

    if args.method not in clis:
        raise ValueError(f"method {args.method!r} has no cli module (its package provides none)")
    if args.plot:
        check_output_file(args.plot, "--plot")
    if args.out:
        from ..core.run_output import check_output_dir

        check_output_dir(args.out)
    if args.data is None:
        if args.label is not None:
            raise ValueError("--label names the class column of a --data file; it needs --data")
        problem = get_problem(args.problem, args.method)
        X, y = problem.load(n_irrelevant=args.irrelevant, random_state=args.seed,
                            data_dir=args.data_dir, given_by="--irrelevant / --seed")
    else:  # the user's own file: z-scored, the method's defaults, its column names
        frame, y = load_dataset(args.data, data_dir=args.data_dir, label=args.label, as_frame=True,
                                label_hint="--label NAME")
        X = add_irrelevant_features(frame.to_numpy(), args.irrelevant or 0, args.seed, what="--irrelevant")
        names = [str(c) for c in frame.columns] + [f"irrelevant{i}" for i in range(args.irrelevant or 0)]
        problem = Problem(name=Path(args.data).name, method=args.method, path=str(args.data),
                          description=f"{args.data} (z-scored)",
                          data={"dataset": str(args.data), "standardize": True},
                          extra={"feature_names": names})
    from .bench_keys import array_digest

    args.data_digest = array_digest(X, y)  # run.json: the data this run fitted, whatever made them
    return clis[args.method].run(args, problem, X, y)


def show_progress(args) -> bool:
    """Progress unless ``--quiet``: a bar on a terminal, a line every few seconds in a log (no
    carriage returns or escape codes there: :class:`fsopt.core.progress.Progress`)."""
    return not args.quiet


def check_output_file(path, what):
    """ValueError naming ``path`` unless a figure can be written there (checked before fitting)."""
    from matplotlib.figure import Figure

    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{what} {path}: is a directory")
    formats = Figure().canvas.get_supported_filetypes()
    if target.suffix and target.suffix.lstrip(".").lower() not in formats:  # none: matplotlib's png
        raise ValueError(f"{what} {path}: unknown figure format {target.suffix!r}; "
                         f"use one of {', '.join('.' + f for f in sorted(formats))}")
    if not target.parent.is_dir():
        raise ValueError(f"{what} {path}: directory {target.parent} does not exist")
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        raise ValueError(f"{what} {path}: cannot write there ({exc.strerror})") from None
    if not existed:
        target.unlink()




_nonnegative_int = integer_argument(0)
MAX_SPLITS = 10_000  # outer splits or label permutations of an experiment (each is a full fit)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks; appends "(default: ...)" where a default means something."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "%(default)" in text or action.default is None or action.default is False or \
                action.default == argparse.SUPPRESS:  # (0 == False: a default of 0 is shown)
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return text + " (default: %(default)s)"
        return text


def _examples(*lines) -> str:
    return "example" + ("s" if len(lines) > 1 else "") + ":\n" + "\n".join("  " + x for x in lines)


def _fsopt_version() -> str:
    try:
        return version("fsopt")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _protocols() -> str:
    from .experiments import PROTOCOLS

    rows = [f"  {name:16} {module.TITLE}" for name, module in PROTOCOLS.items()]
    return "protocols:\n" + "\n".join(rows)


def _add_bench(sub):
    """``fsopt bench``."""
    fmt = _HelpFormatter
    b = sub.add_parser("bench", formatter_class=fmt,
                       help="solver comparison study: problems x solvers x sizes",
                       description="Every benchable problem's subproblems solved by every capable "
                                   "backend and profile; results.csv, summary.md, figures and "
                                   "report.html in --out.",
                       epilog=_examples("fsopt bench --quick --out bench-quick"))
    b.add_argument("--quick", action="store_true",
                   help="small sizes, one repetition (README.md gives its measured time)")
    b.add_argument("--out", default="bench-results", help="output directory (resumable)")
    b.add_argument("--problem", nargs="+", default=None, help="only these problems (default: all)")
    b.add_argument("--solver", nargs="+", default=None,
                   help="only these solvers/profiles (default: all)")
    b.add_argument("--timeout", type=float, default=300.0,
                   help="seconds per solve; unsolved solves count at this limit in the SGM")
    b.add_argument("--repeat", type=int, default=None,
                   help="repetitions of each default solve, median reported (default 5; 1 under --quick)")
    b.add_argument("--shift", type=float, default=10.0, help="shift (s) of the geometric mean")
    b.add_argument("--jobs", type=int, default=1, help="worker processes solving in parallel (-1: one per core)")
    b.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on a dask.distributed scheduler ('local' starts a local cluster)")
    b.add_argument("--retry", default="", metavar="STATUS,...",
                   help="run again the logged solves with these statuses (e.g. timeout,error)")
    b.add_argument("--allow-hook-files", action="store_true",
                   help="let [bench] subproblems = 'module:function' run module.py beside a problem file")
    b.add_argument("--quiet", action="store_true",
                   help="no progress (a bar on a terminal; else a line every 5 s: done/total, elapsed, time left)")
    add_import_argument(b)


def build_parser(clis=None, command=None) -> argparse.ArgumentParser:
    """The parser of every command; with ``command`` (``""``: none, as in ``fsopt --help``), the
    other commands are listed but their options that need numerical code (verify's, the
    protocols') are left out, so that ``--help`` and ``--version`` import no numerical library."""
    clis = _method_clis() if clis is None else clis

    def full(name):
        return command is None or command == name

    fmt = _HelpFormatter
    parser = argparse.ArgumentParser(
        prog="fsopt", formatter_class=fmt,
        description="fsopt: convex-optimization feature selection (LOGO, NMMKL, LFS) with "
                    "certified solves from any capable solver.",
        epilog=_examples("fsopt run logo --data my_data.csv --label class",
                         "fsopt run logo --problem spiral --irrelevant 5000 --plot weights.png",
                         "fsopt verify --quick"))
    parser.add_argument("--version", action="version", version=f"fsopt {_fsopt_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_listings(sub)
    _add_bench(sub)
    _add_verify(sub, full("verify"))
    _add_experiment(sub, full("experiment"))
    _add_run(sub, clis)
    return parser


def _add_listings(sub):
    """``fsopt solvers`` and ``fsopt problems``."""
    fmt = _HelpFormatter
    sub.add_parser("solvers", formatter_class=fmt, help="list solver backends, capabilities and profiles",
                   description="Solver backends (installed or not, the cones each solves) and the "
                               "profiles declared in solvers/*.toml.",
                   epilog=_examples("fsopt solvers"))
    p = sub.add_parser("problems", formatter_class=fmt, help="list declared problems",
                       description="Problems declared in problems/*.toml (and $FSOPT_PROBLEMS_PATH).",
                       epilog=_examples("fsopt problems --method logo"))
    p.add_argument("--method", default=None, help="only this method's problems")


def _add_verify(sub, full):
    """``fsopt verify`` (its options only when ``full``: they import numerical code)."""
    fmt = _HelpFormatter
    v = sub.add_parser("verify", formatter_class=fmt,
                       help="check the papers' theorems numerically (PASS/FAIL, worst slack)",
                       description="Each check measures a paper's claim against an independent "
                                   "reference and prints PASS/FAIL with its worst slack: "
                                   "(limit - value)/scale of the closest condition; 1 = measured 0, "
                                   "0 = at the tolerance, < 0 = failed.",
                       epilog=_examples("fsopt verify --quick", "fsopt verify --quick --instances 10 NMMKL"))
    if full:
        from .verify import add_arguments as verify_arguments

        verify_arguments(v)


def _add_experiment(sub, full):
    """``fsopt experiment`` (the protocols' list only when ``full``)."""
    fmt = _HelpFormatter
    e = sub.add_parser("experiment", formatter_class=fmt,
                       help="run a paper's protocol on a data set (results.csv + results.md)",
                       description="A paper's evaluation protocol with its baselines on one data set."
                                   + ("\n\n" + _protocols() if full else ""),
                       epilog=_examples("fsopt experiment nmmkl-uci --data wdbc --quick --out nmmkl-wdbc",
                                        "fsopt experiment --list lfs-table1"))
    e.add_argument("name", choices=["logo-microarray", "logo-uci", "nmmkl-uci", "lfs-table1"], nargs="?",
                   metavar="PROTOCOL", help="one of the protocols above")
    e.add_argument("--list", action="store_true",
                   help="list the papers' data sets (of PROTOCOL, or all) with their recommended flags")
    e.add_argument("--data", default=None,
                   help="CSV file (feature columns and a label column), a data set's name (sonar, "
                        "colon, ... shipped with fsopt, or in --data-dir), wdbc, or a generated set "
                        "(spiral, nmmkl-toy, lfs-synthetic)")
    e.add_argument("--data-dir", default=None,
                   help="directory holding data set CSV files (default: $FSOPT_DATA, then the data "
                        "shipped with fsopt)")
    e.add_argument("--quick", action="store_true", help="few splits, small grids: a smoke run")
    e.add_argument("--splits", type=integer_argument(1, MAX_SPLITS), default=None, help="outer splits (default: the paper's)")
    e.add_argument("--seed", type=integer_argument(0, 2**32 - 1), default=0, help="seed of every random step (splits, draws, folds, rounding)")
    e.add_argument("--out", default="experiment-results", help="output directory (resumable)")
    e.add_argument("--quiet", action="store_true", help="no progress bar, no table")
    e.add_argument("--label", default=None, help="label column (required when the file has no 'label' column)")
    e.add_argument("--paper-dataset", default=None, help="the paper's name of the data set (else recognised "
                                                          "from its shape and class counts)")
    e.add_argument("--positive-class", default=None, help="two-class version: this class against the rest")
    e.add_argument("--impute", default=None, choices=["median", "mean", "most_frequent"],
                   help="impute missing values (fitted on each training part)")
    e.add_argument("--drop-missing", type=float, default=None, metavar="FRACTION",
                   help="drop columns with more than FRACTION missing in the training part")
    e.add_argument("--jobs", type=integer_argument(-1, MAX_JOBS), default=1,
                   help="outer splits in parallel (results as a serial run)")
    e.add_argument("--null", type=integer_argument(0, MAX_SPLITS), default=0, metavar="N",
                   help="also run the protocol on N label permutations: each method's chance level")


def _add_run(sub, clis):
    """``fsopt run METHOD`` for every method (the options of the loaded ones' ``cli`` modules)."""
    fmt = _HelpFormatter
    run = sub.add_parser("run", formatter_class=fmt, help="fit a method on your data or a declared problem",
                         description="Fit one method on a CSV file of your own (--data) or on a "
                                     "declared problem (--problem; see fsopt problems).",
                         epilog=_examples("fsopt run logo --data my_data.csv --label class",
                                          "fsopt run nmmkl --problem nmmkl_toy --m 2",
                                          "fsopt run logo --problem spiral --out result --verbose"))
    msub = run.add_subparsers(dest="method", required=True, metavar="METHOD")
    from ..core.plugins import method_packages

    for name in sorted(set(clis) | set(method_packages())):
        mod = clis.get(name)  # None: not loaded (not the method this command runs)
        summary = (getattr(mod, "__doc__", None) or f"method {name}").splitlines()[0].replace("`", "")
        mp = msub.add_parser(name, formatter_class=fmt, help=summary, description=summary,
                             epilog=_examples(f"fsopt run {name} --data my_data.csv --label class"))
        _add_run_options(mp, mod)


def _add_run_options(mp, mod):
    """The options of ``fsopt run METHOD``: the common ones, then the method's own (``mod``)."""
    source = mp.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", default=None, metavar="FILE.csv",
                        help="your data: a CSV file (.csv or .csv.gz) with a header, numeric "
                             "feature columns and a class column; z-scored before the fit")
    source.add_argument("--problem", default=None, help="a name from fsopt problems")
    mp.add_argument("--label", default=None, metavar="COLUMN",
                    help="with --data: the class column (default: the column named label)")
    mp.add_argument("--irrelevant", type=_nonnegative_int, default=None,
                    help="add this many irrelevant N(0,1) features (default: the problem's)")
    mp.add_argument("--seed", type=_nonnegative_int, default=None, help="random seed of the data")
    mp.add_argument("--data-dir", default=None,
                    help="directory holding data set CSV files (default: $FSOPT_DATA, then the "
                         "data shipped with fsopt)")
    mp.add_argument("--solver", default=None,
                    help="backend or profile (see fsopt solvers; default: the method's)")
    mp.add_argument("--plot", default=None, metavar="FILE.png", help="save the method's figure")
    mp.add_argument("--out", default=None, metavar="DIR",
                    help="keep the result: features.csv and features.json (each feature's name, "
                         "numbers, selected or not) and run.json (the command, parameters, "
                         "versions, certificate and who answered)")
    mp.add_argument("--verbose", action="store_true",
                    help="also the solvers, the iteration trace, the time split and caveats")
    mp.add_argument("--quiet", action="store_true",
                    help="no progress bar (none either when stderr is not a terminal)")
    add_import_argument(mp)
    if mod is not None and hasattr(mod, "add_arguments"):
        mod.add_arguments(mp)


def _command_words(argv):
    """COMMAND and METHOD of ``fsopt COMMAND [METHOD] ...`` (``""`` / None where absent)."""
    words = [a for a in argv if not a.startswith("-")]
    command = words[0] if words else ""
    return command, words[1] if len(words) > 1 and command == "run" else None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command, method = _command_words(argv)
    clis = _method_clis(method) if method is not None else {}
    args = build_parser(clis, command).parse_args(argv)
    args.progress = show_progress(args) if hasattr(args, "quiet") else False
    args.argv = argv
    try:
        import_modules(getattr(args, "imports", []))
        if args.command == "solvers":
            return _cmd_solvers(args)
        if args.command == "problems":
            return _cmd_problems(args)
        if args.command == "bench":
            return _cmd_bench(args)
        if args.command == "verify":
            return _cmd_verify(args)
        if args.command == "experiment":
            return _cmd_experiment(args)
        return _cmd_run(args, clis)
    except (ValueError, TypeError) as exc:
        if not _raised_on_purpose(exc):  # e.g. NumPy's shape error inside fsopt: a bug, not the input
            print("fsopt: internal error (not a problem with your input; please report it with this "
                  "traceback):", file=sys.stderr)
            traceback.print_exception(exc, file=sys.stderr)
            return 70
        print(f"fsopt: error: {exc}", file=sys.stderr)
        return 2
    except SolverFailed as exc:
        print(f"fsopt: solver failed: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        where = f"; the solves logged so far are in {args.out}/ and the same command resumes" \
            if args.command == "bench" else ""
        print(f"fsopt: interrupted{where}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``fsopt solvers | head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _raised_on_purpose(exc) -> bool:
    """Whether ``exc`` came from a ``raise`` statement (a check of fsopt's, scikit-learn's, argparse's
    that names the problem), not from an operation that failed (an ``a @ b`` of mismatched shapes)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return True
    return linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).lstrip().startswith("raise")


if __name__ == "__main__":
    sys.exit(main())
