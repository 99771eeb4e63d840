"""Volterra targets against the explicit double sum over lags."""

import jax
import numpy as np
import pytest

from lrnn_core.wang_xue.volterra import (
    Volterra2,
    product_of_convolutions,
    volterra_kernels,
    volterra_outputs,
)

L = 12


def explicit(k1, k2, u):
    """y_k = sum_i k1(i) u_{k-i} + sum_{i,j} k2(i, j) u_{k-i} u_{k-j}, by loops."""
    y = np.zeros(len(u))
    for k in range(len(u)):
        past = u[k::-1]  # u_k, u_{k-1}, ..., u_0
        y[k] = k1[: k + 1] @ past + past @ k2[: k + 1, : k + 1] @ past
    return y


@pytest.fixture
def target():
    lam = np.array([0.9, 0.6 * np.exp(0.4j), -0.5])
    c1 = np.array([0.3, -1.0, 0.5])
    c2 = np.array([[1.0, 0.2, 0.0], [0.2, -0.5, 0.3], [0.0, 0.3, 0.1]])
    return Volterra2(lam, c1, c2)


def test_outputs_match_the_volterra_double_sum(target):
    with jax.enable_x64(True):
        u = np.random.default_rng(0).normal(size=(3, L))
        k1, k2 = volterra_kernels(target, L)
        y = np.asarray(volterra_outputs(target, u))
        for b in range(3):
            np.testing.assert_allclose(y[b], explicit(k1, k2, u[b]), rtol=1e-12, atol=1e-12)


def test_kernels_in_closed_form(target):
    k1, k2 = volterra_kernels(target, L)
    i = 4
    lam = np.asarray(target.lam)
    np.testing.assert_allclose(k1[i], np.sum(target.c1 * (lam**i).real))
    np.testing.assert_allclose(k2[2, 5], (lam**2).real @ target.c2 @ (lam**5).real)


def test_product_of_convolutions_is_the_product():
    with jax.enable_x64(True):
        u = np.random.default_rng(1).normal(size=L)
        y = np.asarray(volterra_outputs(product_of_convolutions(0.8, 0.5, 2.0), u))
        fa = [sum(0.8**i * u[k - i] for i in range(k + 1)) for k in range(L)]
        fb = [sum(0.5**i * u[k - i] for i in range(k + 1)) for k in range(L)]
        np.testing.assert_allclose(y, 2.0 * np.array(fa) * np.array(fb), rtol=1e-12)


def test_bad_input_raises(target):
    with pytest.raises(ValueError, match="target.c2"):
        volterra_outputs(target._replace(c2=np.eye(2)), np.zeros(L))
    with pytest.raises(ValueError, match="target.lam"):
        volterra_outputs(target._replace(lam=np.array([1.2, 0.1, 0.1])), np.zeros(L))
    with pytest.raises(ValueError, match="u must have"):
        volterra_outputs(target, np.float64(1.0))
    with pytest.raises(TypeError, match="Volterra2"):
        volterra_outputs((1, 2, 3), np.zeros(L))
