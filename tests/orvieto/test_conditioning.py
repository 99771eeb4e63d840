"""Conditioning of the Vandermonde map, batched reconstruction (Orvieto et al. 2024, §4.1, E.1)."""

import subprocess
import sys

import jax
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import real_init, ring_init
from lrnn_core.core.vandermonde import EPS, condition_number, reconstruct, vandermonde64
from lrnn_core.orvieto.conditioning import (
    aliased_average,
    error_by_timestamp,
    error_grid,
    formed_gram_condition,
    formed_gram_tolerance,
    law_eigenvalues,
    norms_from_singular_values,
    recent_horizon,
    ring_eigenvalues,
    ring_frobenius_moments,
    vandermonde_gram_condition,
    vandermonde_norms,
)
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state


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
    code = (
        "import jax, lrnn_core.orvieto.conditioning as c; c.ring_eigenvalues(0, 4, 0.5); "
        "c.law_eigenvalues('real', 4); assert not jax.config.jax_enable_x64"
    )
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


def test_ring_eigenvalues_are_ring_init_in_float64():
    with jax.enable_x64(True):
        expected = np.asarray(ring_init(jax.random.key(3), 7, 0.4, 0.9, dtype=np.float64))
    np.testing.assert_array_equal(ring_eigenvalues(3, 7, 0.4, 0.9), expected)


def test_law_eigenvalues_against_the_laws():
    np.testing.assert_allclose(
        law_eigenvalues("roots of unity", 6), np.exp(2j * np.pi * np.arange(6) / 6), atol=1e-15
    )
    np.testing.assert_array_equal(
        law_eigenvalues("ring", 5, r_min=0.5, seed=4), ring_eigenvalues(4, 5, 0.5)
    )
    real = law_eigenvalues("real", 50, r_min=-0.5, r_max=0.25, seed=1)
    with jax.enable_x64(True):
        expected = np.asarray(real_init(jax.random.key(1), 50, -0.5, 0.25, dtype=np.float64))
    np.testing.assert_array_equal(real, expected)
    assert real.dtype == np.complex128 and np.all(real.imag == 0)
    assert -0.5 <= real.real.min() and real.real.max() <= 0.25
    with pytest.raises(ValueError, match="law must be one of"):
        law_eigenvalues("disc", 4)


def test_condition_number_of_square_vandermonde_matches_numpy():
    lam = law_eigenvalues("real", 10, seed=0)
    np.testing.assert_allclose(condition_number(lam, 10), np.linalg.cond(np.vander(lam)), rtol=1e-6)


def test_norms_reject_bad_singular_values():
    with pytest.raises(ValueError, match="s must hold non-negative singular values"):
        norms_from_singular_values([1.0, -1.0], (2, 2))
    with pytest.raises(ValueError, match="s contains non-finite"):
        norms_from_singular_values([1.0, np.nan], (2, 2))


def test_pinv_norms_use_the_one_cut_off():
    """A singular value under max(m, n) eps s_max does not enter V^+, as in numpy.linalg.pinv."""
    s = np.array([2.0, 0.5, 1e-17])
    got = norms_from_singular_values(s, (3, 3))
    assert got.pinv_spectral == 2.0 and got.pinv_frobenius == pytest.approx(np.sqrt(0.25 + 4))
    A = np.diag(s)
    assert got.pinv_spectral == pytest.approx(np.linalg.norm(np.linalg.pinv(A), 2))


@pytest.mark.parametrize(("r", "n"), [(0.5, 40), (0.6, 60)])
def test_gram_condition_is_exact_far_beyond_1e16(r, n):
    """cond(V^H V) = r^(-2(n-1)): 3e23 and 2e26 here. From the SVD of V it is right to 1e-3.

    The formed Gram cannot know it, by the standard rounding bound (not by a measured ratio):
    V^H V = n D^2 exactly (D = diag(r^(n-1-j))), the computed V has entries within ~n eps of
    relative error and the computed product within ~n eps |V|^H |V| entrywise, so the formed Gram
    lies within ``bound = 32 n eps |V|^H |V|`` of the exact one. That bound dwarfs the exact
    smallest eigenvalue n r^(2(n-1)): the formed matrix is indistinguishable from Grams whose
    smallest eigenvalue is anywhere in [0, ||bound||]: its cond carries no digit of the truth.
    """
    exact = r ** (-2.0 * (n - 1))
    assert exact > 1e23
    lam = scaled_roots(r, n)
    np.testing.assert_allclose(vandermonde_gram_condition(lam, n), exact, rtol=1e-3)
    V = vandermonde64(lam, n)
    exact_gram = n * np.diag(r ** (2.0 * (n - 1 - np.arange(n))))
    bound = 32 * n * EPS * (np.abs(V).T @ np.abs(V))
    assert np.all(np.abs(V.conj().T @ V - exact_gram) <= bound)  # the a-priori rounding bound
    smallest = n * r ** (2.0 * (n - 1))
    assert smallest < 1e-6 * np.linalg.norm(bound, 2)  # ... swamps the smallest eigenvalue
    # hence the formed cond is only bounded below (Weyl): >= (lambda_max - b) / (lambda_min + b)
    b = np.linalg.norm(bound, 2)
    assert formed_gram_condition(lam, n) >= (n - b) / (smallest + b)


