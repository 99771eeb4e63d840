"""Conditioning of the Vandermonde map and batched reconstruction (Orvieto et al., ICML 2024, §4.1, App. E.1)."""

import subprocess
import sys

import jax
import numpy as np
import pytest

from lrnn_core.conditioning import (
    aliased_average,
    error_by_timestamp,
    error_grid,
    formed_gram_condition,
    gram_condition,
    norms_from_singular_values,
    pseudo_inverse,
    reconstruct_many,
    ring_eigenvalues,
    vandermonde_norms,
)
from lrnn_core.vandermonde import reconstruct, vandermonde64


def scaled_roots(r: float, n: int) -> np.ndarray:
    """lam_j = r exp(2 pi i j / n): V_n = F D with F sqrt(n) x unitary, D = diag(r^(n-1-j)), so the
    singular values of V_n are exactly sqrt(n) r^p, p = 0..n-1."""
    return r * np.exp(2j * np.pi * np.arange(n) / n)


def test_vandermonde64_matches_numpy_and_is_complex128():
    lam = np.array([0.0, 0.5, -0.9 + 0.1j, 1j])
    V = vandermonde64(lam, 5)
    assert V.dtype == np.complex128
    np.testing.assert_allclose(V, np.vander(lam, 5), rtol=1e-15, atol=0)


def test_import_and_use_do_not_switch_jax_to_float64():
    code = "import jax, lrnn_core.conditioning as c; c.ring_eigenvalues(0, 4, 0.5); assert not jax.config.jax_enable_x64"
    subprocess.run([sys.executable, "-c", code], check=True)
    before = jax.config.jax_enable_x64
    ring_eigenvalues(0, 4, 0.5)  # float64 only inside a context manager
    assert jax.config.jax_enable_x64 == before


def test_ring_eigenvalues_are_float64_on_the_ring_and_seeded():
    lam = ring_eigenvalues(3, 2000, 0.999)
    assert lam.dtype == np.complex128
    assert np.all((np.abs(lam) >= 0.999 - 1e-15) & (np.abs(lam) <= 1 + 1e-15))
    # float64 resolution: the moduli are not rounded to float32's 6e-8 grid
    assert len(np.unique(np.abs(lam))) == 2000
    np.testing.assert_array_equal(lam, ring_eigenvalues(3, 2000, 0.999))


def test_norms_match_closed_form_of_scaled_roots_of_unity():
    n, r = 12, 0.7
    s = np.sqrt(n) * r ** np.arange(n)
    got = vandermonde_norms(scaled_roots(r, n), n)
    np.testing.assert_allclose(got.frobenius, np.sqrt(np.sum(s**2)), rtol=1e-12)
    np.testing.assert_allclose(got.spectral, np.sqrt(n), rtol=1e-12)
    np.testing.assert_allclose(got.pinv_spectral, r ** -(n - 1) / np.sqrt(n), rtol=1e-9)
    np.testing.assert_allclose(got.pinv_frobenius, np.sqrt(np.sum(s**-2.0)), rtol=1e-9)


def test_norms_match_numpy_on_a_random_vandermonde():
    lam = ring_eigenvalues(1, 40, 0.5)
    V = np.vander(lam, 20)
    got = vandermonde_norms(lam, 20)
    np.testing.assert_allclose(got.frobenius, np.linalg.norm(V), rtol=1e-12)
    np.testing.assert_allclose(got.spectral, np.linalg.norm(V, 2), rtol=1e-12)
    np.testing.assert_allclose(got.pinv_frobenius, np.linalg.norm(np.linalg.pinv(V)), rtol=1e-6)
    np.testing.assert_allclose(got.pinv_spectral, np.linalg.norm(np.linalg.pinv(V), 2), rtol=1e-6)


def test_norms_reject_bad_singular_values():
    with pytest.raises(ValueError, match="singular values"):
        norms_from_singular_values([1.0, -1.0])
    with pytest.raises(ValueError, match="singular values"):
        norms_from_singular_values([1.0, np.nan])


