"""Command line: ``fsopt solvers``, ``fsopt problems``, ``fsopt run METHOD --problem NAME``.

A method plugs into ``run`` by providing a module ``<its package>.cli`` with
``add_arguments(parser)`` (optional) and ``run(args, problem, X, y) -> int``; its package is
``fsopt.<method>`` or one named by an installed plugin's ``fsopt.methods`` entry point.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.exceptions import SolverFailed


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

    print(f"{'name':10} {'installed':9} {'cones / solves':34} description")
    for name, b in sorted(reg.backends().items()):
        reason = b.unavailable_reason() if b.installed() else "not installed"
        caps = "native: " + b.description.split(";")[0] if b.native else ", ".join(sorted(b.cones))
        state = "yes" if reason is None else "no"
        print(f"{name:10} {state:9} {caps[:34]:34} {b.description if not b.native else ''}"
              + (f"  [{reason}]" if reason and b.installed() else ""))
    profs = reg.profiles()
    if profs:
        print("\nprofiles (solvers/*.toml):")
        for name, p in sorted(profs.items()):
            print(f"  {name:18} -> {p.backend:9} {p.options}  {p.description}")
    return 0


def _cmd_problems(args) -> int:
    from .problems import problems

    for name, p in sorted(problems(args.method).items()):
        print(f"{name:22} {p.method:6} {p.description}")
    return 0


def _cmd_bench(args) -> int:
    from . import bench
    from .bench_stats import summary

    frame = bench.run(out=args.out, quick=args.quick, problem_names=args.problem,
                      solvers=args.solver, timeout=args.timeout, n_jobs=args.jobs,
                      dask=args.dask, progress=not args.quiet, repeat=args.repeat, shift=args.shift,
                      retry=args.retry, allow_hook_files=args.allow_hook_files)
    print(summary(frame, args.timeout, args.shift))
    print(f"{len(frame)} rows ({int(frame['solved'].sum())} certified solves); in {args.out}/: "
          f"results.csv, results.parquet, summary.md, performance_profile.png, error_vs_time.png, "
          f"time_vs_size.png, report.html")
    return 0


def _cmd_verify(args) -> int:
    from . import verify, verify_mutants

    return verify.command(args) if args.mutants is None else verify_mutants.command(args)


def _cmd_experiment(args) -> int:
    from .experiments import run_experiment

    frame = run_experiment(args.name, args.data, args.out, quick=args.quick, n_splits=args.splits,
                           random_state=args.seed, progress=not args.quiet, data_dir=args.data_dir,
                           label=args.label, paper_dataset=args.paper_dataset, positive_class=args.positive_class,
                           impute=args.impute, drop_missing=args.drop_missing, n_jobs=args.jobs)
    if not args.quiet:
        shown = frame.assign(paper=frame.paper.fillna("–"), note=frame.note.fillna(""))
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"results in {args.out}/results.csv and {args.out}/results.md")
    return 0


def _cmd_run(args, clis) -> int:
    from .problems import get_problem

    if args.method not in clis:
        raise ValueError(f"method {args.method!r} has no cli module (its package provides none)")
    if args.plot:
        check_output_file(args.plot, "--plot")
    problem = get_problem(args.problem, args.method)
    X, y = problem.load(n_irrelevant=args.irrelevant, random_state=args.seed, data_dir=args.data_dir)
    return clis[args.method].run(args, problem, X, y)


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


def _nonnegative_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a nonnegative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a nonnegative integer, got {value}")
    return value


def build_parser(clis=None) -> argparse.ArgumentParser:
    clis = _method_clis() if clis is None else clis
    parser = argparse.ArgumentParser(prog="fsopt", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("solvers", help="list solver backends, capabilities and profiles")
    p = sub.add_parser("problems", help="list declared problems")
    p.add_argument("--method", default=None)
    b = sub.add_parser("bench", help="solver comparison study: problems x solvers x sizes")
    b.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    b.add_argument("--out", default="bench-results", help="output directory (resumable)")
    b.add_argument("--problem", nargs="+", default=None, help="only these problems")
    b.add_argument("--solver", nargs="+", default=None, help="only these solvers/profiles")
    b.add_argument("--timeout", type=float, default=300.0,
                   help="seconds per solve; unsolved solves count at this limit in the SGM")
    b.add_argument("--repeat", type=int, default=1, help="repetitions per solve (median reported)")
    b.add_argument("--shift", type=float, default=10.0, help="shift (s) of the geometric mean")
    b.add_argument("--jobs", type=int, default=1, help="parallel solves (joblib)")
    b.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="run on a dask.distributed scheduler ('local' starts a local cluster)")
    b.add_argument("--retry", default="", metavar="STATUS,...",
                   help="run again the logged solves with these statuses (e.g. timeout,error)")
    b.add_argument("--allow-hook-files", action="store_true",
                   help="let [bench] subproblems = 'module:function' run module.py beside a problem file")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    v = sub.add_parser("verify", help="check the papers' theorems numerically (PASS/FAIL, worst slack)")
    from .verify import add_arguments as verify_arguments

    verify_arguments(v)
    e = sub.add_parser("experiment", help="run a paper's protocol on a data set (results.csv + results.md)")
    e.add_argument("name", choices=["logo-microarray", "logo-uci", "nmmkl-uci", "lfs-table1"])
    e.add_argument("--data", required=True,
                   help="CSV file in the shared/data format, a name in --data-dir, wdbc, or a generated "
                        "set (spiral, nmmkl-toy, lfs-synthetic)")
    e.add_argument("--data-dir", default=None, help="directory holding data set CSV files")
    e.add_argument("--quick", action="store_true", help="few splits, small grids: a smoke run")
    e.add_argument("--splits", type=int, default=None, help="outer splits (default: the paper's)")
    e.add_argument("--seed", type=int, default=0, help="seed of every random step (splits, draws, folds, rounding)")
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
    e.add_argument("--jobs", type=int, default=1, help="outer splits in parallel (results as a serial run)")
    run = sub.add_parser("run", help="fit a method on a declared problem")
    msub = run.add_subparsers(dest="method", required=True)
    from ..core.plugins import method_packages

    for name in sorted(set(clis) | set(method_packages())):
        mod = clis.get(name)  # None: not loaded (not the method this command runs)
        mp = msub.add_parser(name, help=(getattr(mod, "__doc__", None) or f"method {name}").splitlines()[0])
        mp.add_argument("--problem", required=True, help="a name from `fsopt problems`")
        mp.add_argument("--irrelevant", type=_nonnegative_int, default=None,
                        help="irrelevant N(0,1) features")
        mp.add_argument("--seed", type=_nonnegative_int, default=None, help="random seed of the data")
        mp.add_argument("--data-dir", default=None, help="directory holding data set CSV files")
        mp.add_argument("--solver", default=None, help="backend or profile (see `fsopt solvers`)")
        mp.add_argument("--plot", default=None, metavar="FILE.png", help="save the method's figure")
        mp.add_argument("--quiet", action="store_true", help="no progress bar")
        if mod is not None and hasattr(mod, "add_arguments"):
            mod.add_arguments(mp)
    return parser


def _run_method(argv):
    """METHOD of ``fsopt run METHOD ...`` (None for any other command)."""
    words = [a for a in argv if not a.startswith("-")]
    return words[1] if len(words) > 1 and words[0] == "run" else None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    method = _run_method(argv)
    clis = _method_clis(method) if method is not None else {}
    args = build_parser(clis).parse_args(argv)
    try:
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
        print(f"fsopt: error: {exc}", file=sys.stderr)
        return 2
    except SolverFailed as exc:
        print(f"fsopt: solver failed: {exc}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
