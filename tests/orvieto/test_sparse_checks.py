"""Claim checks, rows and printed lines of the sparse-inputs chapter (Orvieto et al., Figs. 9-12),
on hand-made numbers."""

import numpy as np
import pytest

from lrnn_core.orvieto.sparse_checks import (
    PERFECT,
    Fig12Claim,
    atoms_verdicts,
    below_control,
    claims_text,
    dense_text,
    fig9_orderings,
    fig9_row,
    fig10_row,
    fig11_row,
    fig12_claims,
    fig12_row,
    fig12_statistics,
    fig12_status,
    fits_log_axis,
    flat_grid_control,
    formed_reach,
    legendre_text,
    level_text,
    medians_line,
    medians_lines,
    orderings_text,
    range_table,
    ranks_hold,
    reading_ranges,
    smallest_perfect_N,
    statistics_text,
    summaries_by_basis,
    summary_lines,
)
from lrnn_core.orvieto.sparse_experiments import (
    LOG10_SINGULAR,
    SweepSet,
    flag_singular,
    ordering_checks,
    summarise,
)


def summary(err, late=None, rank=8, full=True, within=True):
    """A sweep summary with the fields the checks read."""
    return {
        "worst error": 2 * err,
        "median max error": err,
        "median late error": err if late is None else late,
        "max rank gamma": rank,
        "median final rank gamma": float(rank),
        "max gap": 0,
        "gap within bound": within,
        "max gap bound": 1,
        "full after 2N": full,
    }


def fig10_summaries(**changes):
    """Summaries for N = 8 ... 256 as Fig. 10 claims them (P = 32), with ``changes`` by N."""
    errors = {8: 0.9, 16: 0.8, 32: 0.5, 64: 8e-2, 128: 7e-9, 256: 1e-13}
    out = {N: summary(e, rank=min(N, 32)) for N, e in errors.items()}
    for N, s in changes.items():
        out[int(N[1:])] = s
    return out


def test_summary_lines_format():
    text = summary_lines({8: summary(0.5, late=0.25)})
    assert text == (
        "N=  8: median max error over k 5.0e-01 (worst 1.0e+00), median max over k >= L/2 "
        "2.5e-01, rank Γ_k <= 8 (median at k=L 8), rank gap of V_k on the grid 0 <= bound 1: "
        "True, rank V_k = N certified for k >= 2N: True"
    )
    assert summary_lines(fig10_summaries()).count("\n") == 5


def test_smallest_perfect_N():
    assert smallest_perfect_N(fig10_summaries()) == 256
    assert smallest_perfect_N(fig10_summaries(), level=1e-8) == 128
    assert smallest_perfect_N({8: summary(1.0)}) is None


def test_ranks_hold():
    assert ranks_hold(fig10_summaries(), 32)
    assert not ranks_hold(fig10_summaries(N8=summary(0.9, rank=9)), 32)  # rank > min(N, P)
    assert not ranks_hold(fig10_summaries(N64=summary(0.1, rank=32, full=False)), 32)
    assert not ranks_hold(fig10_summaries(N64=summary(0.1, rank=32, within=False)), 32)


def test_dense_text():
    assert dense_text(0.961, 256, 4096) == (
        "a dense input (P = L = 4096, N(0,1) entries), first draw at N=256: error at k=L 0.96; "
        "'perfect' accepts it: False (rejected)"
    )
    assert "accepts it: True" in dense_text(1e-12, 8, 16)


def test_fig10_row_holds_and_fails():
    row = fig10_row(fig10_summaries(), 32, 2, 2, "control")
    assert row["holds"] and row.get("status") is None and row["negative_control"] == "control"
    assert row["paper"] == "T(0.95,1): perfect reconstruction needs N ≈ 256"
    assert row["claim"] == "Orvieto Fig 10"
    assert row["ours"] == (
        "median max rel. error over k: N=64 8e-02, N=128 7e-09, N=256 1e-13; smallest N ≤ "
        "1e-10: 256; N≤32 ≥ 5e-01 for k ≥ L/2; rank Γ_k ≤ min(N, 32); 2 draws × 2 inputs"
    )
    not_perfect = fig10_summaries(N256=summary(2 * PERFECT, rank=32))
    assert not fig10_row(not_perfect, 32, 2, 2, "c")["holds"]
    no_late_failure = fig10_summaries(N16=summary(0.8, late=1e-4, rank=16))
    assert not fig10_row(no_late_failure, 32, 2, 2, "c")["holds"]


def test_fig11_row():
    s11 = fig10_summaries(N64=summary(2e-13, rank=32))
    row = fig11_row(s11, fig10_summaries(), 32, "c")
    assert row["holds"]
    assert row["ours"] == "N=64 median max rel. error 2e-13 (vs 8e-02 under T(0.95,1))"
    assert row["paper"] == "T(0.99,1): N = 64 is enough"
    assert row["claim"] == "Orvieto Fig 11"
    assert not fig11_row(fig10_summaries(), fig10_summaries(), 32, "c")["holds"]  # 8e-2 > PERFECT
    assert not fig11_row(s11, s11, 32, "c")["holds"]  # the reference is perfect too


