"""Targets of Wang, Li & Li (ICLR 2024): memory kernels, linear functionals, random tanh RNNs."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lrnn_core.core.targets import (
    TanhRNN,
    exp_memory,
    linear_functional,
    poly_memory,
    random_tanh_rnn,
    tanh_rnn_outputs,
    white_inputs,
)


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def direct_sum(rho, x, dt):
    """The O(T^2) reference ``y_k = dt sum_{j<=k} rho_j x_{k-j}``."""
    T = len(rho)
    return np.array([dt * sum(rho[j] * x[k - j] for j in range(k + 1)) for k in range(T)])


def test_memory_kernels_closed_forms():
    t = np.linspace(0.0, 50.0, 11)
    np.testing.assert_allclose(exp_memory(t), np.exp(-t), rtol=1e-14)
    np.testing.assert_allclose(exp_memory(t, rate=0.3), np.exp(-0.3 * t), rtol=1e-14)
    np.testing.assert_allclose(poly_memory(t), (1 + 0.1 * t) ** -1.1, rtol=1e-14)
    np.testing.assert_allclose(poly_memory(t, power=2.0, scale=1.0), 1 / (1 + t) ** 2, rtol=1e-14)
    assert float(poly_memory(0.0)) == 1.0


@pytest.mark.parametrize("kernel", ["exp", "poly"])
@pytest.mark.parametrize("dt", [1.0, 0.1])
def test_linear_functional_matches_direct_sum_and_numpy_convolve(kernel, dt):
    T = 37
    t = dt * np.arange(T)
    rho = np.asarray(exp_memory(t) if kernel == "exp" else poly_memory(t))
    x = np.random.default_rng(0).normal(size=T)
    y = np.asarray(linear_functional(rho, x, dt))
    np.testing.assert_allclose(y, direct_sum(rho, x, dt), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(y, dt * np.convolve(rho, x)[:T], rtol=1e-10, atol=1e-13)


def test_linear_functional_is_batched_and_causal():
    T = 64
    rho = np.asarray(poly_memory(np.arange(T)))
    x = np.random.default_rng(1).normal(size=(3, 2, T))
    y = np.asarray(linear_functional(rho, x, 1.0))
    assert y.shape == (3, 2, T)
    np.testing.assert_allclose(y[2, 1], np.convolve(rho, x[2, 1])[:T], rtol=1e-10, atol=1e-12)
    changed = x.copy()
    changed[..., 40:] += 5.0  # the future of step 39
    y2 = np.asarray(linear_functional(rho, changed, 1.0))
    np.testing.assert_allclose(y2[..., :40], y[..., :40], atol=1e-12)
    assert np.all(np.abs(y2[..., 40:] - y[..., 40:]) > 1e-6)


def test_linear_functional_rejects_bad_input():
    rho = np.ones(8)
    with pytest.raises(ValueError, match="u must have last axis"):
        linear_functional(rho, np.ones(7), 1.0)
    with pytest.raises(ValueError, match="rho must have shape"):
        linear_functional(np.ones((2, 8)), np.ones(8), 1.0)
    with pytest.raises(ValueError, match="dt"):
        linear_functional(rho, np.ones(8), 0.0)
    with pytest.raises(ValueError, match="u contains non-finite"):
        linear_functional(rho, np.full(8, np.nan), 1.0)
    with pytest.raises(ValueError, match="rate"):
        exp_memory(1.0, rate=-1.0)


def test_white_inputs_are_dt_times_standard_normal():
    x = np.asarray(white_inputs(jax.random.key(0), 400, 500, 0.1))
    assert x.shape == (400, 500)
    assert abs(x.mean()) < 0.1 * 0.01
    assert abs(x.std() - 0.1) < 0.1 * 0.01
    with pytest.raises(ValueError, match="n_seqs must be >= 1"):
        white_inputs(jax.random.key(0), 0, 5, 1.0)


def tanh_rnn_reference(p, x):
    w, u, b, c, d = (np.asarray(v) for v in p)
    h = np.zeros(w.shape[0])
    out = []
    for x_k in x:
        h = np.tanh(w @ h + u * x_k + b)
        out.append(c @ h + d)
    return np.array(out)


def test_tanh_rnn_matches_numpy_loop():
    p = random_tanh_rnn(jax.random.key(3), 16, scale=3.0)
    x = np.random.default_rng(2).normal(size=(2, 50))
    y = np.asarray(tanh_rnn_outputs(p, x))
    assert y.shape == (2, 50)
    for i in range(2):
        np.testing.assert_allclose(y[i], tanh_rnn_reference(p, x[i]), rtol=1e-12, atol=1e-12)


def test_random_tanh_rnn_follows_torch_law_and_scale():
    m = 16
    p = random_tanh_rnn(jax.random.key(4), m)
    for v in (p.B, p.b, p.C, p.W):
        assert np.all(np.abs(np.asarray(v)) <= 1 / np.sqrt(m))
    big = random_tanh_rnn(jax.random.key(4), m, scale=5.0)
    np.testing.assert_allclose(big.W, 5.0 * p.W, rtol=1e-14)
    radii = [
        np.max(np.abs(np.linalg.eigvals(np.asarray(random_tanh_rnn(jax.random.key(s), m).W))))
        for s in range(20)
    ]
    assert (
        0.4 < np.median(radii) < 0.8
    )  # U(-1/4, 1/4) entries: radius ~ sqrt(m) * 0.25 / sqrt(3) = 0.58


def test_tanh_rnn_rejects_bad_params():
    p = random_tanh_rnn(jax.random.key(0), 4)
    with pytest.raises(ValueError, match="params must hold"):
        tanh_rnn_outputs(p._replace(B=jnp.ones(3)), np.ones(5))
    with pytest.raises(TypeError, match="TanhRNN"):
        tanh_rnn_outputs(tuple(p), np.ones(5))
    assert isinstance(p, TanhRNN)
