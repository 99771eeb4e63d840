"""Claim checks and tables of the conditioning chapter (Orvieto et al. 2024, §4.1, App. E.1)."""

import numpy as np
import pytest

from lrnn_core.core.vandermonde import EPS
from lrnn_core.orvieto.conditioning import (
    ErrorGrid,
    Norms,
    aliased_average,
    law_eigenvalues,
    ring_eigenvalues,
    ring_frobenius_moments,
)
from lrnn_core.orvieto.conditioning_checks import GramDraws, GridOrderings
from lrnn_core.orvieto.conditioning_experiments import (
    AT_MAX,
    axis_report,
    complex_beats_real,
    condition_curve,
    draw_conditions,
    exact_to_rounding,
    falling_Ns,
    fits_axis,
    flat_tokens,
    floored_orderings,
    frobenius_check,
    gram_table,
    gram_verdict,
    growth_slope,
    lower_by_draw,
    norm_stats,
    norm_summary,
    norm_table,
    orderings_report,
    orderings_status,
    orderings_summary,
    perfectly_conditioned,
    recent_check,
    recent_only,
    rise_steps,
    roots_check,
    rounding_floors,
    token_cell,
    token_checks,
    token_rounding_level,
    token_summary,
)
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state


def _norms(frobenius, spectral=1.0, pinv=1.0):
    return [
        Norms(f, spectral, p, p / 2)
        for f, p in zip(frobenius, np.broadcast_to(pinv, len(frobenius)), strict=True)
    ]


def test_norm_stats_is_median_min_max():
    norms = _norms([3.0, 1.0, 2.0, 10.0])
    assert norm_stats(norms, "frobenius") == (2.5, 1.0, 10.0)
    assert norm_stats(norms, "pinv_spectral") == (0.5, 0.5, 0.5)


def test_norm_table_rows_and_numbers():
    norms = {0.0: _norms([1.0, 3.0], pinv=[1e9, 1e10]), 0.5: _norms([2.0, 2.0])}
    text = norm_table(norms, {0.0: (4.0e1, 7.8e9), 0.5: (1.0, 2.0)})
    lines = text.split("\n")
    assert lines[0] == "| r_min | norm | paper (one draw) | ours: median [min, max] over 2 draws |"
    assert len(lines) == 2 + 8
    assert lines[2] == "| 0.0 | ‖V‖_F | 4.0e+01 | 2 [1, 3] |"
    assert lines[4] == "| 0.0 | ‖V⁺‖_F | 7.8e+09 | 5.5e+09 [1e+09, 1e+10] |"


def test_frobenius_check_against_the_exact_moments():
    N, L = 4, 3
    mean, var = ring_frobenius_moments(N, L, 0.0)
    root = np.sqrt(mean)
    paper = (float(f"{root:.1e}"), 5.0)
    check = frobenius_check(
        _norms([root] * 4, spectral=0.5, pinv=[1.0, 4.0, 6.0, 9.0]), N, L, 0.0, paper, 4
    )
    assert check.mean == pytest.approx(mean) and check.std_err == pytest.approx(np.sqrt(var / 4))
    assert check.sq == pytest.approx([mean] * 4)
    assert check.band[1] == pytest.approx(np.sqrt(mean + 4 * np.sqrt(var)))
    assert check.h == pytest.approx(0.5 * 10.0 ** (np.floor(np.log10(paper[0])) - 1))
    assert check.q == 0.5 and check.spectral_max == 0.5
    assert check.median == pytest.approx(root)
    assert check.frobenius_ok and check.spectral_below_paper and check.paper_in_range
    far = frobenius_check(_norms([10 * root] * 4, spectral=50.0), N, L, 0.0, paper, 4)
    assert not far.frobenius_ok and not far.spectral_below_paper and not far.paper_in_range


def test_condition_curve_takes_the_median_and_the_roots_are_perfect():
    sizes = [4, 8]
    roots = condition_curve([[law_eigenvalues("roots of unity", N)] for N in sizes], sizes)
    assert perfectly_conditioned(roots)
    r = 0.9  # scaled roots: cond = r^-(N-1) (the chapter's exercise)
    sets = [[r * law_eigenvalues("roots of unity", 4), law_eigenvalues("roots of unity", 4)]]
    assert condition_curve(sets, [4])[0] == pytest.approx((r**-3 + 1) / 2)
    assert not perfectly_conditioned([1.0, 1.0 + 1e-9])