def sweep_set(error):
    """One draw, one input, two steps, with the given largest error."""
    return SweepSet(
        ks=np.array([2, 4]),
        rank_gamma=np.array([[1, 2]]),
        rel_error=np.array([[[error / 2, error]]]),
        v_grid=np.array([1, 2]),
        v_ranks=np.array([[1, 2]]),
        v_lower=np.full((1, 4), 2),
        gap_bound=np.array([0]),
    )


def test_summaries_by_basis_medians_line_and_atoms_verdicts():
    sweeps = {
        "T(0.95,1)": {
            "random atoms": {2: sweep_set(1e-3), 4: sweep_set(1e-12)},
            "coarsest atoms": {2: sweep_set(1e-11), 4: sweep_set(1e-13)},
        },
        "T(0.99,1)": {
            "random atoms": {2: sweep_set(1e-12), 4: sweep_set(1e-14)},
            "coarsest atoms": {2: sweep_set(1e-12), 4: sweep_set(1e-13)},
        },
    }
    by_basis = summaries_by_basis(sweeps)
    assert by_basis["T(0.95,1)", "random atoms"] == summarise(sweeps["T(0.95,1)"]["random atoms"])
    line = medians_line("T(0.95,1)", "random atoms", by_basis["T(0.95,1)", "random atoms"])
    assert line == "T(0.95,1) random atoms  : N=2 1e-03, N=4 1e-12"
    lines = medians_lines(by_basis).splitlines()
    assert len(lines) == 4 and lines[0] == line
    assert lines[3] == "T(0.99,1) coarsest atoms: N=2 1e-12, N=4 1e-13"
    assert atoms_verdicts(by_basis) == (
        "T(0.95,1): smallest N with median max error <= 1e-10: random atoms 4, coarsest atoms 2 "
        "(different)\nT(0.99,1): smallest N with median max error <= 1e-10: random atoms 2, "
        "coarsest atoms 2 (the same)"
    )


def test_reading_ranges_thresholds_and_fit():
    readings = {
        "log10 a": np.array([1.0, 10.0, 18.0]),  # one singular cell, fits 2.5 ... 17.5
        "ln a": np.array([1.0, 30.0, 40.0]),  # ln threshold 36.0: one singular cell
        "log10 b": np.array([3.0, 12.0]),  # bottom above 2.5: no fit
    }
    r = reading_ranges(readings)
    assert r["log10 a"] == (1.0, 10.0, 18.0, 1, True)
    assert r["ln a"].resolved_high == 30.0 and r["ln a"].singular == 1 and not r["ln a"].fits
    assert np.log(10) * LOG10_SINGULAR == pytest.approx(36.04, abs=0.01)
    assert r["log10 b"] == (3.0, 12.0, 12.0, 0, False)
    lines = range_table(r).split("\n")
    assert lines[0].startswith("reading") and lines[0].endswith("fits 2.5 … 17.5")
    assert lines[1] == "log10 a                     1.0         10.0   18.0             1  True"


def test_formed_reach():
    span = np.array([1.0, 19.0])
    assert formed_reach({"log10 formed complex": span, "log10 formed real": span})
    short = np.array([1.0, 16.0])
    assert not formed_reach({"log10 formed complex": span, "log10 formed real": short})


def ordered(draws=4):
    """Levels (D, R=2, N=3, P=3) decreasing in N and r, increasing in P, a little noise."""
    r, n, p = np.meshgrid([0, -1], [0, -1, -2], [0, 1, 2], indexing="ij")
    base = 8.0 + 2 * r + 2 * n + 2 * p
    return base + 0.1 * np.random.default_rng(0).standard_normal((draws, *base.shape))


def test_fig9_orderings_flat_control_and_text():
    raw = {"real": ordered(), "complex": ordered() + 20.0}  # complex: every cell singular
    checks = fig9_orderings(raw)
    assert (
        checks["real"] == ordering_checks(raw["real"]) == dict(N=True, P=True, r=True, corner=True)
    )
    assert checks["complex"] == ordering_checks(flag_singular(raw["complex"]))
    assert checks["complex"]["corner"] is False  # singular ties with singular
    control = flat_grid_control(raw["real"])
    assert control == dict(N=True, P=True, r=True, corner=False)
    assert orderings_text({"real": checks["real"], "x": {"N": False}}) == (
        "real           : N holds, P holds, r holds, corner holds\nx              : N FAILS"
    )


