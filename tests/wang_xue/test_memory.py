"""The memory of stacked SSMs: the Thm. 3.13 bound, the decay ratio of Fig. 5 against a
power-law memory, the App. A closed forms against quadrature and an explicit sum, the bilinear
S4 layer against scalar closed forms and the scan, and the probes against explicit loops."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special
from flax import nnx
from scipy.integrate import quad
from scipy.linalg import expm

from lrnn_core.core.memory import fit_decay, heaviside_memory
from lrnn_core.core.scan import linear_scan
from lrnn_core.core.stacked import StackedSSM
from lrnn_core.core.targets import random_tanh_rnn
from lrnn_core.wang_xue.baselines import random_attention, random_tcn
from lrnn_core.wang_xue.memory import (
    RNN_WINDOW,
    bilinear,
    bound_ratio,
    decay_ratio,
    explorer_memories,
    lti_outputs,
    power_law_memory,
    random_stack,
    rnn_memories,
    s4_memory,
    stack_memories,
    stack_memory_bound,
    stack_window,
    steps_to,
    table1_memories,
    tanh_rnn_rate,
    two_layer_discrete_memory,
    two_layer_memory,
    two_layer_probe,
)

K = np.arange(500, dtype=float)
POWER = power_law_memory(K)
# One probe length, width N and radius for every stack: each model structure is compiled once
# in the suite.
L, N = 300, 4


def _stack(depth, seed=0, N=4):
    return StackedSSM(
        1, N, 1, depth=depth, r_min=0.0, r_max=0.9, param_dtype=jnp.float64,
        rngs=nnx.Rngs(seed),
    )  # fmt: skip


def test_power_law_values():
    np.testing.assert_allclose(power_law_memory([0.0, 10.0]), [1.0, 2.0**-1.1])
    with pytest.raises(ValueError, match="non-negative"):
        power_law_memory([-1.0])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_stack_memory_is_below_the_induction_bound_and_the_power_law_is_not(depth):
    with jax.enable_x64(True):
        model = _stack(depth, seed=depth)
        m = heaviside_memory(lambda u: model(u[:, None])[:, 0], 300)
        bound = stack_memory_bound(model, 300)
    assert 0 < bound_ratio(m, bound) <= 1
    assert bound_ratio(POWER[:300], bound) > 1


def test_bound_of_one_identity_layer_is_the_norm_product_times_r_to_the_k():
    with jax.enable_x64(True):
        model = StackedSSM(
            1, 1, 1, depth=1, activation="identity", mixing=False,
            param_dtype=jnp.float64, rngs=nnx.Rngs(0),
        )  # fmt: skip
        lam = float(model.layers[0].eigenvalues()[0])
        gain = abs(float(model.layers[0].B[0, 0]) * float(model.W[0, 0]))
        bound = stack_memory_bound(model, 20)
        m = heaviside_memory(lambda u: model(u[:, None])[:, 0], 20)
    np.testing.assert_allclose(bound, gain * lam ** np.arange(20), rtol=1e-12)
    np.testing.assert_allclose(m, bound, rtol=1e-9)  # one linear mode meets the bound


def test_binomial_envelope_is_the_d_fold_convolution():  # the module docstring's closed form
    k = np.arange(30)
    r = 0.8
    conv = r**k
    for _ in range(2):
        conv = np.convolve(conv, r**k)[:30]
    np.testing.assert_allclose(scipy.special.comb(k + 2, 2) * r**k, conv, rtol=1e-12)


def test_bound_refuses_what_the_theorem_does_not_cover():
    with jax.enable_x64(True):
        model = _stack(2)
        model.layers[0].b[...] = jnp.ones(4)
        with pytest.raises(ValueError, match="zero biases"):
            stack_memory_bound(model, 10)
    with pytest.raises(TypeError, match="StackedSSM"):
        stack_memory_bound("model", 10)
    with pytest.raises(ValueError, match="positive"):
        bound_ratio(POWER[:3], np.zeros(3))


def test_decay_ratio_of_exponentials_times_polynomials_and_of_the_power_law():
    window, rate = (250.0, 499.0), -np.log(0.97)
    assert decay_ratio(0.97**K, K, window, rate) == pytest.approx(1.0)
    assert decay_ratio((K + 1) ** 3 * 0.97**K, K, window, rate) >= 0.5
    assert decay_ratio(np.abs(np.cos(0.7 * K)) * 0.97**K + 1e-300, K, window, rate) >= 0.5
    assert fit_decay(POWER, K, tail=window).r2 > 0.99  # a log-linear fit alone accepts it
    assert decay_ratio(POWER, K, window, rate) < 0.2


def test_decay_ratio_and_rnn_rate():
    W = np.array([[0.5, 0.0], [0.0, 0.2]])
    rate = tanh_rnn_rate(W, np.zeros(2), np.zeros(2), x=0.0)  # fixed point 0: J = W
    assert rate == pytest.approx(-np.log(0.5))
    assert decay_ratio(0.5**K, K, (5.0, 40.0), rate) == pytest.approx(1.0)
    assert decay_ratio(POWER, K, (5.0, 40.0), rate) < 0.1
    with pytest.raises(ValueError, match="fixed point"):
        tanh_rnn_rate(np.array([[0.0, 3.0], [-3.0, 0.0]]), np.ones(2), np.zeros(2))


def test_steps_to_counts_from_the_peak():
    assert steps_to(0.5 ** np.arange(40.0)) == 20  # 2^-20 < 1e-6 < 2^-19
    assert steps_to(np.r_[0.1, 0.5 ** np.arange(40.0)]) == 21
    assert steps_to(np.ones(10)) == 10  # never below: the length


def test_bound_ratio_allows_only_the_round_off_of_a_difference():
    m = 0.9 ** np.arange(50.0)
    assert bound_ratio(m, m) < 1 and bound_ratio(m, 2 * m) < 0.5
    assert bound_ratio(m, m / 2) > 1.99
    with pytest.raises(ValueError, match="non-negative"):
        bound_ratio(-m, m)


@pytest.mark.parametrize("a, b", [(0.5, 2.0), (1.0, 1.0 + 1e-9), (0.3, 0.3)])
def test_continuous_memory_is_the_convolution_of_two_exponentials(a, b):
    t = np.array([0.0, 0.7, 3.0, 10.0])
    conv = [quad(lambda s, x=x: np.exp(-a * s) * np.exp(-b * (x - s)), 0, x)[0] for x in t]
    np.testing.assert_allclose(two_layer_memory(a, b, t), conv, rtol=1e-9, atol=1e-14)


def test_limit_is_t_exp():
    t = np.linspace(0, 20, 50)
    for delta in (1e-2, 1e-4):
        gap = np.abs(two_layer_memory(1.0, 1.0 + delta, t) - t * np.exp(-t))
        assert np.all(gap <= delta * t**2 * np.exp(-t) / 2 + 1e-15)  # Taylor remainder bound


@pytest.mark.parametrize("p, q", [(0.9, 0.5), (0.7, 0.7)])
def test_discrete_memory_is_the_explicit_sum(p, q):
    k = np.arange(30)
    want = [sum(p**j * q ** (n - j) for j in range(n + 1)) for n in k]
    np.testing.assert_allclose(two_layer_discrete_memory(p, q, k), want, rtol=1e-12)


def test_two_layer_bad_input_raises():
    with pytest.raises(ValueError, match="a must be"):
        two_layer_memory(-1.0, 1.0, [1.0])
    with pytest.raises(ValueError, match="q must be"):
        two_layer_discrete_memory(0.5, 1.5, [1.0])
    with pytest.raises(ValueError, match="non-finite"):
        two_layer_memory(1.0, 2.0, [np.nan])


def test_scalar_bilinear_closed_form():
    a, dt = 2.0, 0.1
    Abar, Bbar = bilinear([[-a]], [1.0], dt)
    np.testing.assert_allclose(Abar[0, 0], (1 - a * dt / 2) / (1 + a * dt / 2), rtol=1e-15)
    np.testing.assert_allclose(Bbar[0], dt / (1 + a * dt / 2), rtol=1e-15)


def test_bilinear_is_second_order_accurate():
    """Abar - expm(A dt) = O(dt^3) per step for a fixed matrix."""
    A = np.array([[-1.0, 0.0], [2.0, -3.0]])
    errors = [np.abs(bilinear(A, [1.0, 1.0], dt)[0] - expm(A * dt)).max() for dt in (1e-2, 5e-3)]
    assert 6 < errors[0] / errors[1] < 10  # 2^3 = 8


def test_diagonal_lti_matches_linear_scan():
    with jax.enable_x64(True):
        lam, b, c = np.array([0.9, -0.5, 0.3]), np.array([1.0, 2.0, -1.0]), np.array([0.5, 1, 2])
        u = np.random.default_rng(0).normal(size=20)
        want = linear_scan(lam, u[:, None] * b) @ c
        np.testing.assert_allclose(lti_outputs(np.diag(lam), b, c, u), want, rtol=1e-12)


def test_bilinear_bad_input_raises():
    with pytest.raises(ValueError, match="A must have shape"):
        bilinear(np.zeros((2, 3)), [1.0, 1.0], 0.1)
    with pytest.raises(ValueError, match="dt must be"):
        bilinear(np.eye(2), [1.0, 1.0], -0.1)
    with pytest.raises(ValueError, match="C must have shape"):
        lti_outputs(np.eye(2), [1.0, 1.0], [1.0], [1.0, 2.0])


def _numpy_rnn_memory(p, L):
    """|y_k - y_{k-1}| of x_k = tanh(W x_{k-1} + B + b), y = C x + d, minus the zero input."""
    W, B, b, C = (np.asarray(v, float) for v in (p.W, p.B, p.b, p.C))
    x, x0, y = np.zeros(len(B)), np.zeros(len(B)), []
    for _ in range(L):
        x, x0 = np.tanh(W @ x + B + b), np.tanh(W @ x0 + b)
        y.append(C @ (x - x0))
    return np.abs(np.diff(y, prepend=0.0))


def test_stack_window_is_the_half_decade_above_1e_minus_10_capped_at_T():
    slow = np.log(1e10) / 100
    assert stack_window(slow, 500) == pytest.approx((50.0, 100.0))
    assert stack_window(1e-3, 500) == (249.5, 499.0)
    with pytest.raises(ValueError, match="slow"):
        stack_window(0.0, 500)


def test_stack_memories_cycle_depths_and_carry_each_stacks_bound_and_rate():
    with jax.enable_x64(True):
        got = stack_memories([3, 4, 5], N, L, depths=(1, 2), r_max=0.9)
        model = random_stack(4, N, 2, r_max=0.9)
        lam = max(float(np.max(np.asarray(layer.eigenvalues()))) for layer in model.layers)
        bound = stack_memory_bound(model, L)
    assert [s.depth for s in got] == [1, 2, 1]
    assert got[1].slow == pytest.approx(-np.log(lam), rel=1e-12)
    np.testing.assert_allclose(got[1].bound, bound, rtol=1e-12)
    assert got[1].window == stack_window(got[1].slow, L)
    assert np.all(got[1].m <= got[1].bound * (1 + 1e-9))  # Thm. 3.13 on the probe
    assert got[1].m[0] > 0


def test_rnn_memories_match_a_numpy_loop_and_the_linearised_rate():
    key = jax.random.key(7)
    with jax.enable_x64(True):
        (got,) = rnn_memories([key], L, N=4)
        p = random_tanh_rnn(key, 4)
    np.testing.assert_allclose(got.m, _numpy_rnn_memory(p, L), rtol=1e-9, atol=1e-15)
    assert got.rate == tanh_rnn_rate(p.W, p.B, p.b)
    assert RNN_WINDOW == (5.0, 40.0)


def test_s4_memory_rate_is_the_first_bilinear_eigenvalue_and_m_is_the_step_response():
    N, dt, L = 3, 0.1, 40
    got = s4_memory(N, dt, L, np.random.default_rng(5))
    assert got.rate == pytest.approx(-np.log((1 - dt / 2) / (1 + dt / 2)), rel=1e-12)
    np.testing.assert_array_equal(got.t, np.arange(L, dtype=float))
    # the step response of the bilinear system, written out: lower-triangular LegS A
    q = np.sqrt(2 * np.arange(N) + 1.0)
    A = -(np.tril(np.outer(q, q), -1) + np.diag(np.arange(1.0, N + 1)))
    left = np.linalg.inv(np.eye(N) - dt / 2 * A)
    A_bar, B_bar = left @ (np.eye(N) + dt / 2 * A), left @ (dt * q)
    C = np.random.default_rng(5).standard_normal(N) / np.sqrt(N)
    x, y = np.zeros(N), []
    for _ in range(L):
        x = A_bar @ x + B_bar
        y.append(C @ x)
    np.testing.assert_allclose(got.m, np.abs(np.diff(y, prepend=0.0)), rtol=1e-10)


@pytest.mark.parametrize("gap", [0.5, 0.0])
def test_two_layer_probe_is_the_discrete_sum_and_within_dt_of_38(gap):
    a, dt, L = 0.5, 0.1, 60
    with jax.enable_x64(True):
        got = two_layer_probe(a, gap, dt, L)
    p, q = np.exp(-a * dt), np.exp(-(a + gap) * dt)
    k = np.arange(L)
    expected = dt * np.array([sum(p**j * q ** (n - j) for j in range(n + 1)) for n in k])
    np.testing.assert_allclose(got.m, expected, rtol=1e-10)
    assert got.gap == gap and got.disc_err < 1e-10
    np.testing.assert_allclose(got.t, dt * k)
    assert got.closed[0] == 0.0 and got.cont_err == pytest.approx(dt, rel=1e-9)  # at t = 0


def test_table1_memories_tcn_support_attention_closed_form_and_rates():
    with jax.enable_x64(True):
        rnn = random_tanh_rnn(jax.random.key(1), 4)
        ssm = random_stack(2, N, 2, r_max=0.9)
        tcn = random_tcn(np.random.default_rng(3), channels=2, depth=2)
        attention = random_attention(np.random.default_rng(4), d=3)
        probes = table1_memories(rnn, ssm, tcn, attention, L=L, attn_L=20)
    assert probes.R == 4
    assert np.all(probes.tcn[4:] == 0) and probes.tcn[3] > 0
    np.testing.assert_allclose(probes.attention, probes.attention_closed, rtol=1e-9)
    assert probes.rnn_rate == tanh_rnn_rate(rnn.W, rnn.B, rnn.b, x=0.0)
    assert probes.ssm_window == stack_window(probes.ssm_rate, L)
    assert probes.rnn.shape == probes.ssm.shape == (L,) and probes.attention.shape == (20,)


def test_explorer_memories_key_every_combination_with_its_tail_fit():
    with jax.enable_x64(True):
        got = explorer_memories(
            0, L, depths=(1,), Ns=(N,), activations=("tanh", "identity"), r_max=0.9
        )
    assert set(got) == {(1, N, "tanh"), (1, N, "identity")}
    m, fit, slow = got[1, N, "identity"]
    t = np.arange(L, dtype=float)
    assert fit == fit_decay(m, t, tail=stack_window(slow, L))
    assert fit.rate == pytest.approx(slow, rel=0.1)  # a linear layer's tail: its slowest mode
