"""The verdicts of a claim row on numbers: the factor below the better baseline, the margin rule
at and around its boundary, and the status from what holds; bad input names itself."""

import math

import numpy as np
import pytest
from scipy import stats

from lrnn_core.core.verdicts import (
    ALPHA,
    beats,
    compare,
    dealt,
    falls,
    paired_difference,
    row_status,
    separated,
    step_verdicts,
    times_below,
)

BASE = {"ignores input": 0.1, "linear": 0.02}


def test_times_below_is_the_better_baseline_over_the_error():
    assert times_below(0.005, BASE) == pytest.approx(4.0)
    assert times_below(0.04, BASE) == pytest.approx(0.5)  # above the better baseline
    assert times_below(np.float32(0.01), {"linear": 0.03}) == pytest.approx(3.0)
    assert times_below(0.0, BASE) == math.inf


def test_beats_holds_at_exactly_the_margin_and_not_just_above():
    # 0.002 * 10 = 0.02 = min(BASE): on the boundary the rule holds
    assert beats(0.002, BASE, 10.0) and not beats(0.0021, BASE, 10.0)
    assert beats(0.02, BASE, 1.0) and not beats(0.03, BASE, 1.0)
    assert beats(0.25, {"linear": 1.0}, 4.0) and not beats(0.25, {"linear": 1.0}, 4.000001)
    assert beats(0.0, BASE, 1e6)  # an exact fit beats any margin
    # the rule and the factor agree: beats iff times_below >= margin (away from rounding)
    for error in (0.001, 0.0019, 0.0021, 0.01):
        assert beats(error, BASE, 10.0) == (times_below(error, BASE) >= 10.0)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: beats(math.nan, BASE, 2.0), ValueError, "error must be finite"),
        (lambda: beats(math.inf, BASE, 2.0), ValueError, "error must be finite"),
        (lambda: times_below(math.nan, BASE), ValueError, "error must be finite"),
        (lambda: beats(-0.1, BASE, 2.0), ValueError, "error must be >= 0"),
        (lambda: beats(0.1, {}, 2.0), ValueError, "baselines must be a non-empty mapping"),
        (lambda: times_below(0.1, {}), ValueError, "baselines must be a non-empty mapping"),
        (lambda: beats(0.1, [0.2], 2.0), ValueError, "baselines must be a non-empty mapping"),
        (lambda: beats(0.1, {"linear": math.nan}, 1.0), ValueError, r"baselines\['linear'\]"),
        (lambda: beats(0.1, BASE, 0.5), ValueError, "margin must be >= 1"),
        (lambda: beats(0.1, BASE, -1.0), ValueError, "margin must be >= 1"),
        (lambda: beats("0.1", BASE, 2.0), TypeError, "error must be a real number"),
    ],
)
def test_bad_input_raises_and_names_it(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_row_status_from_what_holds():
    assert row_status(True, True) == "reproduced"
    assert row_status(True, False) == "weaker"
    assert row_status(False, True) == "not reproduced"
    assert row_status(False, False) == "not reproduced"
    assert row_status(np.bool_(True), full=np.bool_(False)) == "weaker"
    with pytest.raises(TypeError, match="holds must be a bool"):
        row_status(1, True)
    with pytest.raises(TypeError, match="full must be a bool"):
        row_status(True, "yes")


# --- The Welch orderings over independent draws --------------------


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


def test_separated_needs_every_draw_below_every_other():
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
    to_rounding = np.array([[0.09, 0.1, 0.11, 0.1, 0.095], [1e-25, 1e-13, 1e-20, 1e-14, 1e-30]])
    assert falls(to_rounding)
    assert not falls(np.array([[0.1, 0.11, 0.09], [0.1, 0.11, 0.09]]))
    assert not falls(to_rounding[::-1])


def test_paired_difference_matches_the_t_statistic_and_its_power():
    cand = np.array([0.70, 0.72, 0.71, 0.69])
    ref = np.array([0.60, 0.61, 0.63, 0.60])
    d = cand - ref  # 0.10, 0.11, 0.08, 0.09
    se = d.std(ddof=1) / 2
    t_crit, t_pow = stats.t.ppf(1 - 0.05 / 3, 3), stats.t.ppf(0.8, 3)
    got = paired_difference(cand, ref, higher_is_better=True, n_tests=3)
    assert got.mean == pytest.approx(0.095) and got.se == pytest.approx(se)
    assert got.lower == pytest.approx(0.095 - t_crit * se)
    assert got.upper == pytest.approx(0.095 + t_crit * se)
    assert got.detectable == pytest.approx((t_crit + t_pow) * se)
    assert got.better and not got.worse
    # lower is better: the same numbers are significantly worse, the bounds mirrored
    flipped = paired_difference(cand, ref, higher_is_better=False, n_tests=3)
    assert flipped.worse and flipped.upper == pytest.approx(-got.lower)
    # the same runs (a tie): neither, and nothing to detect with se = 0
    same = paired_difference(ref, ref, higher_is_better=True)
    assert not same.better and not same.worse and same.detectable == 0.0
    # a mean difference inside the spread: neither
    spread = paired_difference([1.0, 0.0, 1.0], [0.0, 1.0, 0.0], higher_is_better=True)
    assert not spread.better and not spread.worse


def test_paired_difference_power_grows_with_seeds():
    """Pairing removes what the runs share: a common seed effect of spread 10 leaves the
    differences' spread 0.1; more seeds and fewer comparisons detect smaller gaps."""
    rng = np.random.default_rng(1)
    shared = rng.normal(0, 10, size=40)
    ref = shared + rng.normal(0, 0.1, size=40)
    cand = shared + 0.2 + rng.normal(0, 0.1, size=40)  # better by 0.2
    few = paired_difference(cand[:3], ref[:3], higher_is_better=True, n_tests=9)
    many = paired_difference(cand, ref, higher_is_better=True, n_tests=9)
    one = paired_difference(cand, ref, higher_is_better=True, n_tests=1)
    assert many.better and many.detectable < 0.2 < few.detectable
    assert one.detectable < many.detectable
    # unpaired (each seed's reference from another seed) the gap drowns in the seed effect
    assert not paired_difference(cand, np.roll(ref, 1), higher_is_better=True).better


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"candidate": [1.0], "reference": [0.0]}, ValueError, "n >= 2"),
        ({"candidate": [1.0, 2.0], "reference": [0.0]}, ValueError, "reference"),
        ({"candidate": [1.0, np.nan], "reference": [0.0, 1.0]}, ValueError, "candidate"),
        ({"higher_is_better": "yes"}, TypeError, "higher_is_better"),
        ({"n_tests": 0}, ValueError, "n_tests"),
        ({"alpha": 0.0}, ValueError, "alpha"),
        ({"power": 1.0}, ValueError, "power"),
    ],
)
def test_paired_difference_bad_input_names_itself(kwargs, error, words):
    args = {"candidate": [1.0, 2.0], "reference": [0.0, 1.0], "higher_is_better": True}
    with pytest.raises(error, match=words):
        paired_difference(**{**args, **kwargs})


