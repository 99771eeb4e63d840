"""Conditioning of the Vandermonde map, batched reconstruction, the chapter's drivers and the
statistics its claims are read from (Orvieto et al. 2024, §4.1, App. E.1)."""

import subprocess
import sys

import jax
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import real_init, ring_init
from lrnn_core.core.vandermonde import (
    EPS,
    condition_number,
    gram_condition,
    reconstruct,
    vandermonde64,
)
from lrnn_core.core.verdicts import dealt
from lrnn_core.orvieto.conditioning import (
    SQUARE_LAWS,
    ErrorGrid,
    GramDraws,
    Norms,
    aliased_average,
    draw_conditions,
    draw_norms,
    error_grid,
    exact_to_rounding,
    fits_axis,
    floored_orderings,
    formed_gram_tolerance,
    frobenius_check,
    gram_condition_draws,
    gram_medians,
    gram_orderings,
    grid_orderings,
    growth_slope,
    law_eigenvalues,
    norm_stats,
    perfectly_conditioned,
    pinv_drop,
    recent_horizon,
    recent_only,
    ring_eigenvalues,
    ring_frobenius_moments,
    seed_block,
    square_conditions,
    token_cell,
    token_rounding_level,
    vandermonde_norms,
    weyl_check,
)
from lrnn_core.orvieto.memorisation import reconstruct_from_last_state


def vandermonde_gram_condition(lam, L, on_range=False):
    """cond(V_L^H V_L) as gram_condition_draws computes it (``svd`` and ``range``)."""
    return gram_condition(vandermonde64(lam, L), on_range=on_range)


def formed_gram_condition(lam, L):
    """np.linalg.cond of the formed Gram, as gram_condition_draws computes ``formed``."""
    V = vandermonde64(lam, L)
    return float(np.linalg.cond(V.conj().T @ V))


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


def test_pinv_norms_use_the_one_cut_off():
    """A singular value under max(N, L) eps s_max does not enter V^+, as in numpy.linalg.pinv:
    a repeated node makes V_L singular, and its rounding-level singular value is dropped."""
    lam = np.array([0.5, 0.5, 0.9])
    V = vandermonde64(lam, 3)
    assert np.linalg.svd(V, compute_uv=False)[-1] < 1e-15
    got = vandermonde_norms(lam, 3)
    assert got.pinv_spectral == pytest.approx(np.linalg.norm(np.linalg.pinv(V), 2), rel=1e-9)
    assert got.pinv_frobenius == pytest.approx(np.linalg.norm(np.linalg.pinv(V)), rel=1e-9)
    assert got.pinv_spectral < 10


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
    err_abs = np.abs(recon - inputs).mean(axis=0)
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


# --- Drivers: one independent draw per seed and cell ---------------------------------------------


def test_seed_block_numbers_the_cells_from_first():
    block = seed_block(40, (2, 1, 3))
    assert block.shape == (2, 1, 3) and block.dtype == np.int64
    np.testing.assert_array_equal(block.ravel(), np.arange(40, 46))


def test_draw_norms_one_draw_per_seed():
    norms = draw_norms("real", [3, 4], 6, 5, 0.5)
    assert norms == [
        vandermonde_norms(law_eigenvalues("real", 6, r_min=0.5, seed=s), 5) for s in (3, 4)
    ]
    assert norms[0] != norms[1]


def test_square_conditions_per_law():
    conds = square_conditions([4, 6], draws=3, first_seed=1000)
    assert tuple(conds) == SQUARE_LAWS
    np.testing.assert_allclose(conds[SQUARE_LAWS[3]], 1.0, atol=1e-13)
    np.testing.assert_allclose(
        conds[SQUARE_LAWS[0]], [condition_number(np.linspace(0, 1, N), N) for N in (4, 6)]
    )
    random_6 = [condition_number(law_eigenvalues("real", 6, seed=1600 + k), 6) for k in range(3)]
    assert conds[SQUARE_LAWS[1]][1] == np.median(random_6)
    assert conds[SQUARE_LAWS[0]][1] > 50 * conds[SQUARE_LAWS[2]][1] > 50 * 50  # one sign worse


def test_gram_medians_take_the_formed_draws_only():
    svd = np.arange(12.0).reshape(1, 2, 6)
    formed = np.full((1, 2, 6), np.nan)
    formed[..., :2] = [[1.0, 3.0], [5.0, 9.0]]
    m = gram_medians(GramDraws((4,), (0.0, 1.0), svd, formed, svd + 100), 2)
    np.testing.assert_array_equal(m.svd, [[2.5, 8.5]])
    np.testing.assert_array_equal(m.range, [[102.5, 108.5]])
    np.testing.assert_array_equal(m.formed, [[2.0, 7.0]])


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


# --- Fig. 2: norms over draws, the exact law of ||V||_F and the spec's bounds ---------------------


def _norms(frobenius, spectral=1.0, pinv=1.0):
    return [
        Norms(f, spectral, p, p / 2)
        for f, p in zip(frobenius, np.broadcast_to(pinv, len(frobenius)), strict=True)
    ]


def test_norm_stats_is_median_min_max():
    norms = _norms([3.0, 1.0, 2.0, 10.0])
    assert norm_stats(norms, "frobenius") == (2.5, 1.0, 10.0)
    assert norm_stats(norms, "pinv_spectral") == (0.5, 0.5, 0.5)


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


