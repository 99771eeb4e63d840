"""LRU layer (Orvieto et al., 2023), MLP head and composed model, checked against NumPy."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from scipy import stats

from lrnn_core.core.lru import LRU, LRUModel, MLPHead

N, M, L = 6, 3, 12


def numpy_lru(layer: LRU, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hand-written LRU forward in float64: returns (states x, outputs y) for u of shape (L, H)."""
    nu, theta, gamma_log = (
        np.asarray(p[...], np.float64) for p in (layer.nu_log, layer.theta_log, layer.gamma_log)
    )
    lam = np.exp(-np.exp(nu) + 1j * np.exp(theta))
    B = np.asarray(layer.B_re[...], np.float64) + 1j * np.asarray(layer.B_im[...], np.float64)
    C = np.asarray(layer.C_re[...], np.float64) + 1j * np.asarray(layer.C_im[...], np.float64)
    D = np.asarray(layer.D[...], np.float64)
    x = np.zeros(lam.shape, complex)
    xs, ys = [], []
    for u_k in np.asarray(u, np.float64):
        x = lam * x + np.exp(gamma_log) * (B @ u_k)
        xs.append(x)
        ys.append((C @ x).real + D * u_k)
    return np.array(xs), np.array(ys)


@pytest.fixture
def layer():
    return LRU(N, M, r_min=0.5, r_max=0.95, rngs=nnx.Rngs(0))


@pytest.fixture
def u():
    return np.asarray(jax.random.normal(jax.random.key(1), (L, M)))


