"""Experiment drivers of Orvieto et al. App. E.2 (Figs. 9-12) against direct computations."""

import numpy as np
import pytest

from lrnn_core.orvieto.conditioning import ring_eigenvalues
from lrnn_core.orvieto.sparse import (
    gram_condition_candidates,
    map_condition_candidates,
    rank_gap_bound,
    reconstruction_sweep,
)
from lrnn_core.orvieto.sparse_experiments import (
    LOG10_SINGULAR,
    SweepSet,
    below_reference,
    conditioning_grid,
    flag_singular,
    grows_with_P,
    map_condition_study,
    ordering_checks,
    sparse_sweeps,
    sweep_summary,
)
from lrnn_core.orvieto.wavelets import sparse_signal, wavelet_basis


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


def test_sweep_summary_numbers():
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