def test_growth_slope_fits_log10_where_trusted():
    sizes = np.arange(1, 8)
    conds = 10.0 ** (0.5 * sizes)
    conds[-1] = 1e20  # beyond the trusted range: left out of the fit
    assert growth_slope(sizes, conds, 1e4) == pytest.approx(0.5)


def test_rounding_bounds_and_floors():
    assert token_rounding_level(2.0, [10.0, 30.0, 20.0]) == pytest.approx(60 * EPS)
    ok, bound = exact_to_rounding(1e-30, 2.0, [1e3], 4)
    assert ok and bound == pytest.approx((2e3 * EPS) ** 2 / 4)
    assert not exact_to_rounding(2 * bound, 2.0, [1e3], 4)[0]
    assert not exact_to_rounding(0.0, 1.0, [1e15], 1)[0]  # bound above 1e-6: uninformative
    floors = rounding_floors({(8, 0.9): 1.0, (8, 1.0): 3.0, (16, 1.0): 2.0}, (4, 8, 16))
    assert floors == pytest.approx([0.0, 3.0, 2.0])


def test_fits_axis_within_one_tick_step():
    ticks = np.arange(0.0, 0.17, 0.02)
    assert fits_axis([0.01, 0.15], ticks) and fits_axis([0.175], ticks)
    assert not fits_axis([0.1, 0.13], ticks) and not fits_axis([0.19], ticks)


def _orders(n_falls, r_falls):
    return GridOrderings(n_falls=np.array(n_falls), r_falls=np.array(r_falls), r_rises=[])


def test_fig7a_status_rule():
    holds, n_only, r_only = (
        _orders([True], [True]),
        _orders([True], [False]),
        _orders([False], [True]),
    )
    assert orderings_status({"MAE": holds, "MSE": r_only}, "MAE") == "reproduced"
    assert orderings_status({"MAE": r_only, "MSE": holds}, "MAE") == "weaker"
    assert orderings_status({"MAE": n_only, "MSE": n_only}, "MSE") == "weaker"
    assert orderings_status({"MAE": n_only, "MSE": r_only}, "MAE") == "not reproduced"


def test_token_cell_summaries():
    err = np.array([0.1, 0.3, 0.2, 0.0, 1e-8, 1e-9])
    cell = token_cell(err, 1e-6, (0.1, 0.25))
    assert cell.early == pytest.approx(0.2) and cell.recent == pytest.approx(0.3)
    assert cell.horizon == 3 and cell.in_band
    assert not token_cell(err, 1e-6, (0.3, 1.0)).in_band


def test_gram_table_marks_infinite_and_saturated():
    text = gram_table(np.array([[np.inf, 2.5e3], [1e31, 4.0]]), (8, 16), (0.0, 1.0), 1e30)
    assert text.split("\n") == [
        "| N | r_min=0.0 | r_min=1.0 |",
        "|---|---|---|",
        "| 8 | ∞ | 2.5e+03 |",
        "| 16 | ≥1e+30 | 4.0e+00 |",
    ]


def test_recent_only_compares_the_last_100_tokens_with_the_first_half():
    err = np.full(400, 0.1)
    err[-100:] = 0.0009  # < 1e-2 * mean of the first 200 (0.1)
    assert recent_only(err)
    err[-100:] = 0.0011
    assert not recent_only(err)


def test_token_summary_reports_the_counts_and_the_misses():
    horizons = {(512, 0.0): 40, (1024, 0.9): 300}
    text = token_summary(horizons, [], ["r_min=1.0: max 2.0e-09"], 3e-12, (1e-6, 1e-1, 1e-9))
    first, blank, second = text.split("\n")
    assert blank == "" and "the last 40 to 300 tokens" in first
    assert "is met in this run (not asserted)" in first and "order 1e-01" in first
    assert "is **missed** (r_min=1.0: max 2.0e-09)" in second
    assert "bound at 3e-12 or more, far above 1e-09" in second
    missed = token_summary(horizons, ["N=512, r_min=0.9: 0.010"], [], 3e-12, (1e-6, 1e-1, 1e-9))
    assert "comes back: N=512, r_min=0.9: 0.010 (not" in missed
    assert "every *k*' is met in this run" in missed