@pytest.mark.parametrize(("r", "n"), [(0.5, 40), (0.6, 60)])
def test_gram_condition_is_exact_far_beyond_1e16(r, n):
    """cond(V^H V) = r^(-2(n-1)): 3e23 and 2e26 here. From the SVD of V it is right to 1e-3; the
    formed Gram (rounded entries) is off by a large factor."""
    exact = r ** (-2.0 * (n - 1))
    assert exact > 1e23
    np.testing.assert_allclose(gram_condition(scaled_roots(r, n), n), exact, rtol=1e-3)
    formed = formed_gram_condition(scaled_roots(r, n), n)
    assert not 0.5 < formed / exact < 2.0


def test_gram_condition_agrees_with_formed_gram_when_well_conditioned():
    lam = ring_eigenvalues(2, 64, 0.99)
    V = np.vander(lam, 32)
    expected = np.linalg.cond(V.conj().T @ V)
    assert expected < 1e8
    np.testing.assert_allclose(gram_condition(lam, 32), expected, rtol=1e-6)
    np.testing.assert_allclose(formed_gram_condition(lam, 32), expected, rtol=1e-6)


def test_gram_condition_for_n_below_l():
    """V^H V has rank N < L: infinite; on its range it is cond(V V^H). The formed Gram saturates."""
    lam = ring_eigenvalues(4, 16, 0.9)
    V = np.vander(lam, 40)
    assert gram_condition(lam, 40) == np.inf
    np.testing.assert_allclose(gram_condition(lam, 40, on_range=True), np.linalg.cond(V @ V.conj().T), rtol=1e-6)
    assert 1e14 < formed_gram_condition(lam, 40) < np.inf


def test_roots_of_unity_are_perfectly_conditioned():
    lam = np.exp(2j * np.pi * np.arange(50) / 50)
    np.testing.assert_allclose(gram_condition(lam, 50), 1.0, atol=1e-12)


@pytest.mark.parametrize(("N", "L"), [(30, 20), (12, 20), (20, 20)])
def test_pseudo_inverse_matches_numpy(N, L):
    V = np.vander(ring_eigenvalues(5, N, 0.8), L)
    np.testing.assert_allclose(pseudo_inverse(V), np.linalg.pinv(V), atol=1e-8)


def test_pseudo_inverse_truncates_like_numpy():
    V = np.vander(ring_eigenvalues(6, 24, 0.0), 24)
    s = np.linalg.svd(V, compute_uv=False)
    assert np.sum(s <= 1e-4 * s[0]) > 0  # the cut really drops something
    np.testing.assert_allclose(pseudo_inverse(V, rcond=1e-4), np.linalg.pinv(V, rtol=1e-4), atol=1e-9)
    with pytest.raises(ValueError, match="rcond"):
        pseudo_inverse(V, rcond=1.5)


@pytest.mark.parametrize(("N", "L", "r_min"), [(48, 32, 0.95), (16, 32, 0.5), (32, 32, 0.0)])
def test_reconstruct_many_matches_single_reconstruction(N, L, r_min):
    """The batched pinv agrees with lrnn_core.vandermonde.reconstruct applied to each state."""
    rng = np.random.default_rng(0)
    inputs = rng.uniform(size=(5, L))
    lam = ring_eigenvalues(7, N, r_min)
    states = np.vander(lam, L) @ inputs.T
    with jax.enable_x64(True):
        expected = np.stack([np.asarray(reconstruct(lam, states[:, b], L)).real for b in range(5)])
    np.testing.assert_allclose(reconstruct_many(lam, inputs), expected, atol=1e-7)


