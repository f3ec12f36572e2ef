"""What a solver's word is worth: claim accuracy in fsopt bench (a run-time backend whose answers
are 0.2 % off gets 0 %), Farkas and primal rays for "no optimum" claims (a planted wrong
"infeasible" is caught), the Wilson interval, the warm-up solve kept out of the timings."""
import contextlib
import io

import numpy as np
import pandas as pd
import pytest

from fsopt.core import solvers
from fsopt.core.exceptions import SolverFailed
from fsopt.core.farkas import check_claim, farkas_residual, find_farkas_ray
from fsopt.core.solvers import NativeBackend
from fsopt.lfs.lp import EpsilonConstraint, epsilon_max_closed_form
from fsopt.tools import bench, bench_claims
from fsopt.tools.cli import main

OFF = 1.002  # answers 0.2 % off


class OffByPointTwoPercent(NativeBackend):
    """LBFGSB's answer scaled by 1.002, claimed "optimal": registered at run time (a fresh worker
    process that imports fsopt does not know it; the study must send it)."""

    name = "OFF_LBFGSB"
    default_tol = 1e-6

    def supports(self, subproblem):
        return solvers.backends()["LBFGSB"].supports(subproblem)

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        solution, _, iterations = solvers.backends()["LBFGSB"].solve(subproblem, tol=tol, max_iter=max_iter)
        return {k: OFF * v for k, v in solution.items()}, "optimal", iterations


class SaysInfeasible(NativeBackend):
    """A planted wrong "infeasible": says so on every LP (9), feasible or not."""

    name = "SAYS_INFEASIBLE"
    default_tol = None

    def supports(self, subproblem):
        return isinstance(subproblem, EpsilonConstraint)

    def solve(self, subproblem, tol=None, max_iter=None, verbose=False):
        return {}, "infeasible", 0


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """`fsopt bench --quick` on spiral with the run-time backend and LBFGSB (and the reference)."""
    out = tmp_path_factory.mktemp("claims")
    printed = io.StringIO()
    with solvers.BACKEND_REGISTRY.scoped() as registry, contextlib.redirect_stdout(printed):
        registry.register("OFF_LBFGSB", OffByPointTwoPercent())
        assert main(["bench", "--quick", "--problem", "spiral", "--solver", "OFF_LBFGSB", "LBFGSB",
                     "--out", str(out), "--quiet"]) == 0
        frame = pd.read_parquet(out / "results.parquet")
        table = bench_claims.claim_table(frame).set_index(["solver", "budget"])
    return out, frame, table, printed.getvalue()


def test_a_backend_answering_0_2_percent_off_gets_a_confirmed_rate_of_0(study):
    out, frame, table, printed = study
    off = table.loc["OFF_LBFGSB"]
    # its default solve on both sizes and its 3 scheduled tolerances: every claim "optimal", none true
    assert off["claims"].sum() == 2 * 4 and (off["words"].str.startswith("optimal")).all()
    assert (off["confirmed"] == 0).all() and (off["rate"] == 0).all()
    assert (off["rejected_residual_min"] > 1e-6).all()  # the KKT residual of a 0.2 % error
    line = "| OFF_LBFGSB | default | 2 (optimal 2) | 0/2 | 0% [0%, 66%] |"
    assert line in printed and line in (out / "summary.md").read_text()
    report = (out / "report.html").read_text()
    assert "<table class=\"dataframe\" id=\"claims\">" in report
    assert report.count("<td>OFF_LBFGSB</td>") >= 4  # its rows in the claim table (and the results)


def test_built_in_solvers_get_their_measured_rate(study):
    _, frame, table, printed = study
    mine = frame[(frame["solver"] == "LBFGSB") & (frame["budget"] == "default")]
    lbfgsb = table.loc[("LBFGSB", "default")]
    assert lbfgsb["claims"] == len(mine) == 2
    assert lbfgsb["confirmed"] == mine["solved"].sum() > 0 and lbfgsb["rate"] == mine["solved"].mean()
    # at tol = 1e-2 LBFGSB's "optimal" is not true on spiral (the KKT residual exceeds 1e-6)
    assert table.loc[("LBFGSB", "tol=1e-02"), "rate"] == 0
    assert table.loc[("clarabel-tight", "default"), "rate"] == 1
    assert "| LBFGSB | default | 2 (optimal 2) | 2/2 | 100% [34%, 100%] |" in printed


def test_the_claim_columns_reach_results_parquet_and_claims_parquet(study):
    out, frame, _, _ = study
    stored = pd.read_parquet(out / "results.parquet")
    assert {"claim", "claim_confirmed", "warmup_time"} <= set(stored.columns)
    assert (stored.loc[stored["claim"] == "optimal", "claim_confirmed"] == stored.loc[
        stored["claim"] == "optimal", "solved"]).all()
    assert len(pd.read_parquet(out / "claims.parquet")) == len(bench_claims.claim_table(frame))