def test_roots_check_on_the_roots_of_unity():
    rng = np.random.default_rng(0)
    u = rng.uniform(size=(3, 12))
    square = reconstruct_from_last_state(law_eigenvalues("roots of unity", 12), u)
    aliased = reconstruct_from_last_state(law_eigenvalues("roots of unity", 4), u)
    check = roots_check(u, square, aliased, 1.0, 4)
    assert check.holds and check.err_square < 1e-12 and check.alias_gap < 1e-12
    assert check.mse_aliased == pytest.approx(np.mean((aliased_average(u, 4) - u) ** 2))
    assert not roots_check(u, square, aliased, 1.5, 4).holds  # cond must be 1
    assert not roots_check(u, square, u, 1.0, 4).holds  # no aliasing: not class averages


def test_norm_summary_gives_median_and_range_per_r_min():
    norms = {0.0: _norms([1.0, 3.0], pinv=[2.0, 4.0]), 0.5: _norms([2.0])}
    assert norm_summary(norms) == (
        "r_min=0.0: ‖V‖_F 2 [1, 3], ‖V⁺‖_F 3 [2, 4], ‖V⁺‖_2 1.5 [1, 2]; "
        "r_min=0.5: ‖V‖_F 2 [2, 2], ‖V⁺‖_F 1 [1, 1], ‖V⁺‖_2 0.5 [0.5, 0.5]"
    )


def test_falling_Ns_and_rise_steps():
    o = GridOrderings(
        n_falls=np.array([True]), r_falls=np.array([False, True, True]), r_rises=[(0, 0), (0, 2)]
    )
    assert falling_Ns(o, (256, 512, 784)) == [512, 784]
    rises = rise_steps(o, (256, 512, 784), (0.0, 0.8, 0.9, 1.0), "r_min ")
    assert rises == "N=256: r_min 0.0→0.8, N=256: r_min 0.9→1.0"
    assert rise_steps(_orders([True], [True]), (256,), (0.0, 1.0)) == ""


def test_draw_conditions_are_the_condition_numbers_of_v():
    conds = draw_conditions([3, 4], 8, 0.5, 6)
    for s, c in zip([3, 4], conds, strict=True):
        lam = ring_eigenvalues(s, 8, 0.5)
        sv = np.linalg.svd(np.vander(lam, 6), compute_uv=False)
        assert c == pytest.approx(sv[0] / sv[-1], rel=1e-8)


def test_frobenius_report_reads_the_check():
    N, L = 4, 3
    mean, _ = ring_frobenius_moments(N, L, 0.0)
    root = np.sqrt(mean)
    paper = (float(f"{root:.1e}"), 5.0)
    check = frobenius_check(_norms([root] * 4, pinv=[1.0, 4.0, 6.0, 9.0]), N, L, 0.0, paper, 4)
    lines = check.report(0.0, paper, (0, 100), 4).split("\n")
    assert len(lines) == 3
    assert lines[0].startswith(f"r_min=0.0: mean ||V||_F^2 over 4 draws {mean:.1f}, exact")
    assert lines[1].endswith(f"ours {root:.2f}: met")
    assert lines[2].endswith("chance that 4 draws all miss it on one side: 1e-01")  # 2 x 0.5^4
    missed = check.report(0.0, paper, (100, 200), 4)
    assert f"MISSED (the exact law puts sqrt(E||V||_F^2) at {root:.2f})" in missed


def test_complex_beats_real_needs_every_part_of_the_claim():
    sizes = np.array([8, 16])
    roots, one_sign = np.ones(2), np.array([1e5, 1e11])
    slopes = {"one": 0.8, "sym": 0.3}
    assert complex_beats_real(sizes, roots, one_sign, slopes, "one", "sym")
    assert not complex_beats_real(sizes, roots, one_sign, slopes, "sym", "one")  # order
    assert not complex_beats_real(sizes, roots + 1e-9, one_sign, slopes, "one", "sym")
    assert not complex_beats_real(sizes, roots, one_sign / 10, slopes, "one", "sym")  # gap
    flat = {"one": 0.8, "sym": 0.05}  # one real law not exponential
    assert not complex_beats_real(sizes, roots, one_sign, flat, "one", "sym")


def _err(first100, last100, middle, L=400):
    err = np.full(L, middle)
    err[:100], err[-100:] = first100, last100
    return err


