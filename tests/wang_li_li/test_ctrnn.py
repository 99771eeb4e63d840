"""ctrnn: Euler CTRNN against a NumPy loop, the parameterisations against their closed forms, the
in-scan output MSE against ctrnn_outputs."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lrnn_core.wang_li_li.ctrnn import (
    ACTIVATIONS,
    CTRNN,
    INVERSE_EPS,
    PARAMETERISATIONS,
    STABLE_PARAMETERISATIONS,
    activation_function,
    ctrnn_outputs,
    ctrnn_states,
    init_ctrnn,
    output_mse,
    raw_from_weight,
    recurrent_weight,
)

NUMPY_SIGMA = {
    "linear": lambda z: z,
    "tanh": np.tanh,
    "hardtanh": lambda z: np.clip(z, -1, 1),
    "relu": lambda z: np.maximum(z, 0),
}


def numpy_ctrnn(lam, u, b, c, x, sigma, dt):
    """The Euler recurrence h_{k+1} = h_k + dt sigma(lam h_k + U x_k + b), y_k = c^T h_{k+1}."""
    h = np.zeros(len(lam))
    ys = []
    for xk in x:
        h = h + dt * sigma(lam * h + u @ xk + b)
        ys.append(c.T @ h)
    return np.array(ys)


@pytest.mark.parametrize("activation", ACTIVATIONS)
@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_euler_matches_numpy_loop(activation, parameterisation):
    rng = np.random.default_rng(0)
    N, M, d_out, T, dt = 5, 2, 3, 40, 0.3
    lam = -rng.uniform(0.2, 2.0, N)
    u, b, c = rng.normal(size=(N, M)), rng.normal(size=N) * 0.3, rng.normal(size=(N, d_out))
    x = rng.normal(size=(T, M))
    with jax.enable_x64(True):
        params = CTRNN(
            raw_from_weight(jnp.asarray(lam), parameterisation),
            jnp.asarray(u),
            jnp.asarray(b),
            jnp.asarray(c.T),
        )
        y = ctrnn_outputs(
            params, jnp.asarray(x), activation=activation, parameterisation=parameterisation, dt=dt
        )
    ref = numpy_ctrnn(lam, u, b, c, x, NUMPY_SIGMA[activation], dt)
    np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-9, atol=1e-12)


def test_batch_axes_and_states():
    key = jax.random.key(1)
    params = init_ctrnn(key, 4, M=1, d_out=2)
    x = jax.random.normal(jax.random.key(2), (3, 2, 25, 1))
    y = ctrnn_outputs(params, x, activation="tanh")
    for i in range(3):
        for j in range(2):
            np.testing.assert_allclose(
                y[i, j], ctrnn_outputs(params, x[i, j], activation="tanh"), rtol=1e-5, atol=1e-6
            )
    h = ctrnn_states(params, x, activation="tanh")
    np.testing.assert_allclose(h @ params.C.T, y, rtol=1e-5, atol=1e-6)


def test_linear_ctrnn_impulse_response_is_euler_exponential():
    """Linear activation: the response to an impulse at step 0 is dt u c (1 + dt lam)^k."""
    lam = np.array([-0.5, -0.1])
    params = CTRNN(
        jnp.asarray(lam), jnp.array([[1.0], [2.0]]), jnp.zeros(2), jnp.array([[1.0, -1.0]])
    )
    dt, T = 0.2, 30
    x = np.zeros((T, 1))
    x[0] = 1.0
    y = np.asarray(ctrnn_outputs(params, x, activation="linear", dt=dt))[:, 0]
    k = np.arange(T)
    ref = dt * (1 * (1 + dt * lam[0]) ** k - 2 * (1 + dt * lam[1]) ** k)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("parameterisation", PARAMETERISATIONS)
def test_raw_from_weight_inverts_recurrent_weight(parameterisation):
    lam = -np.geomspace(1e-3, 50.0, 41)
    with jax.enable_x64(True):
        back = recurrent_weight(
            raw_from_weight(jnp.asarray(lam), parameterisation), parameterisation
        )
    np.testing.assert_allclose(np.asarray(back), lam, rtol=1e-10)


def test_closed_forms():
    raw = jnp.array([-2.0, 0.0, 1.5])
    np.testing.assert_allclose(recurrent_weight(raw, "exp"), -np.exp([-2.0, 0.0, 1.5]), rtol=1e-6)
    np.testing.assert_allclose(
        recurrent_weight(raw, "softplus"), -np.log1p(np.exp([-2.0, 0.0, 1.5])), rtol=1e-6
    )
    np.testing.assert_allclose(
        recurrent_weight(raw, "inverse"), -1 / (np.array([4.0, 0.0, 2.25]) + INVERSE_EPS), rtol=1e-6
    )
    np.testing.assert_allclose(recurrent_weight(raw, "direct"), raw)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-30, 30), min_size=1, max_size=8), st.sampled_from(STABLE_PARAMETERISATIONS)
)
def test_stable_parameterisations_stay_in_left_half_plane(raw, parameterisation):
    lam = np.asarray(recurrent_weight(jnp.asarray(raw, jnp.float32), parameterisation))
    assert np.all(lam <= 0) and np.all(np.isfinite(lam))
    with jax.enable_x64(True):
        lam64 = np.asarray(recurrent_weight(jnp.asarray(raw, jnp.float64), parameterisation))
    assert np.all(lam64 < 0)


def test_direct_can_be_unstable_and_blows_up():
    params = CTRNN(jnp.array([0.5]), jnp.ones((1, 1)), jnp.zeros(1), jnp.ones((1, 1)))
    y = ctrnn_outputs(params, jnp.ones((60, 1)) * 0.01, activation="linear")
    assert abs(float(y[-1, 0])) > 1e6  # (1.5)^60 growth


def test_same_initial_weight_for_every_parameterisation():
    key = jax.random.key(3)
    lams = [
        recurrent_weight(init_ctrnn(key, 8, parameterisation=p).raw, p) for p in PARAMETERISATIONS
    ]
    for lam in lams[1:]:
        np.testing.assert_allclose(lam, lams[0], rtol=1e-5)
    assert np.all((np.asarray(lams[0]) <= -0.1) & (np.asarray(lams[0]) >= -1.0))


def test_bad_inputs_raise_named_errors():
    params = init_ctrnn(jax.random.key(0), 3, M=2)
    with pytest.raises(ValueError, match="u must have shape"):
        ctrnn_outputs(params, jnp.ones((10, 1)))
    with pytest.raises(ValueError, match="u contains non-finite"):
        ctrnn_outputs(params, jnp.full((10, 2), jnp.nan))
    with pytest.raises(ValueError, match="activation"):
        ctrnn_outputs(params, jnp.ones((10, 2)), activation="gelu")
    with pytest.raises(ValueError, match="parameterisation"):
        recurrent_weight(jnp.ones(3), "cayley")
    with pytest.raises(ValueError, match="weight must lie in"):
        raw_from_weight(jnp.array([-1.0, 0.2]), "exp")
    with pytest.raises(ValueError, match="weight must lie in"):
        raw_from_weight(jnp.array([-2.0 / INVERSE_EPS]), "inverse")
    with pytest.raises(ValueError, match="dt"):
        ctrnn_outputs(params, jnp.ones((10, 2)), dt=0.0)
    with pytest.raises(ValueError, match="N must be"):
        init_ctrnn(jax.random.key(0), 0)


def test_gradients_flow_through_every_parameterisation():
    x = jax.random.normal(jax.random.key(5), (20, 1))
    for p in PARAMETERISATIONS:
        params = init_ctrnn(jax.random.key(4), 4, parameterisation=p)
        g = jax.grad(lambda q, p=p: jnp.sum(ctrnn_outputs(q, x, parameterisation=p) ** 2))(params)
        assert all(np.all(np.isfinite(leaf)) for leaf in jax.tree.leaves(g))
        assert float(jnp.abs(g.raw).sum()) > 0


def test_activation_function_values():
    z = jnp.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(activation_function("linear")(z), z)
    np.testing.assert_allclose(activation_function("tanh")(z), np.tanh(z))
    np.testing.assert_allclose(activation_function("hardtanh")(z), [-1.0, -0.5, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(activation_function("relu")(z), [0.0, 0.0, 0.0, 0.5, 2.0])
    with pytest.raises(ValueError, match="activation"):
        activation_function("sigmoid")


@pytest.mark.parametrize(
    ("activation", "parameterisation"),
    [("tanh", "direct"), ("hardtanh", "exp"), ("relu", "softplus")],
)
def test_output_mse_equals_ctrnn_outputs(activation, parameterisation):
    """The in-scan MSE of output_mse is the MSE of ctrnn_outputs."""
    lam = -jnp.linspace(0.05, 0.5, 3)
    k = jax.random.split(jax.random.key(0), 3)
    params = CTRNN(
        raw=raw_from_weight(lam, parameterisation),
        B=jax.random.normal(k[0], (3, 1)),
        b=0.1 * jax.random.normal(k[1], (3,)),
        C=jax.random.normal(k[2], (1, 3)),
    )
    u = jax.random.normal(jax.random.key(5), (4, 20, 1))
    y = jax.random.normal(jax.random.key(6), (4, 20, 1))
    out = ctrnn_outputs(params, u, activation=activation, parameterisation=parameterisation, dt=0.5)
    expected = float(jnp.mean((out - y) ** 2))
    got = float(
        output_mse(params, u, y, activation=activation, parameterisation=parameterisation, dt=0.5)
    )
    assert got == pytest.approx(expected, rel=1e-5)