def test_reconstruct_many_is_exact_for_well_conditioned_eigenvalues():
    rng = np.random.default_rng(1)
    inputs = rng.uniform(size=(7, 64))
    lam = np.exp(2j * np.pi * np.arange(64) / 64)
    np.testing.assert_allclose(reconstruct_many(lam, inputs), inputs, atol=1e-13)
    np.testing.assert_allclose(reconstruct_many(ring_eigenvalues(8, 128, 0.999), inputs), inputs, atol=1e-9)


def test_reconstruct_many_keeps_only_the_recent_past_for_small_eigenvalues():
    """|lam| <= 0.5: the oldest tokens are weighted by 0.5^(L-1) and cannot come back."""
    rng = np.random.default_rng(2)
    inputs = rng.uniform(size=(20, 100))
    recon = reconstruct_many(ring_eigenvalues(9, 200, 0.0, 0.5), inputs)
    err_abs, _ = error_by_timestamp(recon, inputs)
    assert err_abs[-5:].max() < 1e-8
    assert err_abs[:20].mean() > 0.1


def test_aliased_average_is_the_roots_of_unity_reconstruction():
    """N < L roots of unity: columns repeat with period N and the min-norm solution averages them."""
    rng = np.random.default_rng(3)
    L, N = 50, 16
    inputs = rng.uniform(size=(4, L))
    lam = np.exp(2j * np.pi * np.arange(N) / N)
    recon = reconstruct_many(lam, inputs)
    np.testing.assert_allclose(recon, aliased_average(inputs, N), atol=1e-12)
    np.testing.assert_allclose(recon[:, : L - N], recon[:, N:], atol=1e-12)  # period N
    # a hand check: the last token (power 0) shares its class with powers 16, 32, 48
    members = [L - 1 - p for p in (0, 16, 32, 48)]
    np.testing.assert_allclose(recon[:, -1], inputs[:, members].mean(axis=1), atol=1e-12)


def test_error_by_timestamp_against_numpy():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(2, 6, 9))
    err_abs, err_sq = error_by_timestamp(a, b)
    np.testing.assert_allclose(err_abs, np.abs(a - b).mean(axis=0))
    np.testing.assert_allclose(err_sq, ((a - b) ** 2).mean(axis=0))
    with pytest.raises(ValueError, match="shape"):
        error_by_timestamp(a[:, :4], b)


def test_error_grid_collects_reconstructions():
    rng = np.random.default_rng(5)
    inputs = rng.uniform(size=(6, 24))
    grid = error_grid(inputs, (12, 48), (0.0, 0.999), (0, 1), n_examples=2)
    assert grid.abs_by_k.shape == (2, 2, 2, 24) and grid.examples.shape == (2, 2, 2, 24)
    recon = reconstruct_many(ring_eigenvalues(1, 48, 0.999), inputs)
    np.testing.assert_allclose(grid.sq_by_k[1, 1, 1], ((recon - inputs) ** 2).mean(axis=0))
    np.testing.assert_allclose(grid.examples[0, 0], reconstruct_many(ring_eigenvalues(0, 12, 0.0), inputs)[:2])
    np.testing.assert_allclose(grid.mse, grid.sq_by_k.mean(axis=(2, 3)))
    assert grid.mse[1, 1] < 1e-12 < grid.mse[0, 0]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: vandermonde64(np.ones((2, 2)), 3), "lam"),
        (lambda: vandermonde64([1.0, np.nan], 3), "lam"),
        (lambda: vandermonde64([0.5], 0), "L"),
        (lambda: reconstruct_many([0.5], np.ones(4)), "inputs"),
        (lambda: reconstruct_many([0.5], np.full((1, 4), np.inf)), "inputs"),
        (lambda: reconstruct_many([0.5], np.ones((1, 4)) * 1j), "inputs"),
        (lambda: pseudo_inverse(np.ones(3)), "V"),
        (lambda: ring_eigenvalues(0, 4, 1.5), "r_min"),
        (lambda: error_grid(np.ones((2, 4)), (), (0.5,), (0,)), "Ns"),
        (lambda: aliased_average(np.ones((2, 4)), 0), "N"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