def test_dealt_pools_the_draws_of_each_line_and_deals_them_back():
    values = np.arange(12.0).reshape(3, 4)  # a curve that rises cell by cell: one line
    out = dealt(values, 5)
    order = np.random.default_rng(5).permutation(12)  # numpy's default_rng(seed)
    np.testing.assert_array_equal(out.ravel(), values.ravel()[order])
    np.testing.assert_array_equal(out, dealt(values, 5))  # reproducible
    # over many seeds every cell gets the pooled mean on average (nothing depends on the cell)
    means = np.mean([dealt(values, s).mean(axis=1) for s in range(2000)], axis=0)
    np.testing.assert_allclose(means, 5.5, atol=0.1)
    grid = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4) + 1.0
    for axis in (0, 1):  # every line along the other axis keeps its own draws, reordered
        lines, got = np.moveaxis(grid, axis, 1), np.moveaxis(dealt(grid, 5, axis=axis), axis, 1)
        for i in range(lines.shape[0]):
            np.testing.assert_array_equal(np.sort(got[i], None), np.sort(lines[i], None))
        assert not np.array_equal(got, lines)
    nan = np.array([[1.0, np.nan]])
    for args, kwargs in (((values[0], 0), {}), ((grid, 0), {"axis": 2}), ((values, -1), {}),
                         ((nan, 0), {})):  # fmt: skip
        with pytest.raises(ValueError):
            dealt(*args, **kwargs)
