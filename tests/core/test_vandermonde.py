"""Vandermonde view of the recurrence: eq. (3)-(5) of Orvieto et al. (ICML 2024); conditioning."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.eigenvalues import real_init, ring_init, roots_of_unity
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.vandermonde import (
    EPS,
    condition_number,
    cutoff,
    gram_condition,
    numerical_rank,
    pinv_apply,
    pseudo_inverse,
    reconstruct,
    singular_values,
    vandermonde,
    vandermonde64,
)


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def scalar_input_states(lam, u):
    """All states x_1..x_L of x_k = lam x_{k-1} + u_k with B = (1, ..., 1)^T, via linear_scan."""
    lam = jnp.asarray(lam)
    u_per_channel = jnp.broadcast_to(jnp.asarray(u, lam.dtype)[..., None], u.shape + lam.shape[-1:])
    return linear_scan(lam, u_per_channel)


def test_vandermonde_matches_numpy_vander():
    lam = np.array([0.0, 0.5, -0.9 + 0.1j, 1j, 0.99])
    np.testing.assert_allclose(vandermonde(lam, 6), np.vander(lam, 6), rtol=1e-14, atol=0)


def test_vandermonde_is_batched():
    lam = np.asarray(ring_init(jax.random.key(0), 2 * 3 * 5, 0.5, 1.0)).reshape(2, 3, 5)
    V = np.asarray(vandermonde(lam, 4))
    assert V.shape == (2, 3, 5, 4)
    np.testing.assert_allclose(V[1, 2], np.vander(lam[1, 2], 4), rtol=1e-13)


@pytest.mark.parametrize("lam_kind", ["ring", "real", "roots"])
def test_last_state_is_vandermonde_times_input(lam_kind):
    """x_L = V_L u_{1:L} (eq. 4) against the recurrence, and x_k = V_k u_{1:k} for several k."""
    L, N = 20, 12
    lam = {
        "ring": ring_init(jax.random.key(1), N, 0.0, 1.0),
        "real": real_init(jax.random.key(1), N, -1.0, 1.0),
        "roots": roots_of_unity(N),
    }[lam_kind]
    u = jax.random.normal(jax.random.key(2), (L,))
    x = np.asarray(scalar_input_states(lam, u))
    np.testing.assert_allclose(np.asarray(vandermonde(lam, L)) @ np.asarray(u), x[-1], atol=1e-12)
    for k in (1, 7, L):
        np.testing.assert_allclose(
            np.asarray(vandermonde(lam, k)) @ np.asarray(u[:k]), x[k - 1], atol=1e-12
        )


@pytest.mark.parametrize(("N", "L"), [(16, 16), (32, 16), (48, 16)])
def test_reconstruction_exact_with_roots_of_unity(N, L):
    lam = roots_of_unity(N)
    u = jax.random.normal(jax.random.key(3), (L,))
    x_L = scalar_input_states(lam, u)[-1]
    np.testing.assert_allclose(reconstruct(lam, x_L, L), u, atol=1e-12)


def test_reconstruction_from_intermediate_states():
    """Eq. (5) at any k: u_{1:k} = V_k^+ x_k."""
    L = 24
    lam = ring_init(jax.random.key(4), 32, 0.95, 1.0)
    u = jax.random.normal(jax.random.key(5), (L,))
    x = scalar_input_states(lam, u)
    for k in (1, 9):
        np.testing.assert_allclose(reconstruct(lam, x[k - 1], k), u[:k], atol=1e-8)


def test_reconstruction_is_batched_over_eigenvalues_and_states():
    L = 8
    lam = jnp.stack([roots_of_unity(L), 0.9 * roots_of_unity(L)])  # (2, N)
    u = jax.random.normal(jax.random.key(6), (3, 1, L))  # 3 sequences, the same for both lams
    x_L = scalar_input_states(lam, jnp.broadcast_to(u, (3, 2, L)))[..., -1, :]  # (3, 2, N)
    u_hat = reconstruct(lam, x_L, L)
    assert u_hat.shape == (3, 2, L)
    np.testing.assert_allclose(u_hat, jnp.broadcast_to(u, (3, 2, L)), atol=1e-12)


def test_real_input_needs_only_half_the_complex_states():
    """With N complex eigenvalues in the upper half plane, 2N real inputs are recoverable."""
    L, N = 16, 8
    lam = ring_init(jax.random.key(7), N, 0.95, 1.0, max_phase=math.pi)
    u = jax.random.normal(jax.random.key(8), (L,))
    x_L = scalar_input_states(lam, u)[-1]
    u_hat = reconstruct(lam, x_L, L, real_input=True)
    assert not jnp.iscomplexobj(u_hat)
    np.testing.assert_allclose(u_hat, u, atol=1e-8)
    # Without the real constraint the complex system is underdetermined (N < L): it fails.
    assert np.abs(np.asarray(reconstruct(lam, x_L, L)) - np.asarray(u)).max() > 0.1


@pytest.mark.parametrize(("N", "k"), [(5, 9), (9, 5)])
def test_reconstruction_is_the_least_squares_pseudo_inverse(N, k):
    """Under- and overdetermined cases agree with numpy's minimum-norm least squares."""
    lam = ring_init(jax.random.key(9), N, 0.5, 1.0)
    x = jax.random.normal(jax.random.key(10), (N,)) + 0j
    expected = np.linalg.lstsq(np.vander(np.asarray(lam), k), np.asarray(x), rcond=None)[0]
    np.testing.assert_allclose(reconstruct(lam, x, k), expected, atol=1e-10)


