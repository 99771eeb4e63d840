"""The verdicts of the conditioning chapter, one per figure (Orvieto et al. 2024, App. E.1)."""

import numpy as np

from lrnn_core.orvieto.conditioning import ErrorGrid, Norms, error_grid
from lrnn_core.orvieto.conditioning_checks import GramDraws
from lrnn_core.orvieto.conditioning_experiments import (
    FrobeniusCheck,
    draw_conditions,
    exact_to_rounding,
    floored_orderings,
    gram_verdict,
    lower_by_draw,
    orderings_status,
    recent_check,
    token_checks,
    token_rounding_level,
)
from lrnn_core.orvieto.conditioning_runs import GramMedians
from lrnn_core.orvieto.conditioning_verdicts import (
    complex_vs_real,
    fig2_verdict,
    fig3_row,
    fig3_verdict,
    fig6_verdict,
    fig7a_verdict,
    fig7b_verdict,
    fig7ce_verdict,
    fig8_verdict,
)


def _fro(ok=True):
    sq = np.array([1.0])
    return FrobeniusCheck(1.0, sq, 0.1, (1.0, 2.0), 0.05, 1.0, 0.5, 1.0, ok, True, True)


def _norms(pinv):
    return [Norms(40.0, 10.0, p, p / 2) for p in pinv]


def test_fig2_verdict_bounds_control_and_row():
    norms = {0.0: _norms([1e10, 2e10, 3e10]), 0.999: _norms([2.0, 4.0, 6.0])}
    real = _norms([1e9, 1e9, 1e9])  # median ||V^+||_2 = 5e8: rejected by the bounds
    v = fig2_verdict(norms, real, {0.0: _fro(), 0.999: _fro()})
    assert v.pinv_ok and not v.control and v.holds and v.real_pinv == 5e8
    assert v.report().endswith("median ||V^+||_2 = 5.0e+08, accepted by the same check: False")
    row = v.row()
    assert row["holds"] and row["status"] is None and row["claim"] == "Orvieto Fig 2"
    assert row["paper"].endswith("‖V⁺‖=2.8e+00 (one draw each)")
    assert "over 3 draws" in row["ours"] and "5.0e+08; the spec's bounds" in row["negative_control"]
    assert not fig2_verdict(norms, real, {0.0: _fro(), 0.999: _fro(False)}).holds
    assert fig2_verdict(norms, norms[0.999], {0.0: _fro()}).control


def test_complex_vs_real_and_its_swapped_control():
    sizes = np.array([4, 8, 16])
    conds = {
        "real, equispaced in [0, 1]": 10.0**sizes,
        "real, uniform random in [0, 1]": 10.0 ** (0.4 * sizes),
        "real, equispaced in [-1, 1]": 10.0 ** (0.2 * sizes),
        "complex, N-th roots of unity": np.ones(3),
    }
    v = complex_vs_real(sizes, conds, trusted=1e13)  # fits [0, 1] on N = 4, 8 only
    assert v.holds and v.real_grow and not v.roots_grow and not v.real_perfect
    np.testing.assert_allclose(list(v.slopes.values()), [1.0, 0.4, 0.2])
    assert v.roots_max_gap == 0.0
    lines = v.report().splitlines()
    assert lines[0] == (
        "real, equispaced in [0, 1]      : cond grows by 10^1.00 per extra node (fit where "
        "cond < 1e+13)"
    )
    assert lines[-1].endswith("perfectly conditioned: False") and len(lines) == 5
    assert v.row()["ours"].startswith("real [0,1] equispaced: ×10^1.00 per node, ")
    swapped = complex_vs_real(sizes, {**conds, "real, equispaced in [-1, 1]": np.ones(3)}, 1e13)
    assert swapped.real_perfect and not swapped.holds and not swapped.real_grow


def _grid(L=24, seed=0):
    rng = np.random.default_rng(seed)
    abs_by_k = rng.uniform(0.5, 1.0, size=(2, 3, 4, L)) * 10.0 ** -np.arange(3)[None, :, None, None]
    return ErrorGrid(
        (8, 16),
        (0.0, 0.5, 1.0),
        np.arange(24).reshape(2, 3, 4),
        abs_by_k,
        abs_by_k**2,
        np.zeros((2, 3, 1, L)),
    )


def test_fig3_verdict_is_recent_check_of_the_cells():
    grid = _grid()
    check = fig3_verdict(grid, 16, fading=0.0, kept=1.0)
    err = grid.abs_by_k[1].mean(axis=1)
    expected = recent_check(err[0], err[2], grid.mse_by_draw[1, 0], grid.mse_by_draw[1, 2])
    assert check == expected
    row = fig3_row(check, (0.25, 0.125), " (text)")
    assert row["ours"].endswith("MSE 0.250 (r_min=0) vs 0.125 (0.999) (text)")
    assert row["status"] == ("reproduced" if check.holds and check.spec_met else row["status"])


