"""Memorisation by a linear RNN: Orvieto et al. (ICML 2024) §3.1 (eq. 3-5, Prop. 1), §3.1.1,
App. C, Fig. 1."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import ring_init, roots_of_unity
from lrnn_core.orvieto.conditioning import law_eigenvalues
from lrnn_core.orvieto.memorisation import (
    DigitReader,
    PrefixInverse,
    block_system,
    check_step,
    counter_states,
    counts_steps,
    draw_mse,
    float32_counter,
    float64_states,
    prefix_check,
    prefix_rank_errors,
    reconstruct_blocks,
    reconstruct_from_last_state,
    relative_errors,
    repeated_frames,
    rnn_states,
    three_channels,
    unrolled_gaps,
    with_time,
)


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def ring(seed, n, r_min=0.99, r_max=1.0):
    return np.asarray(ring_init(jax.random.key(seed), n, r_min, r_max))


def scalar_states(lam, u):
    """x_k = lam x_{k-1} + u_k for every channel (B = ones), by rnn_states."""
    return np.asarray(
        rnn_states(jnp.asarray(lam), jnp.ones((len(lam), 1)), jnp.asarray(u)[..., None])
    )


def test_rnn_states_match_a_python_loop_with_dense_B():
    rng = np.random.default_rng(0)
    lam, B, u = ring(0, 5), rng.normal(size=(5, 3)), rng.normal(size=(7, 3))
    x, expected = np.zeros(5, complex), []
    for u_k in u:
        x = lam * x + B @ u_k
        expected.append(x)
    np.testing.assert_allclose(rnn_states(lam, B, u), np.array(expected), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("k", [1, 5, 17, 24])
def test_prefix_inverse_equals_numpy_pinv(k):
    """flip(R_k^{-1} Q_k^H x) is V_k^+ x (eq. 5) for every k, against numpy's SVD pseudo-inverse."""
    L, lam = 24, ring(1, 40, 0.9)
    x = np.random.default_rng(1).normal(size=40) + 1j * np.random.default_rng(2).normal(size=40)
    expected = np.linalg.pinv(np.vander(lam, k)) @ x
    np.testing.assert_allclose(PrefixInverse(lam, L).apply(k, x), expected, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("lam_kind", ["roots", "ring"])
def test_all_prefixes_recover_the_input_at_every_step(lam_kind):
    """Prop. 1 at every k: u_{1:k} = V_k^+ x_k with x_k from the recurrence."""
    L = 48
    lam = np.asarray(roots_of_unity(L)) if lam_kind == "roots" else ring(2, 2 * L, 0.999)
    u = np.random.default_rng(3).normal(size=L)
    out = PrefixInverse(lam, L).all_prefixes(scalar_states(lam, u))
    for k in range(1, L + 1):
        np.testing.assert_allclose(out[k - 1, :k], u[:k], atol=1e-11)
        assert np.all(out[k - 1, k:] == 0)


def test_identity_residual_is_rounding_for_injective_maps():
    lam = ring(3, 64, 0.999)
    inverse = PrefixInverse(lam, 32)
    for k in (1, 16, 32):
        V = np.vander(lam, k)
        expected = np.abs(np.linalg.pinv(V) @ V - np.eye(k)).max()
        assert inverse.identity_residual(k) == pytest.approx(expected, abs=1e-12)
        assert inverse.identity_residual(k) < 1e-12


def test_singular_values_bound_every_prefix():
    lam, L = ring(8, 30, 0.5), 20
    s = PrefixInverse(lam, L).singular_values()
    np.testing.assert_allclose(s, np.linalg.svd(np.vander(lam, L), compute_uv=False), rtol=1e-10)
    for k in (1, 7, 19):
        s_k = np.linalg.svd(np.vander(lam, k), compute_uv=False)
        assert s_k[-1] >= s[-1] * (1 - 1e-12) and s_k[0] <= s[0] * (1 + 1e-12)


def test_prefix_inverse_refuses_non_injective_settings():
    with pytest.raises(ValueError, match="fewer than L"):
        PrefixInverse(roots_of_unity(8), 9)
    with pytest.raises(ValueError, match="rank-deficient"):
        PrefixInverse(np.array([0.5, 0.5, 0.2]), 3)
    inverse = PrefixInverse(roots_of_unity(8), 8)
    with pytest.raises(ValueError, match="k must be <= L = 8"):
        inverse.apply(9, np.ones(8))
    with pytest.raises(ValueError, match="x_k must have shape"):
        inverse.apply(2, np.ones(3))
    with pytest.raises(ValueError, match="states must have shape"):
        inverse.all_prefixes(np.ones((7, 8)))
    with pytest.raises(ValueError, match="lam contains non-finite"):
        PrefixInverse([0.5, np.nan], 2)
    with pytest.raises(TypeError, match="lam must be a float or complex array"):
        PrefixInverse(["a", "b"], 2)


def test_time_counter_is_exact():
    """§3.1.1: u_k = (1, v_k), lambda_0 = 1, B = ((1,0,..,0),(0,1,..,1))^T: x_{k,0} = k exactly."""
    L, lam = 1000, ring(4, 6, 0.5)
    full_lam, B = block_system([lam], time_counter=True)
    np.testing.assert_array_equal(B, np.r_[[[1.0, 0.0]], np.c_[np.zeros(6), np.ones(6)]])
    assert full_lam[0] == 1
    v = np.random.default_rng(4).normal(size=L)
    x = np.asarray(rnn_states(full_lam, B, with_time(v)))
    np.testing.assert_array_equal(x[:, 0], np.arange(1, L + 1))
    # the other states are untouched by the counter: they are the B = ones states of v
    np.testing.assert_allclose(x[:, 1:], scalar_states(lam, v), atol=1e-12)


def test_with_time():
    np.testing.assert_array_equal(with_time([2.0, 3.0]), [[1, 2], [1, 3]])
    np.testing.assert_array_equal(with_time(np.zeros((2, 3))), np.c_[np.ones(2), np.zeros((2, 3))])
    with pytest.raises(ValueError, match="v must have shape"):
        with_time(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("time_counter", [False, True])
def test_block_system_stores_each_channel_separately(time_counter):
    """App. C: with the block B, block j of x_k is V_{k,j} v_{j,1:k}; each channel comes back."""
    L, M = 30, 3
    lams = [
        np.asarray(roots_of_unity(L)),
        ring(5, 2 * L, 0.999),
        0.999 * np.asarray(roots_of_unity(L + 5)),
    ]
    lam, B = block_system(lams, time_counter=time_counter)
    assert lam.shape == (int(time_counter) + sum(map(len, lams)),) and B.shape == (
        lam.size,
        M + time_counter,
    )
    v = np.random.default_rng(5).normal(size=(L, M))
    x = np.asarray(rnn_states(lam, B, with_time(v) if time_counter else v))
    blocks = np.split(x[-1, int(time_counter) :], np.cumsum([len(b) for b in lams])[:-1])
    for j in range(M):
        np.testing.assert_allclose(blocks[j], np.vander(lams[j], L) @ v[:, j], atol=1e-10)
    np.testing.assert_allclose(
        reconstruct_blocks(lams, x[-1], L, time_counter=time_counter), v.T, atol=1e-9
    )
    np.testing.assert_allclose(
        reconstruct_blocks(lams, x[9], 10, time_counter=time_counter), v[:10].T, atol=1e-9
    )


def test_reconstruct_blocks_checks_sizes():
    with pytest.raises(ValueError, match=r"x_k must have shape \(5\)"):
        reconstruct_blocks([np.ones(2), np.ones(3)], np.ones(4), 2)
    with pytest.raises(ValueError, match="lams must be a non-empty"):
        block_system([])


def test_reconstruct_from_last_state():
    """Exact for N >= L with roots of unity; the minimum-norm solution (numpy lstsq) for N < L."""
    u = np.random.default_rng(6).uniform(size=(2, 40))
    np.testing.assert_allclose(reconstruct_from_last_state(roots_of_unity(40), u), u, atol=1e-12)
    lam = ring(7, 16, 0.9)
    expected = np.linalg.lstsq(np.vander(lam, 40), np.vander(lam, 40) @ u[0], rcond=None)[0].real
    np.testing.assert_allclose(reconstruct_from_last_state(lam, u[0]), expected, atol=1e-9)
    assert np.abs(expected - u[0]).max() > 0.05  # N < L: not injective, the input is lost
    with pytest.raises(TypeError, match="u must be real"):
        reconstruct_from_last_state(lam, u + 1j)


def test_reconstruct_from_last_state_uses_the_recurrence_state():
    """x_L = V_L u (eq. 4) is the last state of the recurrence: same result as V_L^+ applied to the
    state from rnn_states, for a batch."""
    u = np.random.default_rng(8).normal(size=(3, 24))
    lam = ring(9, 20, 0.95)
    x_L = scalar_states(lam, u)[:, -1]  # (3, N) from the scan
    expected = (np.linalg.pinv(np.vander(lam, 24)) @ x_L.T).real.T
    np.testing.assert_allclose(reconstruct_from_last_state(lam, u), expected, atol=1e-10)


def test_reconstruct_from_last_state_real_input_is_the_real_least_squares_solution():
    """real_input=True: [Re V; Im V] u = [Re x; Im x], 2N real equations (N=16 recovers L=32)."""
    L, N = 32, 16
    lam = np.asarray(ring_init(jax.random.key(10), N, 0.95, 1.0, max_phase=np.pi))
    u = np.random.default_rng(9).normal(size=(2, L))
    V = np.vander(lam, L)
    x = V @ u.T
    expected = np.linalg.lstsq(np.r_[V.real, V.imag], np.r_[x.real, x.imag], rcond=None)[0].T
    got = reconstruct_from_last_state(lam, u, real_input=True)
    np.testing.assert_allclose(got, expected, atol=1e-10)
    np.testing.assert_allclose(got, u, atol=1e-7)  # N complex states hold 2N real inputs
    assert np.abs(reconstruct_from_last_state(lam, u) - u).max() > 0.1  # complex min-norm: lost


def test_rnn_states_checks_shapes():
    with pytest.raises(ValueError, match="B must have shape"):
        rnn_states(np.ones(3), np.ones((3, 2)), np.ones((5, 1)))


def test_prefix_check_errors_against_a_loop_of_numpy_pinv():
    L = 12
    lam = ring(11, 2 * L, 0.9)
    u = np.random.default_rng(12).normal(size=L)
    err = prefix_check(lam, u, [L]).err
    x = scalar_states(lam, u)
    for k in (1, 5, L):
        u_hat = np.linalg.pinv(np.vander(lam, k)) @ x[k - 1]
        expected = np.linalg.norm(u_hat - u[:k]) / np.linalg.norm(u[:k])
        assert err[k - 1] == pytest.approx(expected, abs=1e-13)
    assert err.max() < 1e-10
    err_zero = prefix_check(lam, np.r_[0.0, u[1:]], [L]).err
    assert np.isnan(err_zero[0]) and np.all(np.isfinite(err_zero[1:]))


def test_reconstruct_from_last_state_merges_repeated_eigenvalues():
    """N copies of one real eigenvalue (outside Prop. 1) read back what the distinct set reads."""
    rng = np.random.default_rng(5)
    u = rng.normal(size=(3, 40))
    lam = np.array([0.5, 0.9, -0.3])
    repeated = np.repeat(lam, [4, 1, 7])[np.random.default_rng(6).permutation(12)]
    _, first = np.unique(repeated, return_index=True)
    distinct = repeated[np.sort(first)]
    np.testing.assert_array_equal(
        reconstruct_from_last_state(repeated, u), reconstruct_from_last_state(distinct, u)
    )
    one = reconstruct_from_last_state(np.full(784, 0.999), u[0])
    # rank 1: the minimum-norm input with the right state is u's projection on (0.999^(L-1..0))
    w = 0.999 ** np.arange(39, -1, -1)
    np.testing.assert_allclose(
        reconstruct_from_last_state(np.full(784, 0.999), u[:, :40]),
        np.outer(u @ w / (w @ w), w),
        atol=1e-12,
    )
    assert one.shape == (40,)


def test_prefix_check_on_the_roots_of_unity():
    lam = np.asarray(roots_of_unity(8))
    u = np.arange(1.0, 9.0)
    check = prefix_check(lam, u, [1, 4, 8])
    assert check.err.shape == (8,) and check.err.max() < 1e-12
    assert check.residual.shape == (3,) and check.residual.max() < 1e-12
    assert check.cond == pytest.approx(1.0)  # V_8 / sqrt(8) is unitary


def test_prefix_rank_errors_lose_the_prefix_beyond_n():
    lam = np.asarray(roots_of_unity(3))
    u = np.array([1.0, 2.0, -1.0, 0.5, 1.5, -2.0])
    err, rank = prefix_rank_errors(lam, u, [1, 2, 3, 4, 6])
    assert rank.tolist() == [1, 2, 3, 3, 3]
    assert err[:3].max() < 1e-12 and err[3:].min() > 0.1
    # k = 6 with the 3rd roots of unity: tokens 3 apart alias, each gets its class average
    avg = np.array([(u[0] + u[3]) / 2, (u[1] + u[4]) / 2, (u[2] + u[5]) / 2] * 2)
    assert err[-1] == pytest.approx(np.linalg.norm(avg - u) / np.linalg.norm(u))


def test_draw_mse_is_the_per_sequence_error_of_each_draw():
    u = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.0]])
    v = np.array([0.25, 0.5, 1.0])  # V_L of the single node 0.5
    u_hat = np.outer(u @ v, v) / (v @ v)
    exact = roots_of_unity(3)  # N = L: recovered to rounding
    mse = draw_mse([[np.array([0.5]), exact], [exact, np.array([0.5])]], u)
    assert mse.shape == (2, 2, 2)
    assert mse[0, 0] == pytest.approx(np.mean((u_hat - u) ** 2, axis=1))
    assert mse[1, 1] == pytest.approx(mse[0, 0]) and mse[0, 1] == pytest.approx([0, 0], abs=1e-28)


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
    assert c["lam"][0] == 1 and c["B"].shape == (5, 2)
    assert counts_steps(c["x"])
    np.testing.assert_array_equal(c["plain"], c["shifted"])  # no counter: no trace of zeros
    assert c["plain_t"][0] == 5 and c["shifted_t"][0] == 7
    np.testing.assert_array_equal(c["plain_t"][1:], c["shifted_t"][1:])


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


def test_relative_errors_per_row_or_per_column():
    target = np.array([[3.0, 4.0], [1.0, 0.0]])
    out = relative_errors(target + np.array([[0.0, 0.5], [0.0, 0.0]]), target)
    np.testing.assert_allclose(out, [0.1, 0.0])
    out = relative_errors(target.T + np.array([[0.0, 0.0], [0.5, 0.0]]), target.T, axis=0)
    np.testing.assert_allclose(out, [0.1, 0.0])


def test_check_step_defaults_to_L_and_refuses_steps_beyond():
    assert check_step(None, 5) == 5 and check_step(3, 5) == 3
    with pytest.raises(ValueError, match="k must be <= L = 5"):
        check_step(6, 5)


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
