"""Sparse-input reconstruction, eqs. (6)-(7) of Orvieto et al. (ICML 2024), against NumPy, and
the experiment drivers of App. E.2 (Figs. 9-12) against direct computations."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.hippo import legs_reconstruct, legs_states
from lrnn_core.core.vandermonde import numerical_rank, vandermonde
from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.sparse import (
    LOG10_SINGULAR,
    SINGULAR_COND,
    SweepSet,
    below_reference,
    conditioning_grid,
    dense_error,
    fig9_readings,
    fig9_sizes,
    fig9_trend_falls,
    fig12_statistics,
    fits_log_axis,
    flag_singular,
    gamma,
    gram_condition_candidates,
    grows_with_P,
    hippo_vs_ring,
    legendre_ring_errors,
    log_level,
    map_condition_candidates,
    map_condition_study,
    map_readings,
    rank_gap_bound,
    reading_ranges,
    real_stack,
    reconstruct_sparse,
    reconstruction_map,
    reconstruction_sweep,
    relative_errors,
    smallest_perfect_N,
    smooth_inputs,
    sparse_sweeps,
    summarise,
    sweep_curves,
    sweep_problems,
    vandermonde_rank_profile,
)
from lrnn_core.orvieto.wavelets import random_wavelet_problem, sparse_signal, wavelet_basis


def ring(seed, n, r_min, r_max=1.0):
    with jax.enable_x64(True):
        return np.asarray(ring_init(jax.random.key(seed), n, r_min, r_max, dtype=jnp.float64))


def naive(lam, Psi, u, k):
    """Reference: complex and real ranks of V_k Psi_k and the relative error of
    Psi_k lstsq([Re;Im] V_k Psi_k, [Re;Im] x_k)."""
    x = np.zeros(lam.size, complex)
    for j in range(k):
        x = lam * x + u[j]
    G = np.vander(lam, k) @ Psi[:k]
    alpha = np.linalg.lstsq(real_stack(G), np.r_[x.real, x.imag], rcond=None)[0]
    err = np.linalg.norm(Psi[:k] @ alpha - u[:k]) / np.linalg.norm(u[:k])
    return np.linalg.matrix_rank(G), np.linalg.matrix_rank(real_stack(G)), err


def test_gamma_is_vandermonde_times_basis():
    lam, Psi = ring(0, 6, 0.5), wavelet_basis(32, 4)
    with jax.enable_x64(True):
        V = np.asarray(vandermonde(jnp.asarray(lam), 20))
    np.testing.assert_allclose(gamma(lam, Psi, 20), V @ Psi[:20], atol=1e-13)


def test_sweep_matches_naive_lstsq_for_every_k():
    L, N = 64, 5
    lam = ring(1, N, 0.8)
    Psi = wavelet_basis(L, wavelet="haar", columns=np.array([0, 3, 9, 20, 40, 41, 60, 63]))
    u, _ = sparse_signal(np.random.default_rng(2), Psi)
    sweep = reconstruction_sweep(lam, Psi, u, chunk=7)  # chunks that do not divide L
    ks = (
        np.flatnonzero(np.cumsum(u**2) > 0) + 1
    )  # skip the k with u_{1:k} = 0 (relative error undefined)
    for k in ks[::5]:
        rank, rank_real, err = naive(lam, Psi, u, k)
        assert sweep.rank_gamma[k - 1] == rank <= min(N, Psi.shape[1])
        assert sweep.rank_real[k - 1] == rank_real
        assert sweep.rel_error[k - 1] == pytest.approx(err, rel=1e-4, abs=1e-12)
    assert np.all(np.isnan(sweep.rel_error[: ks[0] - 1]))
    assert sweep.rank_gamma.max() == N < sweep.rank_real.max()  # 5 complex rows, 10 real ones


def test_sweep_of_several_inputs_is_the_sweep_of_each():
    """N = 2 (4 real equations, 5 unknowns): errors of order one, compared to rounding."""
    L, N = 64, 2
    lam = ring(3, N, 0.9)
    Psi = wavelet_basis(L, wavelet="haar", columns=np.array([0, 2, 7, 30, 51]))
    u, _ = sparse_signal(np.random.default_rng(4), Psi, batch=3)
    ks = np.arange(4, L + 1, 4)
    both = reconstruction_sweep(lam, Psi, u, ks, chunk=5)
    assert both.rel_error.shape == (3, ks.size)
    for m in range(3):
        one = reconstruction_sweep(lam, Psi, u[m], ks)
        assert np.nanmax(one.rel_error) > 0.1
        np.testing.assert_allclose(both.rel_error[m], one.rel_error, rtol=1e-9, atol=1e-13)
        np.testing.assert_array_equal(both.rank_gamma, one.rank_gamma)


def test_exact_recovery_when_rank_allows():
    """2N >= P real equations, eigenvalues near the circle: a P-sparse input comes back (~1e-10)."""
    L, P, N = 256, 16, 16
    Psi = wavelet_basis(L, P)
    u, _ = sparse_signal(np.random.default_rng(3), Psi)
    sweep = reconstruction_sweep(ring(4, N, 0.99), Psi, u, ks=np.arange(16, L + 1, 16))
    assert sweep.rank_gamma[-1] == sweep.rank_real[-1] == P
    assert np.max(sweep.rel_error) < 1e-9
    too_small = reconstruction_sweep(
        ring(4, 4, 0.99), Psi, u, ks=[L]
    )  # 8 real equations < 16 unknowns
    assert too_small.rank_real[0] == 8 and too_small.rank_gamma[0] == 4
    assert too_small.rel_error[0] > 1e-2


def test_reconstruction_map_identity_basis_is_pinv_and_inverts():
    L, N = 24, 16
    lam = ring(5, N, 0.9)
    Omega = reconstruction_map(lam, np.eye(L))
    np.testing.assert_allclose(Omega, np.linalg.pinv(real_stack(np.vander(lam, L))), atol=1e-10)
    u = np.random.default_rng(6).standard_normal(L)
    x = np.vander(lam, L) @ u
    np.testing.assert_allclose(Omega @ np.r_[x.real, x.imag], u, atol=1e-10)


def test_sparse_map_inverts_and_its_norm_is_inverse_smallest_singular_value():
    L, N = 64, 8
    lam, Psi = ring(7, N, 0.9), wavelet_basis(64, 8)
    Omega = reconstruction_map(lam, Psi)
    u, _ = sparse_signal(np.random.default_rng(8), Psi)
    x = np.vander(lam, L) @ u
    np.testing.assert_allclose(Omega @ np.r_[x.real, x.imag], u, atol=1e-11)
    s = np.linalg.svd(real_stack(gamma(lam, Psi, L)), compute_uv=False)
    assert np.linalg.norm(Omega, 2) == pytest.approx(
        1 / s[-1], rel=1e-10
    )  # Psi has orthonormal columns
    norm = map_condition_candidates(lam, Psi)["norm real"]
    assert norm == pytest.approx(np.linalg.norm(Omega, 2), rel=1e-10)
    with pytest.raises(ValueError, match="orthonormal"):
        map_condition_candidates(lam, 2 * Psi)


def test_real_gram_condition_matches_numpy_cond():
    lam, Psi = ring(9, 8, 0.9), wavelet_basis(64, 8)
    G = real_stack(gamma(lam, Psi, 64))
    np.testing.assert_array_equal(gamma(lam, Psi), gamma(lam, Psi, 64))  # default k = L
    real = gram_condition_candidates(lam, Psi)["real"]
    assert real == pytest.approx(np.linalg.cond(G.T @ G), rel=1e-6)
    assert gram_condition_candidates(lam, wavelet_basis(64, 32))["real"] == float("inf")


def test_reconstruction_map_truncates_with_the_one_cut_off():
    """A numerically singular real-stacked V_L (N = 48, L = 96, r_min = 0): the map is the
    truncated pinv (NumPy's default tolerance), and its norm is 1 / the smallest kept value."""
    L, N = 96, 48
    lam = ring(13, N, 0.0)
    G = real_stack(np.vander(lam, L))
    s = np.linalg.svd(G, compute_uv=False)
    tol = max(G.shape) * np.finfo(float).eps * s[0]
    assert np.sum(s <= tol) > 0  # the cut really drops something
    Omega = reconstruction_map(lam, np.eye(L))
    expected = np.linalg.pinv(G, rtol=max(G.shape) * np.finfo(float).eps)
    np.testing.assert_allclose(Omega, expected, atol=1e-6 * np.abs(expected).max())
    assert np.linalg.norm(Omega, 2) == pytest.approx(1 / s[s > tol][-1], rel=1e-6)


def test_numerical_rank_matches_matrix_rank():
    M = np.random.default_rng(10).standard_normal((12, 5)) @ np.random.default_rng(
        11
    ).standard_normal((5, 9))
    assert (
        numerical_rank(np.linalg.svd(M, compute_uv=False), M.shape) == np.linalg.matrix_rank(M) == 5
    )


def test_vandermonde_rank_profile_bounds_every_k():
    L, N = 100, 12
    lam = ring(12, N, 0.9)
    grid, ranks, lower = vandermonde_rank_profile(lam, L, stride=5)
    exact = np.array([np.linalg.matrix_rank(np.vander(lam, k)) for k in range(1, L + 1)])
    np.testing.assert_array_equal(ranks, exact[grid - 1])
    assert np.all(lower <= exact)
    assert np.all(lower[2 * N - 1 :] == N)  # certified full rank beyond 2N


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((np.array([1.2, 0.5]), np.eye(4), np.ones(4)), ValueError),  # |lambda| > 1
        ((np.array([np.nan]), np.eye(4), np.ones(4)), ValueError),
        ((np.array([0.5]), np.ones(4), np.ones(4)), ValueError),  # basis not 2-D
        ((np.array([0.5]), np.eye(4), np.ones(3)), ValueError),  # u of the wrong length
    ],
)
def test_bad_inputs_raise(args, error):
    with pytest.raises(error):
        reconstruction_sweep(*args)


