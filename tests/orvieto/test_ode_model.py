"""The ODE model of Orvieto et al. (ICML 2024, §4.2): the LRU with a constant channel and a
readout, against a NumPy recurrence."""

import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.orvieto.ode_model import ModelConfig, make_model, model_mse, with_constant


def test_model_is_the_recurrence_with_a_constant_channel():
    """Predictions equal x_k = lam x_{k-1} + gamma B [v_k, 1], y_k = W [Re x, Im x] + b in NumPy."""
    model = make_model(ModelConfig(3, 0), nnx.Rngs(0))
    v = np.random.default_rng(1).standard_normal((2, 20)).astype(np.float32)
    lam = np.asarray(model.lru.eigenvalues(), np.complex128)
    lru = model.lru
    B = (np.asarray(lru.B_re[...]) + 1j * np.asarray(lru.B_im[...])) * np.exp(
        np.asarray(lru.gamma_log[...])
    )[:, None]
    layer = model.head.layers[0]
    W, b = np.asarray(layer.kernel[...]), np.asarray(layer.bias[...])
    want = np.zeros_like(v, dtype=np.float64)
    for n in range(2):
        x = np.zeros(3, complex)
        for k in range(20):
            x = lam * x + B @ np.array([v[n, k], 1.0])
            want[n, k] = (np.concatenate([x.real, x.imag]) @ W + b)[0]
    got = np.asarray(model(with_constant(jnp.asarray(v)))[..., 0])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_model_mse_is_the_mean_squared_error_of_the_predictions():
    model = make_model(ModelConfig(3, 5), nnx.Rngs(2))
    v = jnp.asarray(np.random.default_rng(3).standard_normal((2, 7)), jnp.float32)
    y = jnp.arange(14.0, dtype=jnp.float32).reshape(2, 7) / 10
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)
    want = np.mean((np.asarray(model(with_constant(v))[..., 0], np.float64) - np.asarray(y)) ** 2)
    assert float(model_mse(graphdef, rest, params, v, y)) == pytest.approx(want, rel=1e-5)
    np.testing.assert_array_equal(with_constant(jnp.zeros((1, 2)))[0], [[0.0, 1.0], [0.0, 1.0]])
    assert ModelConfig(3, 0).readout == "linear" and ModelConfig(3, 5).readout == "MLP 5"
