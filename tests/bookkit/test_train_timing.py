"""The timed hand-written LRU of the performance appendix computes what the library model computes
(numbers, not shapes), and the timing returns two positive medians."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.bookkit.train_timing import plain_forward, plain_model, time_train_step
from lrnn_core.orvieto.ode_model import ModelConfig, make_model, with_constant


@pytest.mark.parametrize("D", [0, 5])
def test_plain_forward_equals_the_library_model_with_the_same_parameters(D):
    model = make_model(ModelConfig(3, D), nnx.Rngs(0))
    lru = model.lru
    # the library's input scale gamma, folded into B (the plain model computes gamma itself)
    p = {"nu": lru.nu_log[...], "theta": lru.theta_log[...]}
    lam = np.asarray(lru.eigenvalues(), np.complex128)
    scale = np.exp(np.asarray(lru.gamma_log[...])) / np.sqrt(1 - np.abs(lam) ** 2)
    p["B_re"] = jnp.asarray(np.asarray(lru.B_re[...]) * scale[:, None], jnp.float32)
    p["B_im"] = jnp.asarray(np.asarray(lru.B_im[...]) * scale[:, None], jnp.float32)
    layers = model.head.layers
    if D:
        p["W1"], p["b1"] = layers[0].kernel[...], layers[0].bias[...]
    p["W2"], p["b2"] = layers[-1].kernel[...], layers[-1].bias[...]
    v = jnp.asarray(np.random.default_rng(1).standard_normal((2, 20)), jnp.float32)
    want = np.asarray(model(with_constant(v))[..., 0])
    np.testing.assert_allclose(plain_forward(p, v), want, rtol=1e-4, atol=1e-5)
    assert set(plain_model(3, D, jax.random.key(0))) == set(p)


def test_time_train_step_returns_two_positive_medians():
    ours, plain = time_train_step(ModelConfig(4, 8), 2, 16, repeats=2)
    assert 0 < ours < 60 and 0 < plain < 60