def test_bad_ks_raise():
    with pytest.raises(ValueError, match="ks"):
        reconstruction_sweep(np.array([0.5]), np.eye(4), np.ones(4), ks=[3, 2])


def test_reconstruct_sparse_matches_lstsq_on_the_real_system():
    L, N = 64, 6
    lam = ring(14, N, 0.95)
    Psi = wavelet_basis(L, wavelet="haar", columns=np.array([1, 5, 17, 40]))
    u, _ = sparse_signal(np.random.default_rng(15), Psi, batch=3)
    V = np.vander(lam, L)
    G, x = V @ Psi, V @ u.T
    alpha = np.linalg.lstsq(np.r_[G.real, G.imag], np.r_[x.real, x.imag], rcond=None)[0]
    np.testing.assert_allclose(reconstruct_sparse(lam, Psi, u), (Psi @ alpha).T, atol=1e-10)
    np.testing.assert_allclose(reconstruct_sparse(lam, Psi, u[0]), u[0], atol=1e-8)


def test_log_level_flags_values_above_one_over_eps():
    np.testing.assert_allclose(log_level([1.0, 1e3, SINGULAR_COND]), [0.0, 3.0, np.log10(2**52)])
    assert log_level(2 * SINGULAR_COND) == np.inf and log_level(np.inf) == np.inf


