"""Eigenvalue laws (Orvieto et al., ICML 2024, §4.1) and the LRU parametrisation (LRU, 2023)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from lrnn_core.core.eigenvalues import (
    lru_eigenvalues,
    lru_params,
    lru_ring_init,
    real_init,
    ring_init,
    roots_of_unity,
)

N_SAMPLES = 4000


def ring_modulus_cdf(r_min, r_max):
    """CDF of |lambda| = sqrt(U(r_min^2, r_max^2))."""
    return lambda r: np.clip((r**2 - r_min**2) / (r_max**2 - r_min**2), 0.0, 1.0)


@pytest.mark.parametrize(("r_min", "r_max"), [(0.0, 1.0), (0.3, 0.9), (0.9, 0.999)])
def test_ring_modulus_follows_area_law(r_min, r_max):
    lam = np.asarray(ring_init(jax.random.key(0), N_SAMPLES, r_min, r_max))
    modulus = np.abs(lam)
    assert modulus.min() >= r_min - 1e-6 and modulus.max() <= r_max + 1e-6
    assert stats.kstest(modulus, ring_modulus_cdf(r_min, r_max)).pvalue > 1e-3


def test_ring_modulus_is_not_uniform_in_radius():
    """The KS test has power: the area law is far from |lambda| ~ U(r_min, r_max)."""
    modulus = np.abs(np.asarray(ring_init(jax.random.key(1), N_SAMPLES, 0.0, 1.0)))
    assert stats.kstest(modulus, stats.uniform(0.0, 1.0).cdf).pvalue < 1e-10


@pytest.mark.parametrize("max_phase", [2 * math.pi, math.pi / 4])
def test_ring_phase_is_uniform(max_phase):
    lam = np.asarray(ring_init(jax.random.key(2), N_SAMPLES, 0.5, 0.9, max_phase))
    phase = np.mod(np.angle(lam), 2 * np.pi)
    if max_phase < 2 * np.pi:
        assert phase.min() > 0 and phase.max() <= max_phase + 1e-6
    assert stats.kstest(phase, stats.uniform(0.0, max_phase).cdf).pvalue > 1e-3


def test_ring_init_is_seeded():
    a = ring_init(jax.random.key(3), 16, 0.5, 0.9)
    b = ring_init(jax.random.key(3), 16, 0.5, 0.9)
    c = ring_init(jax.random.key(4), 16, 0.5, 0.9)
    np.testing.assert_array_equal(a, b)
    assert np.abs(np.asarray(a) - np.asarray(c)).min() > 0


def test_ring_init_float64():
    with jax.enable_x64(True):
        lam = ring_init(jax.random.key(0), 8, 0.5, 0.9, dtype=jnp.float64)
        assert lam.dtype == jnp.complex128
        assert np.all((np.abs(lam) >= 0.5) & (np.abs(lam) <= 0.9))


@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_roots_of_unity(n):
    with jax.enable_x64(True):
        z = np.asarray(roots_of_unity(n, dtype=jnp.complex128))
    np.testing.assert_allclose(z**n, np.ones(n), atol=1e-12)
    assert z[0] == 1
    if n > 1:
        gaps = np.abs(z[:, None] - z[None, :])[~np.eye(n, dtype=bool)]
        assert gaps.min() == pytest.approx(2 * np.sin(np.pi / n), rel=1e-9)


def test_roots_of_unity_default_dtype_is_single_precision():
    z = roots_of_unity(5)
    assert z.dtype == jnp.complex64
    np.testing.assert_allclose(np.asarray(z, np.complex128) ** 5, np.ones(5), atol=1e-5)


def test_real_init_law():
    lam = np.asarray(real_init(jax.random.key(5), N_SAMPLES, -0.5, 0.8))
    assert not np.iscomplexobj(lam)
    assert lam.min() >= -0.5 and lam.max() <= 0.8
    assert stats.kstest(lam, stats.uniform(-0.5, 1.3).cdf).pvalue > 1e-3


def test_lru_ring_init_matches_ring_init():
    key = jax.random.key(6)
    nu_log, theta_log, gamma_log = lru_ring_init(key, 256, 0.4, 0.95, math.pi)
    lam = ring_init(key, 256, 0.4, 0.95, math.pi)
    np.testing.assert_allclose(lru_eigenvalues(nu_log, theta_log), lam, atol=2e-6)
    np.testing.assert_allclose(np.exp(2 * gamma_log) + np.abs(lam) ** 2, 1.0, atol=2e-6)


def test_lru_ring_init_finite_up_to_the_unit_circle():
    """r_min = 0, r_max = 1: parameters stay finite, eigenvalues stay strictly inside the disk."""
    params = lru_ring_init(jax.random.key(7), 20000, 0.0, 1.0)
    for p in params:
        assert np.all(np.isfinite(np.asarray(p)))
    modulus = np.abs(np.asarray(lru_eigenvalues(*params[:2])))
    assert modulus.max() < 1.0 and modulus.min() > 0.0


def test_lru_parametrisation_round_trip():
    with jax.enable_x64(True):
        lam = jnp.asarray([0.5 + 0.5j, -0.9 + 0.01j, 0.3 - 0.7j, -0.2 + 0.0j, 0.999 - 1e-3j])
        nu_log, theta_log = lru_params(lam)
        np.testing.assert_allclose(lru_eigenvalues(nu_log, theta_log), lam, rtol=1e-13)
        np.testing.assert_allclose(np.exp(-np.exp(nu_log)), np.abs(lam), rtol=1e-13)
        phase = np.exp(np.asarray(theta_log))
        assert np.all((phase > 0) & (phase <= 2 * np.pi))
        nu2, theta2 = lru_params(lru_eigenvalues(nu_log, theta_log))
        np.testing.assert_allclose(nu2, nu_log, rtol=1e-10)
        np.testing.assert_allclose(theta2, theta_log, rtol=1e-10)


def test_lru_eigenvalues_are_stable_for_any_finite_nu():
    nu_log = jnp.linspace(-8.0, 1.0, 50)
    modulus = np.abs(np.asarray(lru_eigenvalues(nu_log, jnp.zeros(50))))
    assert np.all(modulus < 1.0)
    np.testing.assert_allclose(modulus, np.exp(-np.exp(np.asarray(nu_log, np.float64))), rtol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"N": 0}, ValueError, "N must be >= 1"),
        ({"N": 2.0}, TypeError, "N must be an int"),
        ({"r_min": 0.9, "r_max": 0.5}, ValueError, "r_max must be >= 0.9"),
        ({"r_max": 1.5}, ValueError, "r_max must be <= 1"),
        ({"r_min": -0.1}, ValueError, "r_min must be >= 0"),
        ({"r_min": float("nan")}, ValueError, "r_min must be finite"),
        ({"r_max": "1"}, TypeError, "r_max must be a real number"),
        ({"max_phase": 0.0}, ValueError, "max_phase"),
        ({"max_phase": 7.0}, ValueError, "max_phase"),
    ],
)
def test_ring_init_rejects_bad_arguments(kwargs, error, match):
    args = {"N": 4, "r_min": 0.5, "r_max": 0.9, "max_phase": 1.0} | kwargs
    with pytest.raises(error, match=match):
        ring_init(jax.random.key(0), **args)
    with pytest.raises(error, match=match):
        lru_ring_init(jax.random.key(0), **args)


@pytest.mark.parametrize(("r_min", "r_max"), [(1.0, 1.0), (0.0, 0.0)])
def test_lru_ring_init_needs_a_stable_nonzero_ring(r_min, r_max):
    ring_init(jax.random.key(0), 4, r_min, r_max)  # a valid ring
    with pytest.raises(ValueError, match="r_max > 0 and r_min < 1"):
        lru_ring_init(jax.random.key(0), 4, r_min, r_max)


def test_real_init_rejects_bad_arguments():
    with pytest.raises(ValueError, match="r_min must be >= -1"):
        real_init(jax.random.key(0), 4, -1.5, 0.5)
    with pytest.raises(ValueError, match="N must be >= 1"):
        real_init(jax.random.key(0), 0, 0.0, 0.5)
    with pytest.raises(ValueError, match="N must be >= 1"):
        roots_of_unity(0)


@pytest.mark.parametrize(
    ("lam", "match"),
    [
        ([0.5j, 1.2], "stable"),
        ([0.5j, 0.0], r"\|lambda\| > 0"),
        ([0.5j, 0.3 + 0j], "positive real"),
        ([0.5j, np.nan], "non-finite"),
    ],
)
def test_lru_params_rejects_bad_eigenvalues(lam, match):
    with pytest.raises(ValueError, match=match):
        lru_params(np.asarray(lam, np.complex64))


def test_lru_eigenvalues_rejects_complex_parameters():
    with pytest.raises(TypeError, match="nu_log must be real"):
        lru_eigenvalues(jnp.zeros(2, jnp.complex64), jnp.zeros(2))