def test_fig9_row_status_rule():
    good = {"real": dict(N=True, P=True)}
    fits = reading_ranges({"log10 real": np.array([1.0, 18.0]), "log10 formed real": [1.0, 18.0]})
    levels = np.array([[0.5, np.inf], [3.0, 14.9]])
    row = fig9_row(good, fits, levels, {"corner": False}, 128, 32)
    assert (
        row["holds"] and row["status"] == "reproduced" and row["paper"].startswith("log cond ≈ 2.5")
    )
    assert row["ours"].startswith("real-stacked log10 cond 0.5 … 14.9 (+1 singular cells)")
    assert "fit the paper's bar: log10 real, log10 formed real (its top" in row["ours"]
    assert row["negative_control"] == (
        "a flat grid (every cell the draws of cell r_min=0.9, N, P = 128, 32): ordering checks "
        "{'corner': False} (rejected)"
    )
    only_formed = reading_ranges({"log10 real": [3.0, 12.0], "log10 formed real": [1.0, 18.0]})
    assert fig9_row(good, only_formed, levels, {}, 1, 1)["status"] == "weaker"
    bad = fig9_row({"real": dict(N=False)}, fits, levels, {}, 1, 1)
    assert not bad["holds"] and bad["status"] == "not reproduced"


def test_level_text_and_fits_log_axis():
    assert level_text(1234.0) == "1.2e+03" and level_text(np.inf) == "sing."
    assert fits_log_axis([np.array([1e2, 1e5]), np.array([1e11])])  # limits 10^1.55, 10^11.45
    assert not fits_log_axis([np.array([1e3, 1e8])])  # upper limit below 1e11
    assert not fits_log_axis([np.array([1e2, np.inf, 1e11])])  # a singular value
    assert not fits_log_axis([np.array([1e-3, 1e11])])  # lower limit below 1e-1


def study():
    """Fig. 12 shaped values: (inits=4, nP=3) per family, one reading."""
    jitter = 1.0 + 0.01 * np.arange(4)[:, None]
    return {
        "norm real": {
            "Haar": jitter * np.array([1.0, 10.0, 1e3]),
            "Sym": jitter * np.array([1.0, 1.01, 1.02]),  # does not grow
            "Van. inverse": jitter[:, :1] * 1e5,
        }
    }


def test_fig12_statistics_and_text():
    stats, fits = fig12_statistics(study())
    np.testing.assert_allclose(stats["norm real", "median"]["Haar"], 1.015 * np.array([1, 10, 1e3]))
    np.testing.assert_allclose(stats["norm real", "mean"]["Van. inverse"], [1.015e5])
    assert fits == {("norm real", "median"): False, ("norm real", "mean"): False}
    text = statistics_text(stats, fits).split("\n")
    assert text[0] == "norm real (median): fits 1e2 … 1e11: False"
    assert text[1] == "   Haar              1.0e+00 1.0e+01 1.0e+03"
    assert len(text) == 8


def test_fig12_claims_status_text_and_row():
    stats, fits = fig12_statistics(study())
    claims = fig12_claims(study(), stats, [8, 16, 128], N=128, high=16)
    assert claims["norm real"] == Fig12Claim(
        increasing={"Haar": True, "Sym": False}, below={"Haar": True, "Sym": True}
    )
    assert claims_text(claims, stats) == (
        "norm real      : Van. inverse median 1.0e+05; grows with P: {'Haar': True, 'Sym': "
        "False}; below the Van. inverse for every P < N: {'Haar': True, 'Sym': True}"
    )
    holds, status = fig12_status(claims)
    assert holds == {"norm real": False} and status == "not reproduced"
    both = {"a": Fig12Claim({"x": True}, {"x": True}), "b": Fig12Claim({"x": False}, {"x": True})}
    assert fig12_status(both)[1] == "weaker"
    assert fig12_status({"a": both["a"]})[1] == "reproduced"
    with pytest.raises(ValueError, match="claims"):
        fig12_status({})
    row = fig12_row(claims, stats, fits, {"norm real": False}, 256, 128, 8)
    assert not row["holds"] and row["status"] == "not reproduced" and "Van. inverse" in row["paper"]
    assert row["ours"] == (
        "norm real: Van. inverse 1.0e+05, grows 1/2, below Van. 2/2; paper's axis fits: none "
        "(L = N = 128, 8 inits)"
    )
    assert row["negative_control"] == (
        "the non-sparse basis P = L = 256: 'below the Van. inverse' accepts it under 0 of 1 "
        "readings (rejected)"
    )


def test_below_control_rejects_a_copy_of_the_reference():
    stats, _ = fig12_statistics(study())
    same = {"Haar": {"norm real": np.full(4, 1.015e5)}}
    assert below_control(same, stats) == {"norm real": False}
    far_below = {"Haar": {"norm real": np.full(4, 1e3)}, "Sym": same["Haar"]}
    assert below_control(far_below, stats) == {"norm real": True}


def test_legendre_text():
    text = legendre_text({32: (0.5, 2e17), 64: (0.25, 1e3)}, {32: 1e-3, 64: 1e-6})
    assert text.splitlines() == [
        "N= 32: ring + Legendre Ψ error 5.0e-01, cond(Γ_L) 2.0e+17 (1/ε = 4.5e+15); HiPPO 1.0e-03",
        "N= 64: ring + Legendre Ψ error 2.5e-01, cond(Γ_L) 1.0e+03 (1/ε = 4.5e+15); HiPPO 1.0e-06",
    ]