def test_the_warm_up_is_measured_and_kept_out_of_the_timings(study):
    out, frame, _, printed = study
    ran = frame[frame["status"] != "skipped"]
    assert (ran["warmup_time"] > 0).all()
    # one warm-up per (solver, instance) pair: the same value on every row of the pair
    assert (ran.groupby(["solver", "size"])["warmup_time"].nunique() == 1).all()
    assert "each pair's first solve" in printed and "id=\"timings\"" in (out / "report.html").read_text()


def test_wilson_interval_matches_the_formula():
    k, n, z = 3, 4, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    rate, low, high = bench_claims.claim_rate(k, n)
    assert rate == 0.75 and low == pytest.approx(centre - half, rel=1e-9) and high == pytest.approx(centre + half, rel=1e-9)
    assert np.isnan(bench_claims.claim_rate(0, 0)).all()


def lp9(beta, seed=0, M=30, alpha=4):
    rng = np.random.default_rng(seed)
    sub = EpsilonConstraint(M, alpha)
    sub.set_data(rng.gamma(2.0, size=M), rng.gamma(2.0, size=M))
    sub.set_epsilon(beta * epsilon_max_closed_form(sub.b, alpha))
    return sub


def test_a_planted_wrong_infeasible_is_caught(backend_registry):
    backend_registry.register("SAYS_INFEASIBLE", SaysInfeasible())
    with pytest.raises(SolverFailed) as feasible:
        lp9(0.5).solve("SAYS_INFEASIBLE", refine=False)
    record = feasible.value.attempts[-1]
    assert record.status == "rejected_certificate" and record.solver_status == "infeasible"
    assert record.certificate["residual"] == np.inf  # no Farkas ray exists
    with pytest.raises(SolverFailed) as infeasible:  # ε above ε_max: the claim is true
        lp9(1.01).solve("SAYS_INFEASIBLE", refine=False)
    record = infeasible.value.attempts[-1]
    assert record.status == "infeasible" and record.certificate["confirmed"] == 1.0
    assert record.certificate["residual"] < 1e-9


def test_the_planted_wrong_infeasible_is_a_rejected_claim_in_bench(backend_registry):
    backend_registry.register("SAYS_INFEASIBLE", SaysInfeasible())
    cell = bench.Cell("lfs_synthetic", "lfs_epsilon_constraint", 50, "SAYS_INFEASIBLE")
    row, = bench._solve_cell(cell)
    assert row["claim"] == "infeasible" and not row["claim_confirmed"]
    assert row["status"] == "rejected_certificate" and row["certificate"] == np.inf
    bench.check_row(row)


def test_a_true_infeasible_from_a_real_solver_is_confirmed_and_a_borrowed_ray_is_not():
    sub = lp9(1.01)
    with pytest.raises(SolverFailed) as failed:
        sub.solve("CLARABEL", refine=False)
    assert failed.value.attempts[-1].status == "infeasible"
    assert failed.value.attempts[-1].certificate["confirmed"] == 1.0
    c, G, h = sub.lp_inequality_form()
    ray = find_farkas_ray(G, h)
    assert farkas_residual(G, h, ray) < 1e-9
    _, G_ok, h_ok = lp9(0.5).lp_inequality_form()  # the same ray on the feasible LP proves nothing
    assert farkas_residual(G_ok, h_ok, ray) > 1e-3


def test_unbounded_is_refuted_on_a_box_bounded_lp():
    c, G, h = lp9(0.5).lp_inequality_form()
    for claim in ("unbounded", "infeasible_or_unbounded"):
        assert check_claim(claim, c, G, h, 1e-6)["confirmed"] == 0.0
    with pytest.raises(ValueError, match="claim must be one of"):
        check_claim("optimal", c, G, h, 1e-6)


def test_claim_table_counts_repetition_0_and_leaves_unchecked_claims_out_of_the_rate():
    def row(rep, claim, certificate, confirmed):
        status = "optimal" if confirmed and claim == "optimal" else claim if confirmed else "rejected_certificate"
        return bench._row(bench.Cell("p", "k", 1, "CLARABEL"), status, (rep, "default", None), claim=claim,
                          claim_confirmed=confirmed, certified=confirmed and claim == "optimal",
                          certificate=certificate, objective=1.0)

    frame = pd.DataFrame([row(0, "optimal", 1e-9, True), row(1, "optimal", 1e-9, True),  # rep 1: no new trial
                          bench._row(bench.Cell("p", "k", 2, "CLARABEL"), "infeasible", claim="infeasible"),
                          row(0, "optimal", 3e-3, False)], columns=bench.COLUMNS)
    frame.loc[3, "size"] = 3
    r = bench_claims.claim_table(frame).iloc[0]
    assert (r["claims"], r["checked"], r["confirmed"]) == (3, 2, 1)  # the infeasible claim: unchecked
    assert r["rate"] == 0.5 and r["rejected_residual_max"] == 3e-3 and r["requested_tol"] == 1e-8
    assert "(1 unchecked)" in bench_claims.markdown(bench_claims.claim_table(frame))