def test_rcond_truncates_small_singular_values():
    lam = ring_init(jax.random.key(11), 16, 0.0, 1.0)
    L = 16
    s = np.asarray(singular_values(lam, L))
    rcond = 1e-3
    V = np.vander(np.asarray(lam), L)
    x = V @ np.asarray(jax.random.normal(jax.random.key(12), (L,)))
    expected = np.linalg.pinv(V, rtol=rcond) @ x
    assert (s < rcond * s[0]).sum() > 0  # the truncation really drops something
    np.testing.assert_allclose(reconstruct(lam, x, L, rcond=rcond), expected, atol=1e-8)


@pytest.mark.parametrize("N", [1, 8, 64])
def test_condition_number_of_roots_of_unity_is_one(N):
    assert float(condition_number(roots_of_unity(N), N)) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(singular_values(roots_of_unity(N), N), math.sqrt(N), rtol=1e-12)


def test_measures_are_float64_whatever_jax_precision():
    """singular_values / condition_number / reconstruct are NumPy float64 by construction."""
    with jax.enable_x64(False):
        lam = ring_init(jax.random.key(0), 12, 0.0, 1.0)  # complex64
        assert singular_values(lam, 12).dtype == np.float64
        assert reconstruct(lam, np.ones(12), 12).dtype == np.complex128
        # the nodes themselves were rounded to complex64: cond is 1 to float32 accuracy only
        assert float(condition_number(roots_of_unity(32), 32)) == pytest.approx(1.0, abs=1e-5)


def test_conditioning_improves_near_the_unit_circle():
    """Fig. 2 of Orvieto et al.: L = 128, N = 256; ||V^+||_2 huge for r_min = 0, O(1) for 0.999."""
    L, N = 128, 256
    inv_norm = {
        r_min: 1.0 / float(singular_values(ring_init(jax.random.key(13), N, r_min, 1.0), L)[-1])
        for r_min in (0.0, 0.999)
    }
    assert inv_norm[0.0] > 1e6
    assert inv_norm[0.999] < 10.0


def test_real_eigenvalues_are_exponentially_ill_conditioned():
    """Gautschi & Inglese (1987): real nodes give cond(V_N) growing exponentially with N."""
    conds = [
        float(condition_number(real_init(jax.random.key(14), N, -1.0, 1.0), N))
        for N in (4, 8, 12, 16)
    ]
    assert all(b > 5 * a for a, b in zip(conds, conds[1:], strict=False))
    assert conds[-1] > 1e5 * float(condition_number(roots_of_unity(16), 16))


def test_condition_number_is_inf_for_repeated_eigenvalues():
    assert float(condition_number(jnp.asarray([0.0, 0.0]), 2)) == math.inf


def test_vandermonde64_is_numpy_vander_bit_for_bit():
    """Pure NumPy complex128 (no JAX round trip): identical to numpy.vander, also at 0^0 = 1."""
    lam = np.array([0.0, 0.5, -0.9 + 0.1j, 1j, 0.99])
    V = vandermonde64(lam, 7)
    assert isinstance(V, np.ndarray) and V.dtype == np.complex128
    np.testing.assert_array_equal(V, np.vander(lam.astype(complex), 7))


