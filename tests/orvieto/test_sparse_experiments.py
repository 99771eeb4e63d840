"""Experiment drivers of Orvieto et al. App. E.2 (Figs. 9-12) against direct computations."""

import numpy as np
import pytest

from lrnn_core.core.hippo import legs_reconstruct, legs_states
from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.sparse import (
    gamma_gram_condition,
    gram_condition_candidates,
    log_level,
    map_condition_candidates,
    rank_gap_bound,
    reconstruct_sparse,
    reconstruction_sweep,
)
from lrnn_core.orvieto.sparse_experiments import (
    LOG10_SINGULAR,
    SweepSet,
    below_reference,
    complete_basis_readings,
    conditioning_grid,
    dense_error,
    fig9_readings,
    fig9_sizes,
    flag_singular,
    grows_with_P,
    hippo_ring_example,
    hippo_vs_ring,
    legendre_ring_errors,
    map_condition_study,
    map_readings,
    near_circle_fraction,
    ordering_checks,
    relative_errors,
    singular_inverse_count,
    smooth_inputs,
    sparse_sweeps,
    summarise,
    sweep_curves,
    sweep_problems,
    sweep_summary,
    widget_reconstruction,
)
from lrnn_core.orvieto.wavelets import random_wavelet_problem, sparse_signal, wavelet_basis


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


def test_sweep_summary_numbers():
    res = small_sweep_set()
    s = sweep_summary(res, N=2)
    assert s["worst error"] == 1e-1
    assert s["median max error"] == pytest.approx((1e-2 + 1e-1) / 2)
    assert s["median late error"] == pytest.approx((1e-2 + 1e-3) / 2)  # k >= L/2 = 4
    assert s["max rank gamma"] == 2 and s["median final rank gamma"] == 2
    assert s["max gap"] == 1 and s["gap within bound"] is True  # gaps (0, 1), bounds (0, 1)
    assert s["full after 2N"] is True
    tight = SweepSet(**{**res.__dict__, "gap_bound": np.array([0, 0])})
    assert sweep_summary(tight, N=2)["gap within bound"] is False


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


def ordered(draws=4, noise=0.0, seed=0):
    """Levels (D, R=2, N=3, P=3) decreasing in N and r, increasing in P, plus noise."""
    r, n, p = np.meshgrid([0, -1], [0, -1, -2], [0, 1, 2], indexing="ij")
    base = 8 + 2 * r + 2 * n + 2 * p
    return base + noise * np.random.default_rng(seed).standard_normal((draws, *base.shape))


def test_ordering_checks_pass_on_ordered_levels_and_fail_on_a_reversal():
    assert ordering_checks(ordered(noise=0.1)) == dict(N=True, P=True, r=True, corner=True)
    levels = ordered(noise=0.1)
    levels[:, 0, 1, 2] -= 5.0  # P step reversed far beyond the margin in panel 0
    checks = ordering_checks(levels)
    assert checks["P"] is False and checks["corner"] is True


def test_ordering_checks_margin_comes_from_the_spread():
    levels = ordered(draws=5, noise=0.0)
    levels[:, 0, 0, 1] = levels[:, 0, 0, 2] + 0.5  # reversal by 0.5 between P=1 and P=2
    assert ordering_checks(levels)["P"] is False  # no spread: no margin
    noise = np.random.default_rng(1).standard_normal(levels.shape)
    assert ordering_checks(levels + 1.0 * noise)["P"] is True  # sd 1, 5 draws: margin ~3.2


def test_ordering_checks_singular_sorts_above_levels():
    levels = ordered()
    levels[:, :, 0, 2] = np.inf  # smallest N, largest P singular in both panels: still ordered
    assert all(ordering_checks(levels).values())
    levels[:, 0, 2, 0] = np.inf  # largest N, smallest P singular: N, P and corner fail
    checks = ordering_checks(levels)
    assert not checks["N"] and not checks["P"] and not checks["corner"]


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


def test_summarise_is_sweep_summary_per_N():
    res = small_sweep_set()
    assert summarise({2: res}) == {2: sweep_summary(res, 2)}


