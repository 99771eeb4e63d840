"""The exponential-memory probes against explicit loops, closed forms and eigenvalues."""

import jax
import numpy as np
import pytest

from lrnn_core.core.memory import fit_decay
from lrnn_core.core.targets import random_tanh_rnn
from lrnn_core.wang_xue.baselines import random_attention, random_tcn
from lrnn_core.wang_xue.claims import stack_memory_bound, tanh_rnn_rate
from lrnn_core.wang_xue.memory_experiments import (
    RNN_WINDOW,
    explorer_memories,
    random_stack,
    rnn_memories,
    s4_memory,
    stack_memories,
    stack_window,
    table1_memories,
    two_layer_probe,
)

# One probe length, width N and radius for every stack (those of test_claims): each model
# structure is compiled once in the suite.
L, N = 300, 4


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