@pytest.mark.parametrize(("m", "n"), [(30, 20), (12, 20), (20, 20)])
def test_pseudo_inverse_matches_numpy(m, n):
    A = np.vander(np.asarray(ring_init(jax.random.key(5), m, 0.8, 1.0)), n)
    np.testing.assert_allclose(pseudo_inverse(A), np.linalg.pinv(A), atol=1e-8)
    x = np.arange(m, dtype=float)
    np.testing.assert_allclose(pinv_apply(A, x), np.linalg.pinv(A) @ x, atol=1e-7)


def test_the_one_cut_off_is_numpys_default():
    """s is kept iff s > max(m, n) eps s_max: pinv, lstsq and matrix_rank agree on a rank-3 matrix
    whose other singular values are exactly at rounding level."""
    rng = np.random.default_rng(0)
    A = rng.normal(size=(9, 3)) @ rng.normal(size=(3, 6))
    s = np.linalg.svd(A, compute_uv=False)
    assert cutoff(A.shape) == 9 * EPS
    assert numerical_rank(s, A.shape) == np.linalg.matrix_rank(A) == 3
    x = rng.normal(size=9)
    solution, rank = pinv_apply(A, x, return_rank=True)
    expected, _, lstsq_rank, _ = np.linalg.lstsq(A, x, rcond=None)
    assert rank == lstsq_rank == 3
    np.testing.assert_allclose(solution, expected, atol=1e-10)
    np.testing.assert_allclose(pseudo_inverse(A), np.linalg.pinv(A, rtol=9 * EPS), atol=1e-10)


def test_pseudo_inverse_truncates_like_numpy_with_rcond():
    lam = np.asarray(ring_init(jax.random.key(6), 24, 0.0, 1.0))
    A = np.vander(lam, 24)
    s = np.linalg.svd(A, compute_uv=False)
    assert np.sum(s <= 1e-4 * s[0]) > 0  # the cut really drops something
    np.testing.assert_allclose(
        pseudo_inverse(A, rcond=1e-4), np.linalg.pinv(A, rtol=1e-4), atol=1e-9
    )


def test_pseudo_inverse_is_batched():
    A = np.random.default_rng(1).normal(size=(4, 5, 3))
    np.testing.assert_allclose(pseudo_inverse(A), np.stack([np.linalg.pinv(a) for a in A]))


def test_gram_condition_is_cond_of_the_gram_and_inf_when_singular():
    A = np.random.default_rng(2).normal(size=(8, 5))
    assert gram_condition(A) == pytest.approx(np.linalg.cond(A.T @ A), rel=1e-10)
    assert gram_condition(A.T) == math.inf  # 5 x 8: A A^T of rank 5 < 8
    assert gram_condition(A.T, on_range=True) == pytest.approx(np.linalg.cond(A.T @ A), rel=1e-10)


def test_dtype_is_kept():
    with jax.enable_x64(False):
        assert vandermonde(jnp.ones(3, jnp.float32), 4).dtype == jnp.float32
    assert vandermonde(jnp.ones(3, jnp.float32), 4).dtype == jnp.float32
    assert vandermonde(roots_of_unity(3), 4).dtype == jnp.complex128


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: vandermonde(jnp.asarray(0.5), 3),
            ValueError,
            "lam must have at least 1 dimensions",
        ),
        (lambda: vandermonde([0.5, np.nan], 3), ValueError, "lam contains non-finite"),
        (lambda: vandermonde("abc", 3), TypeError, "lam must be a numeric array"),
        (lambda: vandermonde([0.5], 0), ValueError, "L must be >= 1"),
        (lambda: vandermonde([0.5], 2.0), TypeError, "L must be an int"),
        (
            lambda: reconstruct([0.5, 0.6], [1.0, 2.0, 3.0], 2),
            ValueError,
            "x_k has 3 state entries",
        ),
        (lambda: reconstruct([0.5, 0.6], [1.0, np.inf], 2), ValueError, "x_k contains non-finite"),
        (lambda: reconstruct([0.5, 0.6], [1.0, 2.0], 0), ValueError, "k must be >= 1"),
        (lambda: reconstruct([0.5, 0.6], [1.0, 2.0], 2, rcond=1.5), ValueError, "rcond"),
        (lambda: condition_number([0.5, 0.6], -1), ValueError, "L must be >= 1"),
    ],
)
def test_bad_input_raises(call, error, match):
    with pytest.raises(error, match=match):
        call()
