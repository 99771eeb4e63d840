"""The memorisation chapter's experiments (Orvieto et al., ICML 2024, §3.1, §3.1.1, App. C)."""

import numpy as np
import pytest

from lrnn_core.orvieto.conditioning import law_eigenvalues, ring_eigenvalues
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state
from lrnn_core.orvieto.memorisation_experiments import (
    DigitReader,
    counter_states,
    counts_steps,
    fig1_draws,
    float32_counter,
    float64_states,
    one_node_draws,
    pooled_median,
    relative_errors,
    repeated_frames,
    three_channels,
    unrolled_gaps,
)


def test_float64_states_match_a_python_loop():
    lam = np.array([0.5 + 0.1j, -0.3j])
    B, u = np.array([[1.0], [2.0]]), np.array([[1.0], [0.25], [-1.0]])
    x, expected = np.zeros(2, complex), []
    for u_k in u:
        x = lam * x + B @ u_k
        expected.append(x)
    out = float64_states(lam, B, u)
    assert out.dtype == np.complex128
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=1e-15)


def test_unrolled_gaps_are_rounding_and_see_a_wrong_state():
    lam = np.array([0.9, 0.5j, -0.7 + 0.1j, 0.3 - 0.6j])
    u = np.random.default_rng(0).normal(size=5)
    gaps = unrolled_gaps(lam, u)
    assert gaps.shape == (5,) and gaps.max() < 1e-13
    # x_1 = u_1 * ones: the first gap is exactly zero
    assert gaps[0] == 0.0


def test_counter_states_count_and_see_leading_zeros():
    lam = np.array([0.9, 0.5j, -0.7 + 0.1j, 0.3 - 0.6j])
    v = np.random.default_rng(1).normal(size=7)  # L = k + 2: one shape fewer to compile
    c = counter_states(lam, v, 5)
    assert c.lam[0] == 1 and c.B.shape == (5, 2)
    assert counts_steps(c.x)
    np.testing.assert_array_equal(c.plain, c.shifted)  # no counter: no trace of zeros
    assert c.plain_t[0] == 5 and c.shifted_t[0] == 7
    np.testing.assert_array_equal(c.plain_t[1:], c.shifted_t[1:])


def test_counts_steps_rejects_a_decaying_or_complex_count():
    steps = np.arange(1, 5, dtype=complex)[:, None]
    assert counts_steps(steps)
    assert not counts_steps(0.999 * steps)
    assert not counts_steps(steps + 1e-3j)


def test_float32_counter_stalls_after_2_to_the_24():
    small = float32_counter(10)
    assert small.dtype == np.float32
    np.testing.assert_array_equal(small, np.arange(1, 11))


def test_three_channels_are_a_sine_a_walk_and_noise():
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    out = three_channels(60, rng_a)
    assert out.shape == (60, 3)
    np.testing.assert_allclose(out[:, 0], np.sin(2 * np.pi * np.arange(60) / 50))
    steps = rng_b.normal(size=60)
    np.testing.assert_allclose(out[:, 1], np.cumsum(steps) / 5)
    np.testing.assert_allclose(out[:, 2], rng_b.normal(size=60))


def test_relative_errors_per_row():
    target = np.array([[3.0, 4.0], [1.0, 0.0]])
    out = relative_errors(target + np.array([[0.0, 0.5], [0.0, 0.0]]), target)
    np.testing.assert_allclose(out, [0.1, 0.0])


def test_fig1_draws_use_one_seed_per_draw_and_size():
    draws = fig1_draws([2], 2, seed=5, r_min=0.9, r_max=1.0)
    assert [[lam.size for lam in d] for d in draws] == [[2], [2]]
    np.testing.assert_array_equal(draws[1][0], ring_eigenvalues(5 + 1000 + 2, 2, 0.9, 1.0))
    assert not np.array_equal(draws[0][0], draws[1][0])
    nodes = one_node_draws(2, seed=7, r_min=0.99)
    np.testing.assert_array_equal(nodes[1], ring_eigenvalues(8, 1, 0.99))


def test_pooled_median_pools_draws_and_sequences():
    mse = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4)
    expected = [np.median(mse[:, i].ravel()) for i in range(3)]
    np.testing.assert_allclose(pooled_median(mse), expected)


def test_digit_reader_caches_and_counts_distinct_nodes():
    digit = np.random.default_rng(2).uniform(size=16)
    reader = DigitReader(digit, seed=0)
    rec, distinct = reader("roots of unity", 16, 0.0, 1.0)
    assert distinct == 16
    np.testing.assert_allclose(rec, digit, atol=1e-10)
    assert reader("roots of unity", 16, 0.5, 0.7)[0] is rec  # radii ignored, cached
    lam = law_eigenvalues("real", 8, r_min=0.5, r_max=0.5, seed=0)
    rec_real, distinct_real = reader("real", 8, 0.5, 0.5)
    assert distinct_real == 1
    np.testing.assert_allclose(rec_real, reconstruct_from_last_state(lam, digit))


@pytest.mark.parametrize("r_maxs, expected", [((1.0,), ""), ((0.5,), "8=1")])
def test_repeated_frames_lists_the_frames_outside_prop_1(r_maxs, expected):
    reader = DigitReader(np.linspace(0, 1, 16), seed=0)
    text = repeated_frames(reader, {"N": [8], "r_min": [0.5], "r_max": list(r_maxs)})
    if not expected:
        assert text == ""
    else:
        assert text == ". Outside Prop. 1 (distinct λ_i): real, N=8, [0.5, 0.5]: 1 distinct λ"