def test_recent_check_on_fading_and_kept_memory():
    fading, kept = _err(0.0, 1e-4, 0.3), np.full(400, 0.01)
    c = recent_check(fading, kept, [0.5, 0.6], [0.1, 0.2])
    assert c.first100 == 0.0 and c.last100 == pytest.approx(1e-4)
    assert c.first_half == pytest.approx(0.15)  # first 200 tokens: 100 at 0, 100 at 0.3
    assert not c.spec_met and c.better and not c.control and c.holds
    assert recent_check(_err(0.1, 1e-4, 0.3), kept, [0.5], [0.1]).spec_met
    assert not recent_check(fading, kept, [0.5, 0.15], [0.1, 0.2]).holds  # draws overlap
    assert recent_check(fading, fading, [0.5], [0.1]).control
    text = recent_check(_err(0.1, 1e-4, 0.3), kept, [0.5], [0.1]).report(512, (0.5, 0.1))
    first, second = text.split("\n")
    assert first.endswith("spec's ratio (>= 100x) 1.0e-03: met")
    assert second == (
        "per-pixel MSE: r_min=0 0.500, r_min=0.999 0.100 (every draw lower: True); "
        "control r_min=0.999 passes recent_only: False"
    )


def test_lower_by_draw_per_N():
    mse = np.array([[[0.5, 0.6], [0.1, 0.2]], [[0.5, 0.15], [0.1, 0.2]]])
    assert lower_by_draw(mse, 0, 1) == [True, False]
    assert lower_by_draw(mse, 1, 0) == [False, False]


def test_token_checks_and_report():
    err = np.r_[np.full(10, 0.2), np.full(10, 1e-8)]
    far = np.r_[np.full(10, 0.01), np.full(10, 1e-8)]
    checks = token_checks({(8, 0.0): err, (8, 0.9): far}, 1e-6, (0.1, 0.25), 0.9)
    assert checks.horizons == {(8, 0.0): 10, (8, 0.9): 10}
    assert checks.recent_ok and checks.early_ok  # 0.9 misses the band, not asserted
    assert checks.early_miss == ["N=8, r_min=0.9: 0.010"]
    assert not token_checks({(8, 0.0): far}, 1e-6, (0.1, 0.25), 0.9).early_ok
    assert not token_checks({(8, 0.0): err}, 1e-9, (0.1, 0.25), 0.9).recent_ok
    lines = checks.report(0.1).split("\n")
    assert lines[0] == (
        "N=   8, r_min=0.0: last 10 tokens max 1.0e-08 (spec <= 1e-06); first half mean "
        "0.200 (spec ~1e-01: [0.100, 0.250]); 10 tokens <= 1e-6"
    )
    assert lines[1].endswith("[0.100, 0.250], MISSED); 10 tokens <= 1e-6")


def test_flat_tokens_against_bound_and_spec():
    err = {0.99: np.array([1e-12, 2e-12, 3e-12]), 1.0: np.array([1e-10, 1e-9, 2e-9])}
    flat = flat_tokens(err, {0.99: 1e-11, 1.0: 1e-8}, 1e-9)
    assert flat.within_bound and flat.spec_miss == ["r_min=1.0: max 2.0e-09"]
    assert not flat_tokens(err, {0.99: 1e-12, 1.0: 1e-8}, 1e-9).within_bound
    assert flat.report(1024).split("\n") == [
        "N=1024, r_min=0.99: median over k 2.0e-12, max over k 3.0e-12; spec <= 1e-09: "
        "met; rounding bound eps cond(V_L) ||u|| = 1.0e-11",
        "N=1024, r_min=1.0: median over k 1.0e-09, max over k 2.0e-09; spec <= 1e-09: "
        "MISSED; rounding bound eps cond(V_L) ||u|| = 1.0e-08",
    ]


def _gram_draws(log_cond):
    """GramDraws for Ns (4, 8, 16), L = 8, r_mins (0, 0.5, 1): N = 4 singular, the rest
    ``10^log_cond`` per (N, r_min) with a small spread over 5 draws; the formed Gram exact to
    1e-13 where cond < 1e10, far below where the SVD is saturated."""
    spread = 10.0 ** (0.01 * np.arange(5))
    svd = np.concatenate(
        [np.full((1, 3, 5), np.inf), 10.0 ** np.asarray(log_cond)[..., None] * spread]
    )
    formed = np.where(svd < 1e10, svd * (1 + 1e-13), np.where(svd > 1e30, 1e16, np.nan))
    return GramDraws((4, 8, 16), (0.0, 0.5, 1.0), svd, formed, np.full(svd.shape, np.nan))