def test_gram_condition_candidates_match_numpy():
    lam, Psi = ring(16, 12, 0.9), wavelet_basis(64, 8)
    G = np.vander(lam, 64) @ Psi
    Gr = real_stack(G)
    c = gram_condition_candidates(lam, Psi)
    assert c["complex"] == pytest.approx(np.linalg.cond(G) ** 2, rel=1e-9)
    assert c["real"] == pytest.approx(np.linalg.cond(Gr) ** 2, rel=1e-9)
    assert c["formed complex"] == pytest.approx(np.linalg.cond(G.conj().T @ G), rel=1e-6)
    assert c["formed real"] == pytest.approx(np.linalg.cond(Gr.T @ Gr), rel=1e-6)
    # P = 16 > N = 12: the complex Gram is singular, the real-stacked one (24 x 16) is not
    wide = gram_condition_candidates(lam, wavelet_basis(64, 16))
    assert wide["complex"] == np.inf and np.isfinite(wide["real"])


def test_map_condition_candidates_match_numpy():
    lam, Psi = ring(17, 8, 0.9), wavelet_basis(64, 6)
    G = np.vander(lam, 64) @ Psi
    c = map_condition_candidates(lam, Psi)
    assert c["norm real"] == pytest.approx(
        np.linalg.norm(reconstruction_map(lam, Psi), 2), rel=1e-9
    )
    assert c["cond complex"] == pytest.approx(np.linalg.cond(G), rel=1e-9)
    assert c["cond^2 complex"] == pytest.approx(np.linalg.cond(G) ** 2, rel=1e-9)
    # identity basis with P = L > N: cond over the N singular values of the wide V_L
    s = np.linalg.svd(np.vander(lam, 16), compute_uv=False)
    assert map_condition_candidates(lam, np.eye(16))["cond complex"] == pytest.approx(
        s[0] / s[-1], rel=1e-9
    )
    # a square real-stacked V_L that loses rank under the cut-off: the norm is flagged
    lam48 = ring(13, 48, 0.0)
    assert map_condition_candidates(lam48, np.eye(96))["norm real"] == np.inf
    with pytest.raises(ValueError, match="orthonormal"):
        map_condition_candidates(lam, 2 * Psi)


