"""Orderings over independent draws and the Fig. 7b drivers (Orvieto et al. 2024, App. E.1)."""

import numpy as np
import pytest
from scipy import stats

from lrnn_core.core.vandermonde import EPS
from lrnn_core.orvieto.conditioning import Norms, law_eigenvalues, vandermonde_gram_condition
from lrnn_core.orvieto.conditioning_checks import (
    ALPHA,
    GramDraws,
    WeylCheck,
    compare,
    falls,
    gram_condition_draws,
    gram_orderings,
    grid_orderings,
    pinv_drop,
    step_verdicts,
    weyl_check,
)


def test_compare_is_welch_on_log10_with_the_t_quantile():
    a = 10.0 ** np.array([1.0, 1.2, 0.8, 1.1, 0.9])  # log10: mean 1, var 0.025
    se = np.sqrt(2 * 0.025 / 5)  # two samples with the same spread
    t = stats.t.ppf(1 - ALPHA, 8)  # Welch df for equal sizes and variances: 2 (D - 1)
    just_above = a * 10.0 ** (-(t * se) - 1e-6)
    just_below = a * 10.0 ** (-(t * se) + 1e-6)
    assert compare(a, just_above) == 1 and compare(just_above, a) == -1
    assert compare(a, just_below) == 0 and compare(just_below, a) == 0


def test_compare_ties_identical_and_capped_draws():
    a = np.array([1e-3, 2e-3, 3e-3])
    assert compare(a, a) == 0
    saturated = np.array([1e35, 1e40, 1e45])
    assert compare(saturated, saturated * 10, cap=1e30) == 0  # both at the cap: tie
    assert compare(saturated, np.array([1e5, 2e5, 3e5]), cap=1e30) == 1
    # zero spread: only a difference beyond atol decades counts
    assert compare([1.0, 1.0], [1.0 - 1e-12, 1.0 - 1e-12]) == 0
    assert compare([1.0, 1.0], [0.5, 0.5]) == 1


def test_falls_needs_a_significant_end_drop_and_no_significant_rise():
    rng = np.random.default_rng(0)
    noise = 10.0 ** rng.normal(0, 0.01, size=(4, 6))
    steps = 10.0 ** -np.arange(4)[:, None] * noise  # one decade down per cell
    assert falls(steps) and np.all(step_verdicts(steps) == 1)
    assert not falls(noise)  # flat: no drop end to end
    bump = steps.copy()
    bump[2] = steps[0]  # a significant rise from cell 1 to 2
    assert list(step_verdicts(bump)) == [1, -1, 1] and not falls(bump)


def test_grid_orderings_floors_turn_rounding_noise_into_ties():
    values = np.empty((2, 3, 4))
    values[0] = 10.0 ** -np.arange(3)[:, None] * np.array([1.0, 1.1, 0.9, 1.05])
    values[1] = values[0] * 1e-3
    values[1, 2] = [1e-16, 3e-16, 2e-16, 4e-16]  # rounding noise below the floor
    values[1, 1] = [1e-17, 2e-17, 1.5e-17, 1.2e-17]  # ... and a "rise" inside it
    raw = grid_orderings(values)
    assert raw.r_rises == [(1, 1)] and not raw.holds
    floored = grid_orderings(values, np.array([0.0, 1e-15]))
    assert floored.r_rises == [] and floored.holds
    assert list(floored.n_falls) == [True, True, True]


def test_gram_condition_draws_uses_one_independent_draw_per_cell():
    seeds = np.arange(12).reshape(2, 3, 2) + 50
    draws = gram_condition_draws(seeds, (4, 12), (0.0, 0.5, 1.0), 8, formed_draws=1)
    lam = law_eigenvalues("ring", 12, r_min=0.5, seed=53 + 6)
    assert draws.svd[1, 1, 1] == vandermonde_gram_condition(lam, 8)
    assert np.all(np.isinf(draws.svd[0]))  # N = 4 < L = 8: rank 4, exact inf
    assert np.all(np.isfinite(draws.range[0])) and np.all(np.isnan(draws.range[1]))
    assert np.all(np.isnan(draws.formed[:, :, 1])) and np.all(np.isfinite(draws.formed[1, :, 0]))
    with pytest.raises(ValueError, match="seeds must not repeat"):
        gram_condition_draws(np.zeros((2, 3, 2), int), (4, 12), (0.0, 0.5, 1.0), 8)


