import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.lru import LRU
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.vandermonde import vandermonde64
from lrnn_core.orvieto.reconstruction import (
    Reconstructor,
    last_state,
    pixel_mse,
    train_reconstruction,
    vandermonde_mse,
)


@pytest.fixture(scope="module")
def model():
    return Reconstructor(24, 50, D=(16,), rngs=nnx.Rngs(1))


def test_one_matmul_last_state_equals_the_scan_and_numpy(model):
    u = np.random.default_rng(0).uniform(size=(3, 50))
    with jax.enable_x64(True):
        lru = LRU(24, 1, param_dtype=jnp.float64, rngs=nnx.Rngs(1))
        fast = np.asarray(last_state(lru, jnp.asarray(u)))
        scanned = np.asarray(lru.states(jnp.asarray(u)[..., None]))[:, -1]  # linear_scan
        lam, b = np.asarray(lru.eigenvalues()), _b(lru)
    np.testing.assert_allclose(fast, scanned, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(fast, b * (u @ vandermonde64(lam, 50).T), rtol=1e-12)
    # float32 (the training precision) against the float64 scan
    f32 = np.asarray(last_state(model.lru, jnp.asarray(u, jnp.float32)))
    with jax.enable_x64(True):
        lam64 = jnp.asarray(model.lru.eigenvalues(), jnp.complex128)
        ref = np.asarray(linear_scan(lam64, jnp.asarray(u[..., None] * _b(model.lru))))
    assert np.abs(f32 - ref[:, -1]).max() < 1e-4 * np.abs(ref[:, -1]).max()


def _b(lru):
    return np.exp(np.asarray(lru.gamma_log[...], np.float64)) * (
        np.asarray(lru.B_re[:, 0], np.float64) + 1j * np.asarray(lru.B_im[:, 0], np.float64)
    )


def test_gradient_in_lambda_matches_finite_differences():
    u = jnp.asarray(np.random.default_rng(1).uniform(size=(2, 30)))
    with jax.enable_x64(True):
        lru = LRU(5, 1, param_dtype=jnp.float64, rngs=nnx.Rngs(2))
        u = jnp.asarray(u, jnp.float64)

        def f(m: LRU) -> jax.Array:
            return jnp.sum(jnp.abs(last_state(m, u)) ** 2)

        grad = np.asarray(nnx.grad(f)(lru)["nu_log"][...])
        nu0, h = np.asarray(lru.nu_log[...]), 1e-6
        for i in range(5):
            values = []
            for sign in (1, -1):
                lru.nu_log[...] = jnp.asarray(nu0 + sign * h * (np.arange(5) == i))
                values.append(float(f(lru)))
            lru.nu_log[...] = jnp.asarray(nu0)
            # central differences: rounding error ~ EPS |f| / h ~ 2e-10 |f|, truncation ~ h^2
            fd = (values[0] - values[1]) / (2 * h)
            assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-8 * abs(float(f(lru))))


def test_model_and_loss_are_the_decoder_of_the_last_state(model):
    u = jnp.asarray(np.random.default_rng(2).uniform(size=(4, 50)), jnp.float32)
    x = last_state(model.lru, u)
    z = jnp.concatenate([x.real, x.imag], axis=-1)
    w1, b1 = model.decoder.layers[0].kernel[...], model.decoder.layers[0].bias[...]
    w2, b2 = model.decoder.layers[1].kernel[...], model.decoder.layers[1].bias[...]
    expected = jnp.maximum(z @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(model(u), expected, rtol=1e-5, atol=1e-6)
    assert float(pixel_mse(model, u)) == pytest.approx(float(jnp.mean((expected - u) ** 2)), 1e-5)


def test_training_lowers_the_loss_and_reports_consistent_numbers():
    rng = np.random.default_rng(3)
    data = np.cumsum(rng.normal(size=(160, 20)), axis=1) / 5
    run = train_reconstruction(
        data[:128], data[128:], 16, epochs=30, batch_size=32, seeds=[0, 1], lr=1e-2
    )
    assert run.curve.shape == (2, 30 * 4)
    assert np.all(run.curve[:, -8:].mean(axis=1) < 0.5 * run.curve[:, :4].mean(axis=1))
    assert run.lam_init.shape == run.lam.shape == (2, 16)
    assert not np.allclose(run.lam_init, run.lam)  # Lambda is trained
    assert np.all(np.abs(run.lam) < 1)
    # the initial eigenvalues are those of the seed's first model (train()'s init key)
    init = Reconstructor(16, 20, rngs=nnx.Rngs(jax.random.split(jax.random.key(1))[0]))
    np.testing.assert_allclose(run.lam_init[1], np.asarray(init.lru.eigenvalues()), rtol=1e-6)
    assert run.examples.shape == (2, 4, 20)
    err = np.mean((run.examples - data[128:132]) ** 2, axis=(1, 2))
    assert np.all(err <= 8 * run.test_mse)  # 4 of the 32 test sequences


def test_vandermonde_mse_is_exact_for_n_at_least_l_and_matches_numpy():
    rng = np.random.default_rng(4)
    u = rng.uniform(size=(3, 40))
    lam = 0.99 * np.exp(2j * np.pi * np.arange(40) / 40)
    assert vandermonde_mse(lam, u).max() < 1e-20
    lam = 0.99 * np.exp(2j * np.pi * np.arange(10) / 10)
    V = np.vander(lam, 40)
    rec = (np.linalg.pinv(V) @ (V @ u.T)).real.T
    np.testing.assert_allclose(vandermonde_mse(lam, u), np.mean((rec - u) ** 2, axis=1))


def test_bad_input_raises(model):
    with pytest.raises(ValueError, match="M=1"):
        last_state(LRU(4, 2, rngs=nnx.Rngs(0)), jnp.ones((1, 5)))
    with pytest.raises(TypeError, match="real"):
        model(jnp.ones((1, 50), jnp.complex64))
    with pytest.raises(ValueError):
        model(jnp.ones((1, 49)))
    with pytest.raises(ValueError, match="batch_size"):
        train_reconstruction(np.ones((4, 5)), np.ones((2, 5)), 4, epochs=1, batch_size=8)
