"""Memory-function probes (Wang, Li & Li, ICLR 2024, Def. 3.1, Apps. F-H) against known kernels."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from lrnn_core.core.lru import LRU
from lrnn_core.core.memory import (
    fit_decay,
    heaviside_memory,
    impulse_memory,
    reversed_memory,
    roundoff_floor,
    tail_ratio,
    upper_envelope,
)
from lrnn_core.core.targets import (
    exp_memory,
    linear_functional,
    poly_memory,
    random_tanh_rnn,
    tanh_rnn_outputs,
)

PROBES = (heaviside_memory, impulse_memory, reversed_memory)


@pytest.fixture(autouse=True)
def float64():
    with jax.enable_x64(True):
        yield


def functional(rho, dt):
    return lambda u: linear_functional(rho, u, dt)


@pytest.mark.parametrize("kernel", ["exp", "poly", "signed"])
@pytest.mark.parametrize("dt", [1.0, 0.05])
def test_heaviside_and_impulse_return_abs_rho_on_linear_functionals(kernel, dt):
    T = 200
    t = dt * np.arange(T)
    rho = {
        "exp": np.asarray(exp_memory(t, rate=0.5)),
        "poly": np.asarray(poly_memory(t)),
        "signed": np.cos(t) * np.exp(-0.1 * t),
    }[kernel]
    for probe in (heaviside_memory, impulse_memory):
        m = probe(functional(rho, dt), T, amplitude=[-2.0, 0.5], dt=dt)
        np.testing.assert_allclose(m, np.abs(rho), rtol=1e-9, atol=1e-12)


def test_reversed_memory_is_rho_minus_its_shift_by_the_warmup():
    T, W = 120, 80
    rho = np.asarray(poly_memory(np.arange(T + W), power=1.5, scale=0.2))
    m = reversed_memory(functional(rho, 1.0), T, warmup=W)
    np.testing.assert_allclose(m, np.abs(rho[:T] - rho[W : W + T]), rtol=1e-9, atol=1e-12)


def euler_leaky_integrator(a, dt):
    """``dh/dt = -a h + u``, ``y = h``, by explicit Euler: its memory function is ``exp(-a t)``."""

    def model(u):
        def step(h, u_k):
            h = h + dt * (-a * h + u_k)
            return h, h

        return jax.lax.scan(step, jnp.zeros((), u.dtype), u)[1]

    return model


@pytest.mark.parametrize("probe", PROBES)
def test_error_on_a_discretised_continuous_model_shrinks_with_dt(probe):
    a, horizon = 0.7, 5.0
    errors = []
    for dt in (0.1, 0.05, 0.025, 0.0125):
        T = int(round(horizon / dt))
        extra = {"warmup": 40 * T} if probe is reversed_memory else {}
        m = probe(euler_leaky_integrator(a, dt), T, dt=dt, **extra)
        errors.append(np.max(np.abs(m - np.exp(-a * dt * np.arange(T)))))
    errors = np.array(errors)
    assert np.all(np.diff(errors) < 0)
    # first order in dt (explicit Euler): halving dt halves the error
    np.testing.assert_allclose(errors[1:] / errors[:-1], 0.5, atol=0.05)
    assert errors[-1] < 0.02


def lru_model(seed, N=8):
    lru = LRU(N, 1, r_min=0.8, r_max=0.95, param_dtype=jnp.float64, rngs=nnx.Rngs(seed))
    return lru, (lambda u: lru(u[:, None])[:, 0])


def test_three_probes_agree_on_a_linear_model():
    T = 150
    lru, model = lru_model(0)
    h, i, r = (probe(model, T, amplitude=1.3) for probe in PROBES)
    np.testing.assert_allclose(h, i, rtol=1e-9, atol=1e-13)
    # the reversed probe differs by |rho_k - rho_{k+W}| vs |rho_k|: tiny for W = 400 at |lambda| <=
    # 0.95
    r = reversed_memory(model, T, amplitude=1.3, warmup=400)
    np.testing.assert_allclose(r, h, rtol=1e-6, atol=1e-10)


def test_lru_memory_is_its_impulse_response_and_decays_at_the_slowest_eigenvalue():
    T = 400
    lru, model = lru_model(1)
    lam = np.asarray(lru.eigenvalues())
    B = (np.asarray(lru.B_re) + 1j * np.asarray(lru.B_im))[:, 0] * np.exp(np.asarray(lru.gamma_log))
    C = (np.asarray(lru.C_re) + 1j * np.asarray(lru.C_im))[0]
    k = np.arange(T)
    rho = (C * B * lam[None, :] ** k[:, None]).sum(-1).real
    rho[0] += float(np.asarray(lru.D)[0])
    np.testing.assert_allclose(heaviside_memory(model, T), np.abs(rho), rtol=1e-8, atol=1e-13)


def test_decay_rate_recovers_a_known_exponent():
    t = np.linspace(0.0, 40.0, 401)
    fit = fit_decay(3.0 * np.exp(-0.37 * t), t, tail=0.5)
    assert fit.rate == pytest.approx(0.37, rel=1e-10)
    assert fit.log_amplitude == pytest.approx(np.log(3.0), rel=1e-10)
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)
    # an oscillating envelope, exp(-0.2 t) |cos t| + floor effects: the rate of the envelope within
    # 10%
    wiggly = np.exp(-0.2 * t) * (1.5 + np.cos(3 * t))
    assert fit_decay(wiggly, t, tail=(10.0, 40.0)).rate == pytest.approx(0.2, rel=0.1)


def test_decay_rate_of_the_probed_memory_is_minus_log_of_the_slowest_eigenvalue():
    lam = np.array([0.9, 0.6, -0.5])
    coef = np.array([0.3, 2.0, 1.0])
    # m_k ~ 0.3 * 0.9^k is a difference of outputs near 8.7, exact to ~2 eps * 8.7 = 4e-15: at
    # T = 200 the tail's smallest point (2e-10) is exact to 2e-5 and the fitted rate to ~1e-8
    # (at T = 300 the last points are mostly round-off and the rate moved by 5e-6 with the
    # compiler's optimisation level).
    T = 200

    def model(u):  # y_k = sum_i coef_i x_{k,i}, x_{k,i} = lam_i x_{k-1,i} + u_k
        def step(h, u_k):
            h = lam * h + u_k
            return h, h @ coef

        return jax.lax.scan(step, jnp.zeros(3), u)[1]

    m = heaviside_memory(model, T)
    assert fit_decay(m, np.arange(T), tail=0.5).rate == pytest.approx(-np.log(0.9), rel=1e-6)


def test_polynomial_memory_is_not_log_linear():
    t = np.arange(2000.0)
    early = fit_decay(np.asarray(poly_memory(t)), t, tail=(0.0, 200.0)).rate
    late = fit_decay(np.asarray(poly_memory(t)), t, tail=(1500.0, 2000.0)).rate
    assert late < early / 5  # the local exponent keeps falling: no exponential bound
    assert fit_decay(np.asarray(poly_memory(t)), t, tail=1.0).r2 < 0.95


def test_sup_over_amplitudes_on_a_nonlinear_model():
    p = random_tanh_rnn(jax.random.key(0), 16, scale=1.0)
    model = lambda u: tanh_rnn_outputs(p, u)  # noqa: E731
    T = 60
    each = [heaviside_memory(model, T, amplitude=a) for a in (0.1, 1.0, 3.0)]
    both = heaviside_memory(model, T, amplitude=[0.1, 1.0, 3.0])
    np.testing.assert_allclose(both, np.max(each, axis=0), rtol=1e-14)
    # nonlinear: the normalised response depends on the amplitude x
    assert not np.allclose(each[0], each[2], rtol=1e-2)


def test_probes_remove_the_free_response():
    """A model whose output drifts without input has zero memory."""
    T = 30
    drift = lambda u: jnp.exp(-0.1 * jnp.arange(u.shape[0])) + 0.0 * u  # noqa: E731
    for probe in PROBES:
        np.testing.assert_allclose(probe(drift, T), 0.0, atol=1e-15)


def test_without_subtraction_the_free_response_adds_to_the_memory():
    """The authors' definition (no zero-input subtraction): a drift e^{-0.1 k} plus a linear
    functional gives |rho_k + (e^{-0.1 k} - e^{-0.1 (k-1)})| for k >= 1, and |y_0| at k = 0."""
    T, a = 30, 2.0
    k = np.arange(T)
    rho = 0.5**k
    drifting = lambda u: jnp.exp(-0.1 * jnp.arange(u.shape[0])) + linear_functional(rho, u, 1.0)  # noqa: E731
    ours = heaviside_memory(drifting, T, amplitude=a)
    # FFT convolution: absolute round-off ~ eps * log2(2T) * max|y|, well below 1e-14
    np.testing.assert_allclose(ours, rho, rtol=1e-13, atol=1e-14)
    authors = heaviside_memory(drifting, T, amplitude=a, subtract_zero_input=False)
    drift = np.exp(-0.1 * k)
    expected = np.abs(a * rho + np.diff(drift, prepend=0.0)) / a
    np.testing.assert_allclose(authors, expected, rtol=1e-13, atol=1e-14)
    with pytest.raises(TypeError, match="subtract_zero_input must be a bool"):
        heaviside_memory(drifting, T, subtract_zero_input=1)


def test_tail_ratio_separates_decayed_from_persistent_memory():
    t = np.arange(200.0)
    assert tail_ratio(np.exp(-0.1 * t)) < 1e-7
    assert tail_ratio(0.5 + 0.4 * np.sin(t)) > 0.5
    with pytest.raises(ValueError, match="identically zero"):
        tail_ratio(np.zeros(5))


def test_probes_reject_bad_input():
    ok = functional(np.ones(10), 1.0)
    with pytest.raises(ValueError, match="model must map"):
        heaviside_memory(lambda u: u[:-1], 10)
    with pytest.raises(TypeError, match="model must be callable"):
        impulse_memory("model", 10)
    with pytest.raises(ValueError, match="nonzero"):
        heaviside_memory(ok, 10, amplitude=0.0)
    with pytest.raises(ValueError, match="dt"):
        impulse_memory(ok, 10, dt=-1.0)
    with pytest.raises(ValueError, match="L must be >= 1"):
        reversed_memory(ok, 0)
    with pytest.raises(ValueError, match="model output contains non-finite"):
        heaviside_memory(lambda u: u / 0.0, 10)
    with pytest.raises(ValueError, match="above floor"):
        fit_decay(np.zeros(10), np.arange(10.0))
    with pytest.raises(ValueError, match="same length"):
        fit_decay(np.ones(10), np.arange(9.0))


def test_upper_envelope_is_the_running_max_from_the_right():
    m = np.array([5.0, 1.0, 3.0, 0.0, 2.0, 0.5])
    np.testing.assert_array_equal(upper_envelope(m), [5.0, 3.0, 3.0, 2.0, 2.0, 0.5])
    # a monotone memory is its own envelope
    k = np.arange(50.0)
    np.testing.assert_array_equal(upper_envelope(np.exp(-0.2 * k)), np.exp(-0.2 * k))
    with pytest.raises(ValueError, match="memory"):
        upper_envelope(np.ones((2, 2)))


def test_roundoff_floor_uses_the_memory_dtype_and_is_fit_decays_default():
    m64 = np.exp(-np.arange(50.0))
    assert roundoff_floor(m64) == pytest.approx(1e3 * np.finfo(np.float64).eps)
    assert roundoff_floor(m64.astype(np.float32)) == pytest.approx(1e3 * np.finfo(np.float32).eps)
    assert roundoff_floor(np.array([0, 4, 2])) == pytest.approx(4e3 * np.finfo(float).eps)
    # the float32 floor (1.2e-4) leaves the points of exp(-t) above it from t <= 9 only
    t = np.arange(50.0)
    fit32 = fit_decay(m64.astype(np.float32), t, tail=(0.0, 49.0))
    assert fit32.rate == pytest.approx(1.0, rel=1e-4)
    with pytest.raises(ValueError, match="floor"):
        fit_decay(m64.astype(np.float32), t, tail=(10.0, 49.0))
