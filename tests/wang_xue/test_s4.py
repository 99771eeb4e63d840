"""The bilinear S4 discretisation against scalar closed forms and the diagonal scan."""

import jax
import numpy as np
import pytest
from scipy.linalg import expm

from lrnn_core.core.scan import linear_scan
from lrnn_core.wang_xue.s4 import bilinear, lti_outputs


def test_scalar_bilinear_closed_form():
    a, dt = 2.0, 0.1
    Abar, Bbar = bilinear([[-a]], [1.0], dt)
    np.testing.assert_allclose(Abar[0, 0], (1 - a * dt / 2) / (1 + a * dt / 2), rtol=1e-15)
    np.testing.assert_allclose(Bbar[0], dt / (1 + a * dt / 2), rtol=1e-15)


def test_bilinear_is_second_order_accurate():
    """Abar - expm(A dt) = O(dt^3) per step for a fixed matrix."""
    A = np.array([[-1.0, 0.0], [2.0, -3.0]])
    errors = [np.abs(bilinear(A, [1.0, 1.0], dt)[0] - expm(A * dt)).max() for dt in (1e-2, 5e-3)]
    assert 6 < errors[0] / errors[1] < 10  # 2^3 = 8


def test_diagonal_lti_matches_linear_scan():
    with jax.enable_x64(True):
        lam, b, c = np.array([0.9, -0.5, 0.3]), np.array([1.0, 2.0, -1.0]), np.array([0.5, 1, 2])
        u = np.random.default_rng(0).normal(size=20)
        want = linear_scan(lam, u[:, None] * b) @ c
        np.testing.assert_allclose(lti_outputs(np.diag(lam), b, c, u), want, rtol=1e-12)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="A must have shape"):
        bilinear(np.zeros((2, 3)), [1.0, 1.0], 0.1)
    with pytest.raises(ValueError, match="dt must be"):
        bilinear(np.eye(2), [1.0, 1.0], -0.1)
    with pytest.raises(ValueError, match="C must have shape"):
        lti_outputs(np.eye(2), [1.0, 1.0], [1.0], [1.0, 2.0])