def test_fig6_verdict_on_a_small_grid():
    rng = np.random.default_rng(5)
    u = rng.uniform(size=(3, 24))  # the sizes of test_error_grid: JAX's shapes reused
    grid = error_grid(u, (12, 48), (0.0, 0.999), np.arange(8).reshape(2, 2, 2) + 10)
    v = fig6_verdict(grid, u, fading=0.0, kept=0.999, square=48, below=12, invertible_from=0.99)
    u_max = np.linalg.norm(u, axis=1).max()
    conds = draw_conditions(grid.seeds[1, 1], 48, 0.999, 24)
    assert (v.exact, v.bound) == exact_to_rounding(grid.mse[1, 1], u_max, conds, 24)
    assert v.exact and not v.control and v.better == lower_by_draw(grid.mse_by_draw, 0, 1)
    assert v.holds == all(v.better)
    assert v.rounding_level == {(48, 0.999): token_rounding_level(u_max, conds)}
    assert v.at_floor == v.rounding_level  # exact to rounding: its level is a floor
    lines = v.report().splitlines()
    assert lines[1].startswith("N=   48: per-pixel MSE r_min=0 ") and len(lines) == 4
    assert lines[3] == "control N=12 < L, r_min=0.999: exact to rounding False"
    assert v.row(" (t)")["ours"].startswith("MSE at r_min=0.999: N=12: ")


def test_fig7a_verdict_reads_the_grid():
    grid = _grid()
    v = fig7a_verdict(grid, {}, np.arange(0.0, 0.8, 0.2))
    np.testing.assert_array_equal(v.metrics["MAE"], grid.abs_by_k.mean(axis=(2, 3)))
    assert v.fits == {"MSE": True, "MAE": True} and v.axis_metric == "MAE"
    assert v.orders["MSE"].r_falls.tolist() == floored_orderings(grid, {})["MSE"].r_falls.tolist()
    assert v.mse_ends == [True, True] and not v.mae_first_rises and not v.n_both
    assert v.status == orderings_status(v.orders, "MAE") == "not reproduced" and not v.holds
    assert "N x r_min MAE:\n [[" in v.report()
    assert "accepts it: False (rejected)" in v.row(False, "")["negative_control"]


def test_fig7ce_verdict_against_token_checks():
    grid = _grid(L=40)
    spec = (1e-6, 1e-1, 1e-9)
    v = fig7ce_verdict(
        grid,
        {(16, 0.5): 1.0, (16, 1.0): 0.1},
        spec,
        fading=((8, 16), (0.0,)),
        flat=(16, (0.5, 1.0)),
        control=(8, 1.0),
        asserted_below=0.5,
    )
    err = {(N, 0.0): grid.abs_by_k[a, 0].mean(axis=0) for a, N in enumerate((8, 16))}
    band = (1e-1 / np.sqrt(10), 1e-1 * np.sqrt(10))
    assert v.tokens == token_checks(err, 1e-6, band, asserted_below=0.5)
    assert not v.tokens.recent_ok and not v.holds  # every error is far above 1e-6
    assert v.flat.within_bound and v.lowest_bound == 0.1 and not v.control
    assert v.control_report() == "control N=8, r_min=1.0: early tokens lost: False"
    assert "missed** (" in v.summary() and v.row("")["status"] == "weaker"


def test_fig7b_verdict_wraps_gram_verdict_and_the_square_case():
    spread = 10.0 ** (0.01 * np.arange(5))
    log_cond = np.array([[40, 20, 8], [35, 12, 5]])  # N = 8, 16 against r_min
    svd = np.concatenate([np.full((1, 3, 5), np.inf), 10.0 ** log_cond[..., None] * spread])
    rng = np.full(svd.shape, np.nan)
    rng[0] = 1e3 * spread
    formed = np.where(svd < 1e10, svd * (1 + 1e-13), np.where(svd > 1e30, 1e16, np.nan))
    draws = GramDraws((4, 8, 16), (0.0, 0.99, 1.0), svd, formed, rng)
    medians = GramMedians(*(np.median(x, axis=2) for x in (svd, rng, formed)))
    v = fig7b_verdict(draws, draws, medians, 8, 1e30, square=8, narrow=4)
    assert v.verdict == gram_verdict(draws, draws, 8, 1e30)
    assert v.square_worst and v.holds and not v.rejects_control and v.draws == 5
    assert v.report().startswith("checks: {") and "square case worst: True" in v.report()
    assert v.row()["ours"].startswith("medians: N=8: 1.0e+20 (r_min=0.99) → 1.0e+08 (1); N=16: ")
    assert "N=8: " in v.row()["ours"] and "(N in (4, 8, 16), 5 independent" in v.row()["ours"]


def test_fig8_verdict_roots_of_unity_and_control():
    u = np.random.default_rng(1).uniform(size=(3, 16))
    v = fig8_verdict(u, 4, control_seed=2)
    assert set(v.recon) == {4, 16} and v.holds and not v.control
    assert abs(v.cond_square - 1) < 1e-12 and v.cond_random > 1 + 1e-6
    np.testing.assert_allclose(v.recon[16], u, atol=1e-12)
    lines = v.report().splitlines()
    assert lines[0].startswith("N=16: cond(V) - 1 = ") and lines[1].startswith("N=4: per-pixel")
    assert "(3 images)" in v.row()["ours"]