def test_sweep_curves_medians_ranges_and_the_steps_seen():
    c = sweep_curves(small_sweep_set())
    np.testing.assert_array_equal(c.v_rank, [1.0, 1.5, 2.0])
    np.testing.assert_array_equal(c.v_lower, [1, 2, 2, 2, 2, 2, 2, 2])
    np.testing.assert_array_equal(c.rank_gamma[0], [1.0, 1.5, 2.0, 2.0])
    np.testing.assert_array_equal(c.rank_gamma[1], [1, 1, 2, 2])
    np.testing.assert_array_equal(c.rank_gamma[2], [1, 2, 2, 2])
    np.testing.assert_array_equal(c.k_seen, [4, 6, 8])  # the first draw's input is 0 up to k=2
    np.testing.assert_allclose(c.error[0], [(1e-3 + 1e-4) / 2, (1e-5 + 1e-6) / 2, 5.5e-3])
    np.testing.assert_array_equal(c.error[1], [1e-4, 1e-6, 1e-3])
    np.testing.assert_array_equal(c.error[2], [1e-3, 1e-5, 1e-2])


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


def test_singular_inverse_count():
    # eigenvalues near 0 (r_min = 0): V_64 of 32 rows holds lambda^k ~ 0, singular every time
    assert singular_inverse_count([1, 2, 3], 32, 0.0, 64) == 3
    assert singular_inverse_count([1, 2, 3], 16, 0.999, 32) == 0


def test_complete_basis_readings_use_the_last_basis_of_each_family():
    bases = {"Haar": [wavelet_basis(16, 4), wavelet_basis(16, 16)]}
    out = complete_basis_readings([5, 6], 8, 0.9, bases)
    ref = map_readings([5, 6], 8, 0.9, np.eye(16))  # a complete orthonormal basis: V_L^+'s values
    np.testing.assert_allclose(out["Haar"]["cond complex"], ref["cond complex"], rtol=1e-8)
    np.testing.assert_allclose(out["Haar"]["norm real"], ref["norm real"], rtol=1e-8)


def test_near_circle_fraction():
    assert near_circle_fraction(0.95) == pytest.approx((1 - 0.999**2) / (1 - 0.95**2))
    assert near_circle_fraction(0.95) == pytest.approx(0.02051, abs=1e-5)
    assert near_circle_fraction(0.0, radius=0.5) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="r_min"):
        near_circle_fraction(1.0)


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


def test_relative_errors():
    target = np.array([[3.0, 1.0], [4.0, 0.0]])
    np.testing.assert_allclose(relative_errors(1.1 * target, target), [0.1, 0.1])
    np.testing.assert_allclose(relative_errors(np.zeros((2, 2)), target), [1.0, 1.0])


def test_hippo_vs_ring_medians_and_the_exact_ring_at_2N_equal_L():
    L = 16
    u = np.random.default_rng(0).standard_normal((L, 3))
    hippo, ring = hippo_vs_ring(u, {8: 5, 2: 6}, 0.5)
    assert ring[0] < 1e-10  # 2N = L real equations: the ring recovers any input
    assert ring[1] > 0.5
    ref = np.median(relative_errors(legs_reconstruct(legs_states(u, 2), L), u))
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
    assert cond == pytest.approx(gamma_gram_condition(ring_eigenvalues(2, 8, 0.5), basis) ** 0.5)


def test_hippo_ring_example_reconstructs_one_input_both_ways():
    L = 16
    u = np.random.default_rng(0).standard_normal(L)
    out = hippo_ring_example(u, 8, 5, 0.5)
    assert list(out) == ["input", "HiPPO, N=8", "ring, N=8"]
    np.testing.assert_array_equal(out["input"], u)
    np.testing.assert_allclose(out["HiPPO, N=8"], legs_reconstruct(legs_states(u, 8), L))
    np.testing.assert_allclose(out["ring, N=8"], u, atol=1e-10)  # 2N = L: exact


def test_widget_reconstruction_draws_the_problem_then_the_ring():
    u, rec, sweep = widget_reconstruction(np.random.default_rng(3), 4, 8, 4, 32, k_stride=8)
    basis, u_ref = random_wavelet_problem(np.random.default_rng(3), 32, 4)
    lam = ring_eigenvalues(4, 8, 0.95)
    np.testing.assert_array_equal(u, u_ref)
    np.testing.assert_allclose(rec, reconstruct_sparse(lam, basis, u_ref))
    np.testing.assert_array_equal(sweep.ks, [8, 16, 24, 32])
    assert np.max(np.abs(rec - u)) < 1e-8  # 2N = 16 >= P = 4 real unknowns