def test_gram_condition_agrees_with_formed_gram_when_well_conditioned():
    lam = ring_eigenvalues(2, 64, 0.99)
    V = np.vander(lam, 32)
    expected = np.linalg.cond(V.conj().T @ V)
    assert expected < 1e8
    np.testing.assert_allclose(vandermonde_gram_condition(lam, 32), expected, rtol=1e-6)
    np.testing.assert_allclose(formed_gram_condition(lam, 32), expected, rtol=1e-6)


def test_gram_condition_for_n_below_l():
    """V^H V has rank N < L: infinite; on its range it is cond(V V^H). The formed Gram saturates."""
    lam = ring_eigenvalues(4, 16, 0.9)
    V = np.vander(lam, 40)
    assert vandermonde_gram_condition(lam, 40) == np.inf
    np.testing.assert_allclose(
        vandermonde_gram_condition(lam, 40, on_range=True),
        np.linalg.cond(V @ V.conj().T),
        rtol=1e-6,
    )
    assert 1e14 < formed_gram_condition(lam, 40) < np.inf


def test_roots_of_unity_are_perfectly_conditioned():
    lam = np.exp(2j * np.pi * np.arange(50) / 50)
    np.testing.assert_allclose(vandermonde_gram_condition(lam, 50), 1.0, atol=1e-12)


@pytest.mark.parametrize(("N", "L", "r_min"), [(48, 32, 0.95), (16, 32, 0.5), (32, 32, 0.0)])
def test_reconstruct_from_last_state_matches_single_reconstruction(N, L, r_min):
    """The batched pinv agrees with lrnn_core.core.vandermonde.reconstruct applied to each state."""
    rng = np.random.default_rng(0)
    inputs = rng.uniform(size=(5, L))
    lam = ring_eigenvalues(7, N, r_min)
    states = np.vander(lam, L) @ inputs.T
    expected = np.stack([reconstruct(lam, states[:, b], L).real for b in range(5)])
    np.testing.assert_allclose(reconstruct_from_last_state(lam, inputs), expected, atol=1e-7)


def test_reconstruct_from_last_state_is_exact_for_well_conditioned_eigenvalues():
    rng = np.random.default_rng(1)
    inputs = rng.uniform(size=(7, 64))
    lam = np.exp(2j * np.pi * np.arange(64) / 64)
    np.testing.assert_allclose(reconstruct_from_last_state(lam, inputs), inputs, atol=1e-13)
    np.testing.assert_allclose(
        reconstruct_from_last_state(ring_eigenvalues(8, 128, 0.999), inputs), inputs, atol=1e-9
    )


def test_reconstruct_from_last_state_keeps_only_the_recent_past_for_small_eigenvalues():
    """|lam| <= 0.5: the oldest tokens are weighted by 0.5^(L-1) and cannot come back."""
    rng = np.random.default_rng(2)
    inputs = rng.uniform(size=(20, 100))
    recon = reconstruct_from_last_state(ring_eigenvalues(9, 200, 0.0, 0.5), inputs)
    err_abs, _ = error_by_timestamp(recon, inputs)
    assert err_abs[-5:].max() < 1e-8
    assert err_abs[:20].mean() > 0.1


