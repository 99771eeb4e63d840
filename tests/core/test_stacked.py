"""The stacked SSM of Wang & Xue (2023), checked against a hand-written NumPy loop."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

from lrnn_core.core.memory import heaviside_memory
from lrnn_core.core.stacked import ACTIVATIONS, StackedSSM
from lrnn_core.core.train import mse_loss, train

L = 9
NP_ACT = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0), "identity": lambda x: x}


def numpy_stack(model: StackedSSM, u: np.ndarray) -> np.ndarray:
    """The stack as explicit loops over layers and time, float64."""
    z = np.asarray(u, np.float64)
    for layer in model.layers:
        lam = np.asarray(layer.eigenvalues(), np.float64)
        B = np.asarray(layer.B[...], np.float64)
        C = np.asarray(layer.C[...], np.float64) if layer.mixing else np.eye(layer.N)
        b = np.asarray(layer.b[...], np.float64)
        h = np.zeros(layer.N)
        out = np.zeros((len(z), layer.N))
        for k in range(len(z)):
            h = lam * h + B @ z[k]
            out[k] = NP_ACT[layer.activation](C @ h + b)
        z = out + z if layer.residual else out
    return z @ np.asarray(model.W[...], np.float64).T + np.asarray(model.w[...], np.float64)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(depth=1),
        dict(depth=3, activation="relu"),
        dict(depth=2, mixing=False, residual=True),
        dict(depth=4, activation="identity", r_min=0.0, r_max=0.99),
    ],
)
def test_forward_matches_numpy_loop(kwargs):
    with jax.enable_x64(True):
        model = StackedSSM(2, 5, 3, param_dtype=jnp.float64, rngs=nnx.Rngs(0), **kwargs)
        for layer in model.layers:  # nonzero biases, so that they are checked too
            layer.b[...] = jnp.linspace(-0.3, 0.2, layer.N)
        u = np.random.default_rng(1).normal(size=(L, 2))
        np.testing.assert_allclose(model(u), numpy_stack(model, u), rtol=1e-12, atol=1e-12)
        batch = np.random.default_rng(2).normal(size=(4, L, 2))
        np.testing.assert_allclose(model(batch)[3], numpy_stack(model, batch[3]), atol=1e-12)


def test_recurrence_off_is_a_token_wise_network():
    """Prop. 3.1's layers: with the recurrence off, y_k depends on u_k only (a one-hidden-layer
    network applied at every step)."""
    with jax.enable_x64(True):
        model = StackedSSM(
            1, 6, 1, depth=1, recurrent=False, mixing=False, param_dtype=jnp.float64,
            rngs=nnx.Rngs(3),
        )  # fmt: skip
        layer = model.layers[0]
        u = np.linspace(-2, 2, L)[:, None]
        B, b = np.asarray(layer.B[...])[:, 0], np.asarray(layer.b[...])
        want = np.tanh(np.outer(u[:, 0], B) + b) @ np.asarray(model.W[0]) + float(model.w[0])
        np.testing.assert_allclose(model(u)[:, 0], want, atol=1e-13)
        assert np.all(np.asarray(layer.eigenvalues()) == 0)
        assert model.slowest_rate() == np.inf


def test_eigenvalues_in_the_ring_and_slowest_rate():
    model = StackedSSM(1, 50, 1, depth=3, r_min=0.6, r_max=0.8, rngs=nnx.Rngs(4))
    lams = np.concatenate([np.asarray(layer.eigenvalues()) for layer in model.layers])
    assert lams.min() >= 0.6 - 1e-6 and lams.max() <= 0.8 + 1e-6
    np.testing.assert_allclose(model.slowest_rate(), -np.log(lams.max()), rtol=1e-6)


def test_linear_scalar_two_layer_memory_is_the_convolution_of_two_geometric_kernels():
    """Depth 2, width 1, identity activation, no mixing: the Heaviside memory is the impulse
    response sum_j a^j b^(k-j) = (a^(k+1) - b^(k+1)) / (a - b) times the gains."""
    with jax.enable_x64(True):
        model = StackedSSM(
            1, 1, 1, depth=2, activation="identity", mixing=False, param_dtype=jnp.float64,
            rngs=nnx.Rngs(5),
        )  # fmt: skip
        a, b = (float(layer.eigenvalues()[0]) for layer in model.layers)
        gain = float(model.layers[0].B[0, 0] * model.layers[1].B[0, 0] * model.W[0, 0])
        m = heaviside_memory(lambda x: model(x[:, None])[:, 0], 40)
        k = np.arange(40)
        np.testing.assert_allclose(m, abs(gain) * (a ** (k + 1) - b ** (k + 1)) / (a - b))


def test_trains_with_the_one_loop():
    """A width-8 token-wise stack learns y = u^2 well below the variance of the target."""
    u = np.random.default_rng(6).uniform(-1, 1, size=(32, 4, 1)).astype(np.float32)
    data = (u, u**2)
    result = train(
        lambda rngs: StackedSSM(1, 8, 1, depth=1, recurrent=False, rngs=rngs),
        mse_loss,
        data,
        steps=400,
        optimizer=optax.adam(1e-2),
        progress=False,
    )
    assert result.losses[-1] < 0.1 * np.var(u**2)


def test_sizes_are_named_by_the_notation_table():
    model = StackedSSM(2, 3, 1, depth=2, rngs=nnx.Rngs(0))
    assert (model.M, model.N, model.d_out) == (2, 3, 1)
    assert [(layer.M, layer.N) for layer in model.layers] == [(2, 3), (3, 3)]
    with pytest.raises(ValueError, match="N must be >= 1"):
        StackedSSM(2, 0, 1, rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="M must be >= 1"):
        StackedSSM(0, 3, 1, rngs=nnx.Rngs(0))


def test_bad_input_raises():
    model = StackedSSM(2, 3, 1, rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="u must have shape"):
        model(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="u must have at least"):
        model(np.zeros(5))
    with pytest.raises(ValueError, match="non-finite"):
        model(np.full((5, 2), np.nan))
    with pytest.raises(ValueError, match="activation"):
        StackedSSM(1, 3, 1, activation="softsign", rngs=nnx.Rngs(0))
    with pytest.raises(ValueError, match="r_max"):
        StackedSSM(1, 3, 1, r_min=0.5, r_max=1.0, rngs=nnx.Rngs(0))
    with pytest.raises(TypeError, match="depth"):
        StackedSSM(1, 3, 1, depth=2.0, rngs=nnx.Rngs(0))
    assert set(ACTIVATIONS) >= {"tanh", "relu", "identity"}
