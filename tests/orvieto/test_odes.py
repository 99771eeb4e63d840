"""The controlled ODE systems of Orvieto et al. (ICML 2024, App. E.3), checked against physics
(first integrals) and against SciPy's adaptive integrator."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lrnn_core.orvieto.odes import SYSTEMS, low_frequency_inputs, ode, solve, trajectories
from lrnn_core.orvieto.wavelets import wavelet_basis


def short(name: str, L: int = 256, dt_factor: float = 1.0):
    """The system ``name`` on a shorter horizon (and, optionally, a finer step)."""
    system = ode(name)
    return system._replace(L=L, dt=system.dt * dt_factor)


def test_paper_parameters_and_steps():
    assert {k: (ode(k).dt, ode(k).L) for k in SYSTEMS} == {
        "PT": (0.01, 2048),
        "LV": (0.01, 2048),
        "LZ": (0.002, 512),
    }
    assert ode("PT").z0 == (1.0, 0.0, 1.0, 0.0, 0.0)
    assert ode("LV").z0 == (1.0, 0.5)
    assert ode("LZ").z0 == (-0.89229143, 1.08417925, 2.34322702)
    with pytest.raises(ValueError, match="name must be one of"):
        ode("VdP")


def test_inputs_lie_in_the_span_of_16_coarse_wavelets_with_the_asked_rms():
    rng = np.random.default_rng(0)
    v = low_frequency_inputs(rng, 400, 2048, amplitude=0.05)
    basis = wavelet_basis(2048, 16, "db4", 7)
    residual = v - (v @ basis) @ basis.T
    assert np.abs(residual).max() < 1e-13
    # E[rms^2] = amplitude^2 exactly; 400 sequences of 16 chi^2 draws: 4 sd is ~9 % of it
    assert np.mean(v**2) == pytest.approx(0.05**2, rel=4 * np.sqrt(2 / (16 * 400)))
    with pytest.raises(ValueError, match="power of two"):
        low_frequency_inputs(rng, 2, 100, amplitude=0.1)
    with pytest.raises(ValueError, match="amplitude"):
        low_frequency_inputs(rng, 2, 2048, amplitude=-1.0)


def test_lotka_volterra_keeps_its_first_integral_without_input():
    """With v = 0, H = d z1 - c ln z1 + b z2 - a ln z2 is conserved by the exact flow."""
    system = ode("LV")
    z = trajectories(system, np.zeros(system.L))
    H = 0.7 * z[:, 0] - np.log(z[:, 0]) + 0.6 * z[:, 1] - np.log(z[:, 1])
    assert np.abs(H - H[0]).max() < 1e-8  # Dopri5 at dt = 0.01: local error ~ dt^5


def test_protein_transduction_conserves_z3_plus_z4_plus_z5():
    """d(z3 + z4 + z5)/dt = 0 for any input (the input enters dz1 only); the RK stages are
    linear combinations of the field, so the sum is kept to rounding."""
    system = ode("PT")
    v = low_frequency_inputs(np.random.default_rng(1), 3, system.L, amplitude=0.05)
    z = trajectories(system, v)
    np.testing.assert_allclose(z[..., 2] + z[..., 3] + z[..., 4], 1.0, atol=1e-13)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_against_scipy_and_fifth_order_convergence(name):
    """Against SciPy's adaptive DOP853 at tight tolerance; and the fixed-step solution converges
    at fifth order (Dopri5): successive differences |y_dt - y_dt/2| fall ~2^5 per halving
    (asserted > 2^4 to allow the pre-asymptotic regime; a fourth-order method would fail)."""
    rng = np.random.default_rng(2)
    v = low_frequency_inputs(rng, 1, 128, amplitude=0.05)[0]
    base = short(name, L=128)
    t = base.dt * np.arange(128)
    with jax.enable_x64(True):
        compiled = jax.jit(base.field)

        def field(time, z):
            return np.asarray(compiled(jnp.asarray(z), jnp.asarray(np.interp(time, t, v))))

        # One solve per step: the interpolated input has a kink at every sample, which an adaptive
        # solver crossing it would have to resolve by many rejected steps (17 s; this: 0.5 s).
        ref, z = [base.z0[0]], np.asarray(base.z0, float)
        for a, b in zip(t[:-1], t[1:], strict=True):
            z = solve_ivp(field, (a, b), z, method="DOP853", rtol=1e-10, atol=1e-12).y[:, -1]
            ref.append(z[0])  # its error, ~1e-10, is four orders below the bound asserted
    assert np.abs(solve(base, v) - ref).max() < 1e-6
    # At the paper's dt the step error is at rounding already; the order shows at 10 dt, with a
    # constant input (a varying one is interpolated linearly: an O(dt^2) change of the input)
    runs = []
    for halvings in range(3):  # 10 dt, 5 dt, 2.5 dt on the same horizon, read at 10 dt
        k = 2**halvings
        finer = short(name, L=12 * k + 1, dt_factor=10 / k)
        runs.append(solve(finer, np.full(finer.L, 0.05))[::k])
    d1, d2 = np.abs(runs[0] - runs[1]).max(), np.abs(runs[1] - runs[2]).max()
    assert d1 / d2 > 2**4, (d1, d2)


def test_blow_up_is_reported_as_non_finite_and_bad_input_raises():
    system = ode("LV")
    v = low_frequency_inputs(np.random.default_rng(3), 20, system.L, amplitude=1.0)
    y = solve(system, v)
    assert y.shape == (20, system.L)
    assert (~np.isfinite(y).all(axis=-1)).any()  # amplitude 1: some trajectories diverge
    with pytest.raises(ValueError, match="last axis of length L = 2048"):
        solve(system, np.zeros(100))
    with pytest.raises(ValueError, match="finite"):
        solve(system, np.full(system.L, np.nan))
    with pytest.raises(TypeError, match="ControlledODE"):
        solve("LV", np.zeros(system.L))