def test_aliased_average_is_the_roots_of_unity_reconstruction():
    """N < L roots of unity: columns repeat with period N, the min-norm solution averages them."""
    rng = np.random.default_rng(3)
    L, N = 50, 16
    inputs = rng.uniform(size=(4, L))
    lam = np.exp(2j * np.pi * np.arange(N) / N)
    recon = reconstruct_from_last_state(lam, inputs)
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
    seeds = np.arange(8).reshape(2, 2, 2) + 10  # one independent draw per (N, r_min, draw)
    grid = error_grid(inputs, (12, 48), (0.0, 0.999), seeds, n_examples=2)
    assert grid.abs_by_k.shape == (2, 2, 2, 24) and grid.examples.shape == (2, 2, 2, 24)
    recon = reconstruct_from_last_state(ring_eigenvalues(17, 48, 0.999), inputs)
    np.testing.assert_allclose(grid.sq_by_k[1, 1, 1], ((recon - inputs) ** 2).mean(axis=0))
    np.testing.assert_allclose(
        grid.examples[0, 0], reconstruct_from_last_state(ring_eigenvalues(10, 12, 0.0), inputs)[:2]
    )
    np.testing.assert_allclose(grid.mse, grid.sq_by_k.mean(axis=(2, 3)))
    np.testing.assert_allclose(grid.mse_by_draw[1, 1, 1], ((recon - inputs) ** 2).mean())
    np.testing.assert_allclose(grid.mae_by_draw[1, 1, 1], np.abs(recon - inputs).mean())
    assert grid.mse[1, 1] < 1e-12 < grid.mse[0, 0]
    assert grid.at(48, 0.999) == (1, 1) and grid.at(12, 0.999) == (0, 1)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: vandermonde64(np.ones((2, 2)), 3), "lam"),
        (lambda: vandermonde64([1.0, np.nan], 3), "lam"),
        (lambda: vandermonde64([0.5], 0), "L"),
        (lambda: reconstruct_from_last_state([0.5], np.ones((1, 2, 4))), "u"),
        (lambda: reconstruct_from_last_state([0.5], np.full((1, 4), np.inf)), "u"),
        (lambda: reconstruct_from_last_state([0.5], np.ones((1, 4)) * 1j), "u"),
        (lambda: ring_eigenvalues(0, 4, 1.5), "r_min"),
        (lambda: error_grid(np.ones((2, 4)), (), (0.5,), [[[0]]]), "Ns"),
        (lambda: error_grid(np.ones((2, 4)), (4,), (0.5,), [[[0]]], n_examples=3), "n_examples"),
        (lambda: aliased_average(np.ones((2, 4)), 0), "N"),
    ],
)
def test_bad_input_raises_naming_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_recent_horizon_counts_the_trailing_run_below_tol():
    assert recent_horizon([1.0, 1e-9, 0.5, 1e-8, 1e-7], tol=1e-6) == 2
    assert recent_horizon([1e-9, 1e-9], tol=1e-6) == 2
    assert recent_horizon([1e-9, 1.0], tol=1e-6) == 0
    assert recent_horizon([1e-9, np.nan], tol=1e-6) == 0  # NaN is not recovered


def test_ring_frobenius_moments_closed_forms():
    # the disc (r_min = 0): E ||V||_F^2 = N * H_L (E U^j = 1 / (j + 1))
    mean, _ = ring_frobenius_moments(256, 128, 0.0)
    np.testing.assert_allclose(mean, 256 * np.sum(1.0 / np.arange(1, 129)), rtol=1e-14)
    # L = 2: S = 1 + U, U ~ U(0, 1): E S = 3/2, Var S = 1/12, times N = 3 rows
    mean, var = ring_frobenius_moments(3, 2, 0.0)
    np.testing.assert_allclose((mean, var), (4.5, 0.25), rtol=1e-12)
    # a circle of radius r: deterministic, N * sum_j r^(2j)
    mean, var = ring_frobenius_moments(2, 5, 0.5, 0.5)
    np.testing.assert_allclose(mean, 2 * np.sum(0.25 ** np.arange(5)), rtol=1e-14)
    assert var == 0.0


def test_ring_frobenius_moments_match_the_sampled_ring_law():
    N, L, r_min, draws = 8, 6, 0.5, 2000
    sq = np.array(
        [np.sum(np.abs(vandermonde64(ring_eigenvalues(s, N, r_min), L)) ** 2) for s in range(draws)]
    )
    mean, var = ring_frobenius_moments(N, L, r_min)
    assert abs(sq.mean() - mean) <= 4 * np.sqrt(var / draws)  # 4 standard errors
    # sample variance of 2000 draws: relative standard error ~ sqrt(2 / 2000) ~ 3 %
    np.testing.assert_allclose(sq.var(), var, rtol=0.15)


def test_formed_gram_tolerance_numbers_and_cover_a_known_condition_number():
    u = EPS / 2
    gamma = 10 * u / (1 - 10 * u)
    d_max = 3 * gamma * 10
    expected = (d_max * 100 + d_max) / (1 - d_max * 100) + 2 * 10 * EPS * 10
    np.testing.assert_allclose(formed_gram_tolerance(100.0, 10, 10), expected, rtol=1e-12)
    assert formed_gram_tolerance(1e14, 10, 10) == np.inf  # beyond Weyl's reach
    # scaled roots of unity: cond(V^H V) = r^(-2(n-1)) exactly
    n, r = 12, 0.7
    true = r ** (-2.0 * (n - 1))
    formed = formed_gram_condition(scaled_roots(r, n), n)
    assert abs(formed / true - 1) <= formed_gram_tolerance(true, n, n)