@pytest.mark.parametrize(("seed", "N", "r_min"), [(20, 24, 0.0), (21, 40, 0.9), (22, 8, 0.5)])
def test_rank_gap_bound_bounds_every_k_up_to_2N(seed, N, r_min):
    lam = ring(seed, N, r_min)
    gaps = [min(N, k) - np.linalg.matrix_rank(np.vander(lam, k)) for k in range(1, 2 * N + 1)]
    assert max(gaps) <= rank_gap_bound(lam)


def test_rank_gap_bound_counts_small_singular_values():
    roots = np.exp(2j * np.pi * np.arange(8) / 8) * (1 - 1e-15)  # |lambda| <= 1 after rounding
    assert rank_gap_bound(roots) == 0  # V_8 is (nearly) sqrt(8) times a unitary matrix
    assert rank_gap_bound(np.array([0.9, 0.9, 0.3])) == 1  # two equal rows


def test_sparse_sweeps_repeat_reconstruction_sweep_per_draw():
    L = 64
    Psi = wavelet_basis(L, 4)
    u, _ = sparse_signal(np.random.default_rng(0), Psi, batch=2)
    ks = np.arange(8, L + 1, 8)
    out = sparse_sweeps(0.9, {3: [5, 6], 6: [7]}, {"coarse": (Psi, u)}, ks, v_stride=4)
    res = out["coarse"][3]
    assert res.rel_error.shape == (2, 2, ks.size) and res.v_lower.shape == (2, L)
    for d, seed in enumerate([5, 6]):
        lam = ring_eigenvalues(seed, 3, 0.9)
        ref = reconstruction_sweep(lam, Psi, u, ks)
        np.testing.assert_allclose(res.rel_error[d], ref.rel_error, rtol=1e-9, atol=1e-14)
        np.testing.assert_array_equal(res.rank_gamma[d], ref.rank_gamma)
        assert res.gap_bound[d] == rank_gap_bound(lam)
    assert out["coarse"][6].rank_gamma.shape == (1, ks.size)


def small_sweep_set():
    """D=2 draws, M=1 input, K=4 steps of a length-8 problem with N=2."""
    ks = np.array([2, 4, 6, 8])
    errors = np.array([[[np.nan, 1e-3, 1e-5, 1e-2]], [[1e-1, 1e-4, 1e-6, 1e-3]]])  # (D=2, M=1, K)
    lower = np.tile([1, 2, 2, 2, 2, 2, 2, 2], (2, 1))
    res = SweepSet(
        ks=ks,
        rank_gamma=np.array([[1, 2, 2, 2], [1, 1, 2, 2]]),
        rel_error=errors,
        v_grid=np.array([1, 2, 4]),
        v_ranks=np.array([[1, 2, 2], [1, 1, 2]]),
        v_lower=lower,
        gap_bound=np.array([0, 1]),
    )
    return res