def test_pinv_drop_uses_the_spec_bounds_on_both_norms():
    def norms(p):
        return [Norms(1.0, 1.0, p, p / 2)]

    assert pinv_drop(norms(1e10), norms(2.0))
    assert not pinv_drop(norms(1e10), norms(30.0))  # near the circle above 10
    assert not pinv_drop(norms(1e7), norms(1e-3))  # far below 1e8
    assert not pinv_drop(norms(1.5e8), norms(9.0))  # Frobenius passes, spectral 7.5e7 < 1e8


# --- §4.1: real nodes against the roots of unity --------------------------------------------------


def test_the_roots_are_perfectly_conditioned():
    roots = square_conditions([4, 8], draws=1, first_seed=0)[SQUARE_LAWS[3]]
    assert perfectly_conditioned(roots)
    r = 0.9  # scaled roots: cond = r^-(N-1) (the chapter's exercise)
    assert not perfectly_conditioned(
        [condition_number(r * law_eigenvalues("roots of unity", 4), 4)]
    )
    assert not perfectly_conditioned([1.0, 1.0 + 1e-9])


def test_growth_slope_fits_log10_where_trusted():
    sizes = np.arange(1, 8)
    conds = 10.0 ** (0.5 * sizes)
    conds[-1] = 1e20  # beyond the trusted range: left out of the fit
    assert growth_slope(sizes, conds, 1e4) == pytest.approx(0.5)


# --- Figs. 3, 6, 7: rounding bounds and orderings over independent draws --------------------------


def test_recent_only_compares_the_last_100_tokens_with_the_first_half():
    err = np.full(400, 0.1)
    err[-100:] = 0.0009  # < 1e-2 * mean of the first 200 (0.1)
    assert recent_only(err)
    err[-100:] = 0.0011
    assert not recent_only(err)


def test_draw_conditions_are_the_condition_numbers_of_v():
    conds = draw_conditions([3, 4], 8, 0.5, 6)
    for s, c in zip([3, 4], conds, strict=True):
        lam = ring_eigenvalues(s, 8, 0.5)
        sv = np.linalg.svd(np.vander(lam, 6), compute_uv=False)
        assert c == pytest.approx(sv[0] / sv[-1], rel=1e-8)


def test_rounding_bounds_and_floors():
    assert token_rounding_level(2.0, [10.0, 30.0, 20.0]) == pytest.approx(60 * EPS)
    ok, bound = exact_to_rounding(1e-30, 2.0, [1e3], 4)
    assert ok and bound == pytest.approx((2e3 * EPS) ** 2 / 4)
    assert not exact_to_rounding(2 * bound, 2.0, [1e3], 4)[0]
    assert not exact_to_rounding(0.0, 1.0, [1e15], 1)[0]  # bound above 1e-6: uninformative


def test_fits_axis_within_one_tick_step():
    ticks = np.arange(0.0, 0.17, 0.02)
    assert fits_axis([0.01, 0.15], ticks) and fits_axis([0.175], ticks)
    assert not fits_axis([0.1, 0.13], ticks) and not fits_axis([0.19], ticks)


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
    dealt = floored_orderings(grid, {(16, 1.0): 0.015}, shuffle_axis=1, seed=0)
    assert not dealt["MAE"].r_falls.any()  # the floored draws shuffled along r_min


def test_grid_orderings_cap_saturated_cells_into_ties():
    values = np.empty((2, 2, 5))
    values[:, 0] = [[1e40], [1e35]]  # both beyond the cap: a tie in N at r_min = 0
    values[:, 1] = [[1e10], [1e5]]
    values *= 10.0 ** (0.01 * np.arange(5))
    assert grid_orderings(values).n_falls.tolist() == [True, True]
    assert grid_orderings(values, cap=1e30).n_falls.tolist() == [False, True]


def test_shuffled_grid_loses_its_orderings():
    # a grid falling by a decade per step in N and in r_min, 5 draws per cell
    rng = np.random.default_rng(3)
    levels = -np.add.outer(np.arange(4), np.arange(3))[..., None]
    values = 10.0 ** (levels + rng.normal(0, 0.05, size=(4, 3, 5)))
    assert grid_orderings(values).holds
    passes = [
        (grid_orderings(dealt(values, s, axis=0)).n_falls.sum(),
         grid_orderings(dealt(values, s, axis=1)).r_falls.sum())
        for s in range(40)
    ]  # fmt: skip
    assert np.sum(passes) <= 2  # 1/252 + alpha per curve: a few in 280 curves at most


def test_token_cell_summaries():
    err = np.array([0.1, 0.3, 0.2, 0.0, 1e-8, 1e-9])
    cell = token_cell(err, 1e-6, (0.1, 0.25))
    assert cell.early == pytest.approx(0.2) and cell.recent == pytest.approx(0.3)
    assert cell.horizon == 3 and cell.in_band
    assert not token_cell(err, 1e-6, (0.3, 1.0)).in_band


# --- Fig. 7b: the orderings of cond(V^H V) and the formed Gram against Weyl's bound ---------------


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
    assert not bad["falls with N"] and bad["saturated at r_min = min"]
    same_n = svd.copy()  # depends on r_min alone: every N holds the draws of N = 8
    same_n[2] = svd[1] * jitter[2] / jitter[1] * 10.0 ** rng.normal(0, 0.05, size=(3, 6))
    only_r = gram_orderings(_draws(same_n), 6, 1e30)
    assert only_r["falls with r_min"] and not only_r["falls with N"], only_r
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