def test_gram_verdict_combines_the_checks():
    ring = _gram_draws([[40, 20, 5], [40, 15, 3]])
    real = _gram_draws([[40, 40, 40], [40, 40, 40]])  # no fall with r_min
    v = gram_verdict(ring, real, 8, 1e30)
    assert all(v.checks.values()) and v.core == {k: True for k in v.checks if k != AT_MAX}
    assert v.weyl.cells == 10 and v.weyl.within and v.weyl.underestimates
    assert v.holds and v.full and v.decisive == AT_MAX
    assert not v.control["falls with r_min"] and v.rejects_control
    tie = gram_verdict(_gram_draws([[40, 20, 5], [40, 15, 5]]), ring, 8, 1e30)
    assert tie.holds and not tie.full  # no fall with N at r_min = 1: "weaker"
    assert not tie.rejects_control
    rise = gram_verdict(_gram_draws([[40, 20, 5], [40, 25, 3]]), real, 8, 1e30)
    assert not rise.core["no rise with N"] and not rise.holds


def test_axis_report_names_the_largest_cell():
    ticks = np.arange(0.0, 0.17, 0.02)
    metrics = {
        "MAE": np.array([[0.1, 0.15], [0.05, 0.0]]),
        "MSE": np.array([[0.01, 0.0], [0.02, 0]]),
    }
    lines = axis_report(metrics, ticks, (256, 512), (0.0, 1.0)).split("\n")
    assert lines == [
        "MAE: largest value 0.150 (N=256, r_min=1.0); fits the paper's axis top 0.16 "
        "(within one tick step 0.02)",
        "MSE: largest value 0.020 (N=512, r_min=0.0); does not fit the paper's axis top 0.16 "
        "(within one tick step 0.02)",
    ]


def test_orderings_report_and_summary():
    o = GridOrderings(n_falls=np.array([True]), r_falls=np.array([False, True]), r_rises=[(0, 0)])
    orders = {"MSE": _orders([True, False], [True, True]), "MAE": o}
    assert orderings_report(orders, (256, 512), (0.0, 0.9)).split("\n") == [
        "MSE: falls with N at every r_min: False; falls with r_min at N = [256, 512]; "
        "significant rises in r_min: none",
        "MAE: falls with N at every r_min: True; falls with r_min at N = [512]; "
        "significant rises in r_min: N=256: 0.0→0.9",
    ]
    assert orderings_summary(orders, (256, 512)) == (
        "MSE: falls with N False, falls with r_min at N=[256, 512]; "
        "MAE: falls with N True, falls with r_min at N=[512]"
    )


def test_token_checks_recovered_groups_the_horizons_by_r_min():
    horizons = {(8, 0.0): 2, (8, 0.9): 4, (16, 0.0): 3, (16, 0.9): 5}
    err = {k: np.r_[np.full(10, 0.2), np.full(h, 1e-8)] for k, h in horizons.items()}
    checks = token_checks(err, 1e-6, (0.1, 0.25), 0.9)
    assert checks.recovered == "r_min=0.0: 2/3, r_min=0.9: 4/5"


def test_floored_orderings_raise_each_N_to_its_floor():
    # errors [N, r_min, draw, k]: each cell constant over k, falling in r_min by 1e3
    levels = np.array([[1e-1, 1e-4], [1e-2, 1e-5]])[..., None, None]
    spread = 10.0 ** (0.01 * np.arange(5))[None, None, :, None]
    abs_by_k = levels * spread * np.ones((1, 1, 1, 4))
    grid = ErrorGrid((8, 16), (0.0, 1.0), np.zeros((2, 2, 5)), abs_by_k, abs_by_k**2, None)
    plain = floored_orderings(grid, {})
    assert list(plain) == ["MSE", "MAE"]
    assert plain["MAE"].holds and plain["MSE"].holds
    floored = floored_orderings(grid, {(16, 1.0): 0.05})  # N = 16 raised to 0.05: a tie in r_min
    assert floored["MAE"].r_falls.tolist() == [True, False]
    assert floored["MSE"].r_falls.tolist() == [True, False]  # floor 0.05^2 / 4 above 1e-4
    low = floored_orderings(grid, {(16, 1.0): 0.015})  # MSE floor 5.6e-5, below 1e-4
    assert low["MSE"].r_falls[1] and not low["MAE"].r_falls[1]