def _draws(svd: np.ndarray, Ns=(4, 8, 16)) -> GramDraws:
    nan = np.full(svd.shape, np.nan)
    return GramDraws(Ns, (0.0, 0.5, 1.0), svd, nan, nan)


def test_gram_orderings_on_constructed_grids():
    rng = np.random.default_rng(1)
    jitter = 10.0 ** rng.normal(0, 0.05, size=(3, 3, 6))
    level = np.array([[40.0, 12.0, 8.0], [40.0, 10.0, 5.0]])  # log10, N = 8, 16 x r_min
    svd = np.empty((3, 3, 6))
    svd[0] = np.inf  # N = 4 < L = 6
    svd[1:] = 10.0 ** level[:, :, None] * jitter[1:]
    good = gram_orderings(_draws(svd), 6, 1e30)
    assert all(good.values()), good
    flat = svd.copy()
    flat[1:, 1:] = 1e35  # saturated everywhere (real nodes): no drop with r_min or N
    bad = gram_orderings(_draws(flat), 6, 1e30)
    assert not bad["falls with r_min"] and not bad["falls with N at r_min = max"]
    assert bad["no rise with N"] and bad["saturated at r_min = min"]
    finite = svd.copy()
    finite[0] = 1e10
    assert not gram_orderings(_draws(finite), 6, 1e30)["rank N < L: inf"]


def test_weyl_check_counts_covered_draws_and_flags_a_wrong_formed_value():
    svd = np.array([[[10.0, 1e35]]])
    formed = np.array([[[10.0 * (1 + 1e-13), 1e20]]])
    draws = GramDraws((8,), (0.5,), svd, formed, np.full(svd.shape, np.nan))
    ok = weyl_check(draws, 8, 1e30)
    assert (ok.cells, ok.largest, ok.within, ok.underestimates) == (1, 10.0, True, True)
    wrong = GramDraws((8,), (0.5,), svd, formed * np.array([2.0, 1e20]), draws.range)
    bad = weyl_check(wrong, 8, 1e30)
    assert not bad.within and not bad.underestimates


def test_weyl_check_report():
    text = WeylCheck(cells=3, largest=2e8, within=True, underestimates=True).report(
        3e16, 1e30, False
    )
    assert text == (
        "Weyl's bound covers 3 draw(s) (cond(G) up to 2.0e+08): within it: True; largest "
        f"formed-Gram value 3.0e+16 (1/eps = {1 / EPS:.1e}; the paper's axis top: 1e22), "
        "below the SVD's beyond 1e+30: True; square case worst: False"
    )


def test_pinv_drop_uses_the_spec_bounds_on_both_norms():
    def norms(p):
        return [Norms(1.0, 1.0, p, p / 2)]

    assert pinv_drop(norms(1e10), norms(2.0))
    assert not pinv_drop(norms(1e10), norms(30.0))  # near the circle above 10
    assert not pinv_drop(norms(1e7), norms(1e-3))  # far below 1e8
    assert not pinv_drop(norms(1.5e8), norms(9.0))  # Frobenius passes, spectral 7.5e7 < 1e8


def test_separated_needs_every_draw_below_every_other():
    from lrnn_core.orvieto.conditioning_checks import separated

    worse = np.array([0.09, 0.1, 0.11])
    assert separated(worse, np.array([1e-20, 1e-13, 1e-15]))  # decades apart: separated
    assert not separated(worse, np.array([1e-3, 0.095]))  # one draw inside: not
    assert not separated(worse, worse)  # the same draws (the negation): not
    with pytest.raises(ValueError, match="finite"):
        separated(worse, np.array([np.nan]))
    with pytest.raises(ValueError, match="at least one draw"):
        separated(worse, np.array([]))


def test_falls_to_rounding_level_is_a_fall():
    """A last cell at rounding level spread over decades: the t-test on logs may not resolve
    it, every draw below every first draw does; equal cells (the negation) do not fall."""
    from lrnn_core.orvieto.conditioning_checks import falls

    to_rounding = np.array([[0.09, 0.1, 0.11, 0.1, 0.095], [1e-25, 1e-13, 1e-20, 1e-14, 1e-30]])
    assert falls(to_rounding)
    assert not falls(np.array([[0.1, 0.11, 0.09], [0.1, 0.11, 0.09]]))
    assert not falls(to_rounding[::-1])