def test_summarise_numbers():
    res = small_sweep_set()
    s = summarise({2: res})[2]
    assert s["worst error"] == 1e-1
    assert s["median max error"] == pytest.approx((1e-2 + 1e-1) / 2)
    assert s["median late error"] == pytest.approx((1e-2 + 1e-3) / 2)  # k >= L/2 = 4
    assert s["max rank gamma"] == 2 and s["median final rank gamma"] == 2
    assert s["max gap"] == 1 and s["gap within bound"] is True  # gaps (0, 1), bounds (0, 1)
    assert s["full after 2N"] is True
    tight = SweepSet(**{**res.__dict__, "gap_bound": np.array([0, 0])})
    assert summarise({2: tight})[2]["gap within bound"] is False


def test_conditioning_grid_is_log10_of_each_reading():
    seeds = np.arange(2 * 2 * 1 * 2).reshape(2, 2, 1, 2) + 100
    r_mins, Ns, Ps, L = [0.0, 0.9], [16], [4, 8], 32
    out = conditioning_grid(seeds, r_mins, Ns, Ps, L)
    assert set(out) == {"complex", "real", "formed complex", "formed real"}
    lam = ring_eigenvalues(int(seeds[1, 1, 0, 0]), 16, 0.9)
    ref = gram_condition_candidates(lam, wavelet_basis(L, 4))
    for name, value in ref.items():
        assert out[name][1, 1, 0, 0] == pytest.approx(np.log10(value), rel=1e-12)
    with pytest.raises(ValueError, match="seeds"):
        conditioning_grid(seeds[:, :1], r_mins, Ns, Ps, L)


def test_flag_singular():
    np.testing.assert_array_equal(
        flag_singular([1.0, LOG10_SINGULAR, LOG10_SINGULAR + 0.1, np.inf]),
        [1.0, LOG10_SINGULAR, np.inf, np.inf],
    )


def ordered(draws=5, noise=0.0, seed=0, r=2.0, n=2.0, p=2.0):
    """log10 levels (D, R=2, N=3, P=3): ``r`` decades lower per step up in r_min, ``n`` per
    step up in N, ``p`` higher per step up in P, plus Gaussian noise of sd ``noise``."""
    ri, ni, pi = np.meshgrid([0, -1], [0, -1, -2], [0, 1, 2], indexing="ij")
    base = 8 + r * ri + n * ni + p * pi
    return base + noise * np.random.default_rng(seed).standard_normal((draws, *base.shape))


def test_fig9_trend_falls_detects_every_stated_trend():
    levels = ordered(noise=0.1)
    sizes = {"N": 2 * 3, "P": 2 * 3, "r_min": 3 * 3}  # lines: the other two axes
    for trend, size in sizes.items():
        got = fig9_trend_falls(levels, trend)
        assert got.dtype == bool and got.shape == (size,) and got.all(), trend


def test_fig9_trend_falls_a_grid_that_depends_on_P_alone_fails_N_and_r_min():
    levels = ordered(noise=0.1, r=0.0, n=0.0)  # falls with P only
    assert fig9_trend_falls(levels, "P").all()
    for trend in ("N", "r_min"):
        got = fig9_trend_falls(levels, trend)
        assert got.sum() <= 1 and not got.sum() > got.size / 2, trend  # 1/252 + 1e-3 a line


def test_fig9_trend_falls_direction_and_one_reversed_step():
    assert not fig9_trend_falls(ordered(noise=0.1, p=-2.0), "P").any()  # rises as P shrinks
    levels = ordered(noise=0.1)
    levels[:, 0, 1, :] += 5.0  # panel r_min 0, middle N: a significant rise to it in N
    assert fig9_trend_falls(levels, "N").tolist() == [False] * 3 + [True] * 3


