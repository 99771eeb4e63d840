"""HiPPO-LegS (Gu et al., 2020) against closed forms and a Gauss-Legendre reference."""

import numpy as np
import pytest
from scipy.special import eval_legendre

from lrnn_core.core.hippo import (
    legendre_basis,
    legs_matrices,
    legs_reconstruct,
    legs_states,
    orthonormal_legendre_basis,
)


def legendre_projection(f, t: float, N: int, nodes: int = 200) -> np.ndarray:
    """The continuous-time target of the LegS state at time ``t`` (Gu et al. 2020, §3): ``c_n =
    (1/t) int_0^t f(s) sqrt(2n+1) P_n(2s/t - 1) ds`` by Gauss-Legendre quadrature."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    n = np.arange(N)
    g = np.sqrt(2 * n + 1.0) * eval_legendre(n[None, :], x[:, None])
    return 0.5 * (w * f(t * (x + 1) / 2)) @ g


def test_legs_matrices_closed_form():
    A, B = legs_matrices(4)
    q = np.sqrt([1.0, 3.0, 5.0, 7.0])
    expected = np.array(
        [
            [1, 0, 0, 0],
            [q[1] * q[0], 2, 0, 0],
            [q[2] * q[0], q[2] * q[1], 3, 0],
            [q[3] * q[0], q[3] * q[1], q[3] * q[2], 4],
        ]
    )
    np.testing.assert_allclose(A, expected, rtol=1e-15)
    np.testing.assert_allclose(B, q, rtol=1e-15)


def test_scaled_legendre_basis_is_orthonormal_in_the_limit():
    G = legendre_basis(6, 4000)
    # right-endpoint Riemann sum of int_0^1 g_m g_n: error ~ g_n(1)^2 / L = (2n+1) / L
    np.testing.assert_allclose(G.T @ G / 4000, np.eye(6), atol=12 / 4000)


def test_continuous_legs_is_exact_on_polynomials():
    """The LegS ODE holds for the exact projections of f(s) = s^d (closed-form check of A and B).

    Scaling gives c(t) = t^d c(1), so t c'(t) = d c(t), and t c' = -A c + B f(t) with f = t^d is
    (A + d I) c(1) = B, where c(1) comes from Gauss-Legendre quadrature.
    """
    A, B = legs_matrices(8)
    for d in range(5):
        c1 = legendre_projection(lambda s, d=d: s**d, 1.0, 8)
        np.testing.assert_allclose((A + d * np.eye(8)) @ c1, B, atol=1e-12)


@pytest.mark.parametrize("L", [500, 2000])
def test_discrete_state_recovers_polynomial_of_low_degree(L):
    N = 8
    p = np.polynomial.Polynomial([0.3, -1.0, 2.0, 0.5, -1.5])  # degree 4 < N
    u = p(np.arange(1, L + 1) / L)
    c = legs_states(u, N)
    reference = legendre_projection(lambda s: p(s / L), L, N)
    np.testing.assert_allclose(c, reference, atol=50 / L**2)
    assert np.max(np.abs(c[5:])) < 50 / L**2  # degree-4 input: no coefficient beyond P_4
    rel = np.linalg.norm(legs_reconstruct(c, L) - u) / np.linalg.norm(u)
    assert rel < 50 / L**2


def test_batched_states_match_single():
    u = np.random.default_rng(0).standard_normal((50, 3))
    c = legs_states(u, 5)
    np.testing.assert_allclose(c[:, 1], legs_states(u[:, 1], 5), atol=1e-14)
    np.testing.assert_allclose(
        legs_reconstruct(c, 50)[:, 2], legs_reconstruct(c[:, 2], 50), atol=1e-14
    )


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: legs_matrices(0), ValueError),
        (lambda: legs_matrices(2.0), TypeError),
        (lambda: legs_states(np.array([1.0, np.inf]), 3), ValueError),
        (lambda: legs_states(np.ones((2, 2, 2)), 3), ValueError),
        (lambda: legs_reconstruct(np.ones(3), 0), ValueError),
    ],
)
def test_bad_inputs_raise(call, error):
    with pytest.raises(error):
        call()


def test_orthonormal_legendre_basis_spans_the_legendre_polynomials():
    Q = orthonormal_legendre_basis(6, 200)
    np.testing.assert_allclose(Q.T @ Q, np.eye(6), atol=1e-12)
    G = legendre_basis(6, 200)
    np.testing.assert_allclose(Q @ (Q.T @ G), G, atol=1e-10)  # same span
    np.testing.assert_allclose(Q[:, 0], np.full(200, 1 / np.sqrt(200)), atol=1e-14)
    # column n is orthogonal to every polynomial of lower degree (Gram-Schmidt order)
    np.testing.assert_allclose(G[:, :3].T @ Q[:, 3], 0.0, atol=1e-10)