def test_forward_matches_numpy_recurrence(layer, u):
    x_ref, y_ref = numpy_lru(layer, u)
    np.testing.assert_allclose(layer.states(u), x_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(layer(u), y_ref, rtol=1e-4, atol=1e-5)


def test_gamma_multiplies_the_input(layer, u):
    """Regression test for the classic bug of scaling by gamma_log instead of exp(gamma_log)."""
    D_u = np.asarray(layer.D[...]) * u
    layer.gamma_log[...] = jnp.zeros(N)  # gamma = 1
    x_one, y_one = np.asarray(layer.states(u)), np.asarray(layer(u))
    gamma_log = np.log(np.linspace(0.1, 0.6, N)).astype(np.float32)
    layer.gamma_log[...] = jnp.asarray(gamma_log)
    # States scale channel-wise by gamma = exp(gamma_log), not by gamma_log.
    np.testing.assert_allclose(layer.states(u), np.exp(gamma_log) * x_one, rtol=1e-5, atol=1e-6)
    x_ref, y_ref = numpy_lru(layer, u)
    np.testing.assert_allclose(layer(u), y_ref, rtol=1e-4, atol=1e-5)
    # A common gamma scales the recurrent part of the output.
    layer.gamma_log[...] = jnp.full(N, math.log(0.25))
    np.testing.assert_allclose(
        np.asarray(layer(u)) - D_u, 0.25 * (y_one - D_u), rtol=1e-4, atol=1e-6
    )


def test_initial_gamma_normalises_the_state(layer):
    lam = np.asarray(layer.eigenvalues())
    np.testing.assert_allclose(
        np.exp(np.asarray(layer.gamma_log[...])), np.sqrt(1 - np.abs(lam) ** 2), rtol=1e-5
    )


def test_normalisation_keeps_state_variance_near_input_variance():
    """gamma = sqrt(1 - |lambda|^2): white noise through B u keeps E|x|^2 ~ E|B u|^2 (LRU §3.3)."""
    layer = LRU(32, 1, r_min=0.9, r_max=0.99, rngs=nnx.Rngs(2))
    layer.B_re[...] = jnp.ones((32, 1))
    layer.B_im[...] = jnp.zeros((32, 1))
    u = jax.random.normal(jax.random.key(3), (64, 1500, 1))
    x = np.asarray(layer.states(u))[:, 1000:, :]  # after 1000 >> 1 / (1 - |lambda|) steps
    power = np.mean(np.abs(x) ** 2, axis=(0, 1))
    np.testing.assert_allclose(power, 1.0, rtol=0.3)
    assert power.mean() == pytest.approx(1.0, rel=0.1)
    # Without the normalisation the power would be 1 / (1 - |lambda|^2), i.e. 5 to 50.
    assert np.all(1 / (1 - np.abs(np.asarray(layer.eigenvalues())) ** 2) > 5)


def test_eigenvalues_lie_in_the_requested_ring():
    r_min, r_max, max_phase = 0.4, 0.8, math.pi / 4
    layer = LRU(2000, 1, r_min=r_min, r_max=r_max, max_phase=max_phase, rngs=nnx.Rngs(4))
    lam = np.asarray(layer.eigenvalues())
    modulus, phase = np.abs(lam), np.angle(lam)
    assert modulus.min() >= r_min - 1e-6 and modulus.max() <= r_max + 1e-6
    assert phase.min() > 0 and phase.max() <= max_phase + 1e-6
    cdf = lambda r: np.clip((r**2 - r_min**2) / (r_max**2 - r_min**2), 0, 1)  # noqa: E731
    assert stats.kstest(modulus, cdf).pvalue > 1e-3


def test_eigenvalues_are_stable_up_to_the_unit_circle():
    lam = np.asarray(LRU(4096, 1, r_min=0.0, r_max=1.0, rngs=nnx.Rngs(5)).eigenvalues())
    assert np.abs(lam).max() < 1.0


def test_unstable_eigenvalues_are_rejected(layer, u):
    layer.nu_log[...] = (
        layer.nu_log[...].at[0].set(-200.0)
    )  # exp(-exp(-200)) rounds to |lambda| = 1
    with pytest.raises(ValueError, match=r"LRU eigenvalues must be stable .*max \|lambda\| = 1"):
        layer(u)


def test_batched_input_matches_single_sequences(layer):
    u = np.asarray(jax.random.normal(jax.random.key(6), (2, 3, L, M)))
    y = np.asarray(layer(u))
    for i, j in np.ndindex(2, 3):
        np.testing.assert_allclose(y[i, j], numpy_lru(layer, u[i, j])[1], rtol=1e-4, atol=1e-5)


def test_forward_under_jit_matches_eager(layer, u):
    np.testing.assert_allclose(nnx.jit(lambda m, v: m(v))(layer, u), layer(u), rtol=1e-5, atol=1e-5)


def test_gradients_are_finite(layer, u):
    grads = nnx.grad(lambda m: jnp.mean(m(u) ** 2))(layer)
    leaves = jax.tree.leaves(grads)
    assert len(leaves) == 8
    assert all(np.all(np.isfinite(np.asarray(g))) for g in leaves)
    assert np.abs(np.asarray(grads["gamma_log"][...])).max() > 0


def relu(z):
    return np.maximum(z, 0)


def numpy_head(head: MLPHead, x: np.ndarray) -> np.ndarray:
    z = np.concatenate([x.real, x.imag], axis=-1)
    for i, layer in enumerate(head.layers):
        z = z @ np.asarray(layer.kernel[...]) + np.asarray(layer.bias[...])
        if i < len(head.layers) - 1:
            z = relu(z)
    return z


@pytest.mark.parametrize("D", [(), (8,), (8, 5)])
def test_mlp_head_reads_real_and_imaginary_parts(D):
    head = MLPHead(4, 2, D=D, activation=nnx.relu, rngs=nnx.Rngs(7))
    assert len(head.layers) == len(D) + 1
    k1, k2 = jax.random.split(jax.random.key(8))
    x = np.asarray(jax.random.normal(k1, (5, 4)) + 1j * jax.random.normal(k2, (5, 4)))
    np.testing.assert_allclose(head(x), numpy_head(head, x), rtol=1e-5, atol=1e-5)
    # The imaginary part matters: dropping it changes the output.
    assert np.abs(np.asarray(head(x)) - np.asarray(head(x.real + 0j))).max() > 1e-3


@pytest.mark.parametrize("d_model", [None, 5])
def test_model_composes_encoder_lru_and_head(d_model):
    model = LRUModel(2, 6, 3, d_model=d_model, D=(7,), r_min=0.6, r_max=0.9, rngs=nnx.Rngs(9))
    assert model.M == 2 and model.lru.M == (2 if d_model is None else d_model)
    v = np.asarray(jax.random.normal(jax.random.key(10), (4, L, 2)))
    if d_model is None:
        assert model.encoder is None
        u = v
    else:
        u = v @ np.asarray(model.encoder.kernel[...]) + np.asarray(model.encoder.bias[...])
    expected = np.stack([numpy_head(model.head, numpy_lru(model.lru, u_i)[0]) for u_i in u])
    np.testing.assert_allclose(model(v), expected, rtol=1e-4, atol=1e-4)
    lam = np.abs(np.asarray(model.lru.eigenvalues()))
    assert lam.min() >= 0.6 - 1e-6 and lam.max() <= 0.9 + 1e-6


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda m: m.lru(np.zeros((L, M + 1))),
            ValueError,
            r"u must have shape \(any, 3\)",
        ),
        (lambda m: m.lru(np.zeros(M)), ValueError, r"u must have at least 2 dimensions"),
        (lambda m: m.lru(np.zeros((L, M), np.complex64)), TypeError, "u must be real"),
        (lambda m: m.lru(np.full((L, M), np.nan)), ValueError, "u contains non-finite"),
        (lambda m: m.lru("abc"), TypeError, "u must be a numeric array"),
        (lambda m: m(np.zeros((L, 2))), ValueError, r"v must have shape \(any, 1\)"),
        (lambda m: m(np.zeros(1)), ValueError, r"v must have at least 2 dimensions"),
        (lambda m: m.head(np.zeros((L, 4))), TypeError, "x must be complex"),
        (
            lambda m: m.head(np.zeros((L, 5), np.complex64)),
            ValueError,
            r"x must have shape \(any, 4\)",
        ),
    ],
)
def test_bad_inputs_raise(call, error, match):
    model = LRUModel(1, 4, 1, d_model=M, rngs=nnx.Rngs(0))
    with pytest.raises(error, match=match):
        call(model)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: LRU(0, 2, rngs=nnx.Rngs(0)), ValueError, "N must be >= 1"),
        (lambda: LRU(2, 2.5, rngs=nnx.Rngs(0)), TypeError, "M must be an int"),
        (
            lambda: LRU(2, 2, r_min=0.9, r_max=0.5, rngs=nnx.Rngs(0)),
            ValueError,
            "r_max must be >= 0.9",
        ),
        (lambda: LRU(2, 2, r_min=1.0, r_max=1.0, rngs=nnx.Rngs(0)), ValueError, "r_min < 1"),
        (
            lambda: MLPHead(2, 1, D=(0,), rngs=nnx.Rngs(0)),
            ValueError,
            "D must be >= 1",
        ),
        (lambda: LRUModel(0, 2, 1, rngs=nnx.Rngs(0)), ValueError, "M must be >= 1"),
    ],
)
def test_bad_construction_raises(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_initial_B_and_C_variances_match_the_lru_paper():
    """LRU paper (Orvieto et al., 2023, appendix A code): B = (N(0,1) + i N(0,1)) / sqrt(2 M),
    C = (N(0,1) + i N(0,1)) / sqrt(N). B's real and imaginary parts have the halved variance
    1 / (2 M); C's have variance 1 / N (not halved)."""
    n, m = 512, 256
    layer = LRU(n, m, rngs=nnx.Rngs(3))
    samples = n * m  # 131072 draws per part: relative standard error of a variance ~ 0.4 %
    for name, want in (
        ("B_re", 1 / (2 * m)),
        ("B_im", 1 / (2 * m)),
        ("C_re", 1 / n),
        ("C_im", 1 / n),
    ):
        x = np.asarray(getattr(layer, name)[...], np.float64)
        assert x.size == samples
        assert abs(x.mean()) < 5 * math.sqrt(want / samples), name
        np.testing.assert_allclose(x.var(), want, rtol=0.02, err_msg=name)
    assert layer.B_re[...].shape == (n, m) and layer.C_re[...].shape == (m, n)