def test_fig9_trend_falls_singular_cells_tie_at_the_cap():
    levels = ordered(noise=0.1)
    levels[:, :, 0, :] = np.inf  # smallest N singular (inf, e.g. P > N): resolved cells below it
    assert fig9_trend_falls(levels, "N").all()
    levels[:, :, :, 0] = LOG10_SINGULAR + 3.0  # smallest P singular: every N line there ties
    got = fig9_trend_falls(levels, "N").reshape(2, 3)
    assert not got[:, 0].any() and got[:, 1:].all()
    assert not fig9_trend_falls(levels, "P").reshape(2, 3)[:, 1:].any()  # falls to singular


def test_fig9_trend_falls_dealt_control():
    levels = ordered(noise=0.1)
    for trend in ("N", "P", "r_min"):  # the trend is gone: 1/252 + 1e-3 a line
        got = np.array([fig9_trend_falls(levels, trend, seed=s) for s in range(20)])
        assert got.mean() < 0.05 and not (got.sum(axis=1) > got.shape[1] / 2).any(), trend
    np.testing.assert_array_equal(  # the same seed deals the same way
        fig9_trend_falls(levels, "N", seed=3), fig9_trend_falls(levels, "N", seed=3)
    )


def test_fig9_trend_falls_rejects_bad_input():
    with pytest.raises(ValueError, match="trend must be one of"):
        fig9_trend_falls(ordered(), "L")
    with pytest.raises(ValueError, match="shape"):
        fig9_trend_falls(ordered()[0], "N")
    levels = ordered()
    levels[0, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fig9_trend_falls(levels, "N")


def test_map_condition_study_matches_candidates():
    L = 32
    bases = {"Haar": [wavelet_basis(L, 4), wavelet_basis(L, 8)]}
    seeds = np.array([[3, 5, 7], [4, 6, 8]])  # init x (basis, basis, Van. inverse)
    out = map_condition_study(seeds, 8, 0.9, bases)
    assert set(out) == {"norm real", "cond complex", "cond^2 complex"}
    assert out["cond complex"]["Haar"].shape == (2, 2)
    lam = ring_eigenvalues(6, 8, 0.9)  # second init, second basis
    ref = map_condition_candidates(lam, bases["Haar"][1])
    assert out["cond complex"]["Haar"][1, 1] == pytest.approx(ref["cond complex"], rel=1e-9)
    van = map_condition_candidates(ring_eigenvalues(7, 8, 0.9), np.eye(L))
    assert out["norm real"]["Van. inverse"][0, 0] == pytest.approx(van["norm real"], rel=1e-9)
    with pytest.raises(ValueError, match="seeds must have shape"):
        map_condition_study(seeds[:, :2], 8, 0.9, bases)
    with pytest.raises(ValueError, match="seeds must not repeat"):
        map_condition_study(np.zeros((2, 3), int), 8, 0.9, bases)


def test_grows_with_P_asks_for_z_standard_errors_of_the_median_difference():
    rng = np.random.default_rng(0)
    low = 10.0 ** rng.normal(3.0, 0.1, 9)
    assert grows_with_P(np.stack([low, low * 10], axis=1), 0, 1)  # one decade up
    assert not grows_with_P(np.stack([low, low * 1.01], axis=1), 0, 1)  # within the noise
    assert not grows_with_P(np.stack([low * 10, low], axis=1), 0, 1)  # falls
    # a singular map (inf) is capped at 1/eps: above every finite level, still "grows"
    assert grows_with_P(np.stack([low, np.full(9, np.inf)], axis=1), 0, 1)
    with pytest.raises(ValueError, match="draws"):
        grows_with_P(np.ones((1, 2)), 0, 1)


def test_below_reference_needs_a_factor_ten_and_a_finite_value():
    got = below_reference([1.0, 9.0, 11.0, np.inf], 100.0)
    np.testing.assert_array_equal(got, [True, True, False, False])
    np.testing.assert_array_equal(below_reference([40.0], 100.0, factor=2.0), [True])


def test_sweep_curves_medians_ranges_and_the_steps_seen():
    c = sweep_curves(small_sweep_set())
    np.testing.assert_array_equal(c["v_rank"], [1.0, 1.5, 2.0])
    np.testing.assert_array_equal(c["v_lower"], [1, 2, 2, 2, 2, 2, 2, 2])
    np.testing.assert_array_equal(c["rank_gamma"][0], [1.0, 1.5, 2.0, 2.0])
    np.testing.assert_array_equal(c["rank_gamma"][1], [1, 1, 2, 2])
    np.testing.assert_array_equal(c["rank_gamma"][2], [1, 2, 2, 2])
    np.testing.assert_array_equal(c["k_seen"], [4, 6, 8])  # the first draw's input is 0 up to k=2
    np.testing.assert_allclose(c["error"][0], [(1e-3 + 1e-4) / 2, (1e-5 + 1e-6) / 2, 5.5e-3])
    np.testing.assert_array_equal(c["error"][1], [1e-4, 1e-6, 1e-3])
    np.testing.assert_array_equal(c["error"][2], [1e-3, 1e-5, 1e-2])


def test_sweep_problems_random_then_coarsest_atoms():
    problems = sweep_problems(np.random.default_rng(4), 32, 4, 3)
    rng = np.random.default_rng(4)
    basis, inputs = random_wavelet_problem(rng, 32, 4, 3)
    coarse = wavelet_basis(32, 4)
    np.testing.assert_array_equal(problems["random atoms"][0], basis)
    np.testing.assert_array_equal(problems["random atoms"][1], inputs)
    np.testing.assert_array_equal(problems["coarsest atoms"][0], coarse)
    np.testing.assert_array_equal(problems["coarsest atoms"][1], sparse_signal(rng, coarse, 3)[0])
    assert list(problems) == ["random atoms", "coarsest atoms"]


def test_map_readings_are_the_candidates_of_each_draw():
    L, basis = 32, wavelet_basis(32, 8)
    out = map_readings([3, 4], 8, 0.9, basis)
    for d, seed in enumerate([3, 4]):
        ref = map_condition_candidates(ring_eigenvalues(seed, 8, 0.9), basis)
        for reading, value in ref.items():
            assert out[reading][d] == pytest.approx(10 ** log_level(value), rel=1e-12)
    assert out["norm real"].shape == (2,) and L == basis.shape[0]


def test_dense_error_exact_with_N_equal_L_and_large_below():
    rng = np.random.default_rng(0)
    dense = rng.standard_normal(16)
    assert dense_error(dense, 0.5, 16, 3) < 1e-9  # V_16 square and invertible
    lam = ring_eigenvalues(3, 4, 0.5)
    V = lam[:, None] ** np.arange(15, -1, -1)
    rec = (np.linalg.pinv(V) @ (V @ dense)).real
    ref = np.linalg.norm(rec - dense) / np.linalg.norm(dense)
    assert dense_error(dense, 0.5, 4, 3) == pytest.approx(ref, rel=1e-8)
    assert dense_error(dense, 0.5, 4, 3) > 0.5


def test_fig9_sizes():
    assert fig9_sizes(512) == ([256, 512, 1024], [64, 128, 256, 512])
    assert fig9_sizes(128) == ([64, 128, 256], [16, 32, 64, 128])


def test_fig9_readings():
    raw = {"complex": np.array([[[[2.0]]], [[[4.0]]], [[[9.0]]]]), "real": np.ones((3, 1, 1, 1))}
    out = fig9_readings(raw)
    assert out["log10 complex"][0, 0, 0] == 4.0  # median over draws
    assert out["ln complex"][0, 0, 0] == pytest.approx(4.0 * np.log(10))
    assert out["log10 cond(Γ) complex"][0, 0, 0] == 2.0
    assert out["log10 cond(Γ) real"][0, 0, 0] == 0.5
    assert len(out) == 6


def test_smooth_inputs_are_sums_of_cosines():
    L, n, periods = 16, 2, 3
    x = smooth_inputs(np.random.default_rng(2), L, n, periods)
    rng = np.random.default_rng(2)
    a, phi = rng.standard_normal((periods, n)), rng.uniform(0, 2 * np.pi, (periods, n))
    for b in range(n):
        for k in range(1, L + 1):
            ref = sum(a[m, b] * np.cos(2 * np.pi * (m + 1) * k / L + phi[m, b]) for m in range(3))
            assert x[k - 1, b] == pytest.approx(ref, abs=1e-12)


def test_relative_errors_of_columns():
    target = np.array([[3.0, 1.0], [4.0, 0.0]])
    np.testing.assert_allclose(relative_errors(1.1 * target, target, axis=0), [0.1, 0.1])
    np.testing.assert_allclose(relative_errors(np.zeros((2, 2)), target, axis=0), [1.0, 1.0])


def test_hippo_vs_ring_medians_and_the_exact_ring_at_2N_equal_L():
    L = 16
    u = np.random.default_rng(0).standard_normal((L, 3))
    hippo, ring = hippo_vs_ring(u, {8: 5, 2: 6}, 0.5)
    assert ring[0] < 1e-10  # 2N = L real equations: the ring recovers any input
    assert ring[1] > 0.5
    ref = np.median(relative_errors(legs_reconstruct(legs_states(u, 2), L), u, axis=0))
    assert hippo[1] == pytest.approx(ref, rel=1e-12)
    assert hippo.shape == ring.shape == (2,)


def test_legendre_ring_errors_skip_N_below_P_and_recover_inputs_in_the_span():
    rng = np.random.default_rng(1)
    basis = wavelet_basis(32, 4)
    inputs = basis @ rng.standard_normal((4, 2))
    out = legendre_ring_errors(inputs, basis, {2: 1, 8: 2}, 0.5)
    assert list(out) == [8]
    error, cond = out[8]
    assert error < 1e-12
    real = gram_condition_candidates(ring_eigenvalues(2, 8, 0.5), basis)["real"]
    assert cond == pytest.approx(real**0.5)


def summary(err, rank=8):
    """A sweep summary with the field smallest_perfect_N reads."""
    return {"median max error": err, "max rank gamma": rank}


def test_smallest_perfect_N():
    errors = {8: 0.9, 16: 0.8, 32: 0.5, 64: 8e-2, 128: 7e-9, 256: 1e-13}
    summaries = {N: summary(e) for N, e in errors.items()}
    assert smallest_perfect_N(summaries, 1e-10) == 256
    assert smallest_perfect_N(summaries, level=1e-8) == 128
    assert smallest_perfect_N({8: summary(1.0)}, 1e-10) is None


def test_reading_ranges_thresholds():
    readings = {
        "log10 a": np.array([1.0, 10.0, 18.0]),  # one singular cell
        "ln a": np.array([1.0, 30.0, 40.0]),  # ln threshold 36.0: one singular cell
        "log10 b": np.array([3.0, 12.0]),
    }
    r = reading_ranges(readings)
    keys = ["min", "resolved max", "max", "cells > 1/eps"]
    assert r["log10 a"] == dict(zip(keys, (1.0, 10.0, 18.0, 1), strict=True))
    assert r["ln a"]["resolved max"] == 30.0 and r["ln a"]["cells > 1/eps"] == 1
    assert np.log(10) * LOG10_SINGULAR == pytest.approx(36.04, abs=0.01)
    assert r["log10 b"] == dict(zip(keys, (3.0, 12.0, 12.0, 0), strict=True))


def test_fits_log_axis():
    assert fits_log_axis([np.array([1e2, 1e5]), np.array([1e11])])  # limits 10^1.55, 10^11.45
    assert not fits_log_axis([np.array([1e3, 1e8])])  # upper limit below 1e11
    assert not fits_log_axis([np.array([1e2, np.inf, 1e11])])  # a singular value
    assert not fits_log_axis([np.array([1e-3, 1e11])])  # lower limit below 1e-1


def test_fig12_statistics_median_mean_and_fit():
    jitter = 1.0 + 0.01 * np.arange(4)[:, None]
    study = {
        "norm real": {
            "Haar": jitter * np.array([1.0, 10.0, 1e3]),
            "Van. inverse": jitter[:, :1] * 1e5,
        }
    }
    stats, fits = fig12_statistics(study)
    np.testing.assert_allclose(stats["norm real", "median"]["Haar"], 1.015 * np.array([1, 10, 1e3]))
    np.testing.assert_allclose(stats["norm real", "mean"]["Van. inverse"], [1.015e5])
    assert fits == {("norm real", "median"): False, ("norm real", "mean"): False}
