"""Sparse-input reconstruction, eqs. (6)-(7) of Orvieto et al. (ICML 2024), against NumPy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import ring_init
from lrnn_core.core.vandermonde import numerical_rank, vandermonde
from lrnn_core.orvieto.sparse import (
    SINGULAR_COND,
    gamma,
    gamma_gram_condition,
    gram_condition_candidates,
    log_level,
    map_condition_candidates,
    rank_gap_bound,
    real_stack,
    reconstruct_sparse,
    reconstruction_map,
    reconstruction_map_norm,
    reconstruction_sweep,
    vandermonde_rank_profile,
)
from lrnn_core.orvieto.wavelets import sparse_signal, wavelet_basis


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
    assert reconstruction_map_norm(lam, Psi) == pytest.approx(np.linalg.norm(Omega, 2), rel=1e-10)
    with pytest.raises(ValueError, match="orthonormal"):
        reconstruction_map_norm(lam, 2 * Psi)


def test_gamma_gram_condition_matches_numpy_cond():
    lam, Psi = ring(9, 8, 0.9), wavelet_basis(64, 8)
    G = real_stack(gamma(lam, Psi, 64))
    assert gamma_gram_condition(lam, Psi) == pytest.approx(np.linalg.cond(G.T @ G), rel=1e-6)
    assert gamma_gram_condition(lam, wavelet_basis(64, 32)) == float("inf")  # P=32 > 2N=16


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
    assert reconstruction_map_norm(lam, np.eye(L)) == pytest.approx(1 / s[s > tol][-1], rel=1e-9)


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
