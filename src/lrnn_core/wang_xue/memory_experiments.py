"""The probes of the exponential-memory chapter (Wang & Xue, NeurIPS 2023, Thm. 3.13, Figs 5-6,
App. A, Table 1): the Heaviside and impulse memories (Wang, Li & Li's eq. (9), App. F;
:mod:`lrnn_core.core.memory`) of random stacked SSMs and tanh RNNs, of a bilinear HiPPO-LegS
layer, of two scalar linear layers, and of one instance of each model of Table 1. The claim checks
they feed are in :mod:`lrnn_core.wang_xue.memory_checks`.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (memories are read over many decades).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import Array

from lrnn_core.core.hippo import legs_matrices
from lrnn_core.core.memory import DecayFit, fit_decay, heaviside_memory, impulse_memory
from lrnn_core.core.stacked import StackedSSM
from lrnn_core.core.targets import TanhRNN, random_tanh_rnn, tanh_rnn_outputs
from lrnn_core.core.validate import positive_int, positive_number
from lrnn_core.wang_xue.baselines import (
    TCN,
    Attention,
    attention_impulse_memory,
    attention_outputs,
    receptive_field,
    tcn_outputs,
)
from lrnn_core.wang_xue.claims import stack_memory_bound, tanh_rnn_rate
from lrnn_core.wang_xue.s4 import bilinear, lti_outputs
from lrnn_core.wang_xue.two_layer import two_layer_discrete_memory, two_layer_memory

__all__ = [
    "RNN_WINDOW",
    "ExplorerMemory",
    "RNNMemory",
    "S4Memory",
    "Sizes",
    "StackMemory",
    "Table1Memories",
    "TwoLayerProbe",
    "explorer_memories",
    "random_stack",
    "rnn_memories",
    "s4_memory",
    "stack_memories",
    "stack_window",
    "table1_memories",
    "two_layer_probe",
]

#: The tail window of a random tanh RNN's memory (it reaches round-off sooner than a stack's).
RNN_WINDOW = (5.0, 40.0)


class Sizes(NamedTuple):
    """The sizes of the exponential-memory chapter's probes at one scale (Figs. 5-6, Table 1)."""

    n_stacks: int  # Thm. 3.13 / Fig. 5: random stacks (depths 1-4 in turn)
    N: int  # ... their width (state size of each layer)
    n_rnn: int  # Fig. 5: random tanh RNNs
    L: int  # Fig. 5: probe length (steps) for stacks and RNNs
    s4_N: int  # Fig. 6: HiPPO state size N
    s4_L: int  # Fig. 6: probe length (steps)
    attn_L: int  # Table 1: probe length (steps) for attention


def stack_window(slow: float, L: int) -> tuple[float, float]:
    """``[k/2, k]`` with ``e^{-slow k} = 1e-10`` (capped at ``L - 1``): the tail of a memory that
    decays at ``slow`` per step, above round-off."""
    k = min(L - 1.0, np.log(1e10) / positive_number("slow", slow))
    return (k / 2, k)


def random_stack(
    seed: int, N: int, depth: int, *, activation: str = "tanh", r_max: float = 0.95
) -> StackedSSM:
    """A naive random :class:`~lrnn_core.core.stacked.StackedSSM` ``1 -> N -> 1`` (no
    residual, eigenvalues ``U(0, r_max)``, the library's default weights) in float64."""
    return StackedSSM(
        1, N, 1, depth=depth, activation=activation, r_min=0.0, r_max=r_max,
        param_dtype=jnp.float64, rngs=nnx.Rngs(seed),
    )  # fmt: skip


def _scalar(model: StackedSSM) -> Callable[[Array], Array]:
    """The scalar sequence map ``u (L,) -> y (L,)`` of a one-input, one-output stack."""
    return lambda u: model(u[:, None])[:, 0]


class StackMemory(NamedTuple):
    """A random stack's Heaviside memory ``m`` (Fig. 5), its Thm. 3.13 ``bound``, its slowest
    layer's rate ``slow = -ln max lam`` and the tail ``window`` of :func:`stack_window`."""

    depth: int
    m: np.ndarray
    window: tuple[float, float]
    bound: np.ndarray
    slow: float


def stack_memories(
    seeds: Sequence[int], N: int, L: int, *, depths: Sequence[int], r_max: float = 0.95
) -> list[StackMemory]:
    """One :func:`random_stack` (tanh) per seed, the ``i``-th of depth ``depths[i % len(depths)]``,
    probed over ``L`` steps, with its :func:`~lrnn_core.wang_xue.claims.stack_memory_bound`."""
    L = positive_int("L", L)
    out = []
    for i, seed in enumerate(seeds):
        depth = depths[i % len(depths)]
        model = random_stack(seed, N, depth, r_max=r_max)
        slow = model.slowest_rate()
        out.append(
            StackMemory(
                depth=depth,
                m=heaviside_memory(_scalar(model), L),
                window=stack_window(slow, L),
                bound=stack_memory_bound(model, L),
                slow=slow,
            )
        )
    return out


class RNNMemory(NamedTuple):
    """A random tanh RNN's Heaviside memory ``m`` and its linearised rate ``-ln rho(J)``."""

    m: np.ndarray
    rate: float


def _rnn(params: TanhRNN) -> Callable[[Array], Array]:
    return lambda u: tanh_rnn_outputs(params, u)


def rnn_memories(keys: Sequence[jax.Array], L: int, *, N: int = 16) -> list[RNNMemory]:
    """One :func:`~lrnn_core.core.targets.random_tanh_rnn` of width ``N`` per key (PyTorch's
    default law), its Heaviside memory over ``L`` steps and
    :func:`~lrnn_core.wang_xue.claims.tanh_rnn_rate` under the unit input."""
    memories = []
    for key in keys:
        p = random_tanh_rnn(key, N)
        memories.append(RNNMemory(heaviside_memory(_rnn(p), L), tanh_rnn_rate(p.W, p.B, p.b)))
    return memories


class S4Memory(NamedTuple):
    """Fig. 6: the Heaviside memory ``m`` on the steps ``t`` of a bilinear HiPPO-LegS layer of
    state size ``N`` at step ``dt``, and the theory rate ``-ln max |eig(Abar)|``."""

    N: int
    dt: float
    t: np.ndarray
    m: np.ndarray
    rate: float


def s4_memory(N: int, dt: float, L: int, rng: np.random.Generator) -> S4Memory:
    """``x_k = Abar x_{k-1} + Bbar u_k``, ``y_k = C x_k`` with ``(Abar, Bbar)`` the bilinear rule
    (S4, eq. (3)) of ``x' = -A x + B u``, ``(A, B)`` HiPPO-LegS, and ``C ~ N(0, 1/N)`` from
    ``rng``, probed over ``L`` steps."""
    A, B = legs_matrices(N)
    A_bar, B_bar = bilinear(-A, B, dt)
    C = rng.standard_normal(N) / np.sqrt(N)
    m = heaviside_memory(lambda u: lti_outputs(A_bar, B_bar, C, u), L)
    rate = -np.log(np.abs(np.linalg.eigvals(A_bar)).max())
    return S4Memory(N=N, dt=dt, t=np.arange(L, dtype=float), m=m, rate=rate)


class TwoLayerProbe(NamedTuple):
    """App. A at one eigenvalue ``gap = b - a``: the probed memory ``m`` on the times ``t``, the
    closed form (38) ``closed``, the relative error to the discrete closed form ``disc_err`` and
    the sup distance to (38) ``cont_err``."""

    gap: float
    t: np.ndarray
    m: np.ndarray
    closed: np.ndarray
    disc_err: float
    cont_err: float


def two_layer_probe(a: float, gap: float, dt: float, L: int) -> TwoLayerProbe:
    """The memory of a depth-2, width-1 identity :class:`~lrnn_core.core.stacked.StackedSSM` with
    eigenvalues ``p = e^{-a dt}``, ``q = e^{-b dt}`` (``b = a + gap``), input weights ``dt`` and
    readout 1, probed at step ``dt`` over ``L`` steps: ``dt sum_{j<=k} p^j q^{k-j}`` exactly, the
    rectangle rule for (38)."""
    b = a + gap
    stack = StackedSSM(
        1, 1, 1, depth=2, activation="identity", mixing=False,
        param_dtype=jnp.float64, rngs=nnx.Rngs(0),
    )  # fmt: skip
    for layer, rate in zip(stack.layers, (a, b), strict=True):
        layer.nu_log[...] = jnp.full(1, np.log(rate * dt))  # lam = exp(-rate dt)
        layer.B[...] = jnp.full((1, 1), dt)
    stack.W[...] = jnp.ones((1, 1))
    m = heaviside_memory(_scalar(stack), L, dt=dt)
    p, q = np.exp(-a * dt), np.exp(-b * dt)
    exact = dt * two_layer_discrete_memory(p, q, np.arange(L))
    t = dt * np.arange(L)
    closed = two_layer_memory(a, b, t)
    return TwoLayerProbe(
        gap=gap,
        t=t,
        m=m,
        closed=closed,
        disc_err=np.abs(m - exact).max() / exact.max(),
        cont_err=np.abs(m - closed).max(),
    )


class Table1Memories(NamedTuple):
    """Table 1: the impulse memories of a tanh RNN (``rnn``, with its rate ``rnn_rate`` about the
    zero-input fixed point), a stack (``ssm``, its slowest layer's rate and window), a TCN (``tcn``,
    receptive field ``R``) over ``L`` steps, and of attention (``attention``, its closed form
    ``attention_closed``) over ``attn_L`` steps."""

    rnn: np.ndarray
    rnn_rate: float
    ssm: np.ndarray
    ssm_rate: float
    ssm_window: tuple[float, float]
    tcn: np.ndarray
    R: int
    attention: np.ndarray
    attention_closed: np.ndarray


def table1_memories(
    rnn: TanhRNN, ssm: StackedSSM, tcn: TCN, attention: Attention, *, L: int, attn_L: int
) -> Table1Memories:
    """The impulse probe (Wang, Li & Li, App. F) on one instance of each model of Table 1."""
    kernel_size, depth = len(tcn.kernels[0]), len(tcn.kernels)
    return Table1Memories(
        rnn=impulse_memory(_rnn(rnn), L),
        rnn_rate=tanh_rnn_rate(rnn.W, rnn.B, rnn.b, x=0.0),
        ssm=impulse_memory(_scalar(ssm), L),
        ssm_rate=ssm.slowest_rate(),
        ssm_window=stack_window(ssm.slowest_rate(), L),
        tcn=impulse_memory(lambda u: tcn_outputs(tcn, u), L),
        R=receptive_field(kernel_size, depth),
        attention=impulse_memory(lambda u: attention_outputs(attention, u), attn_L),
        attention_closed=attention_impulse_memory(attention, attn_L),
    )


class ExplorerMemory(NamedTuple):
    """A random stack's Heaviside memory ``m``, the log-linear ``fit`` of its tail window and its
    slowest layer's rate ``slow``."""

    m: np.ndarray
    fit: DecayFit
    slow: float


def explorer_memories(
    seed: int,
    L: int,
    *,
    depths: Sequence[int],
    Ns: Sequence[int],
    activations: Sequence[str],
    r_max: float = 0.95,
) -> dict[tuple[int, int, str], ExplorerMemory]:
    """``(depth, N, activation) ->`` :class:`ExplorerMemory` of the :func:`random_stack` drawn
    from ``seed``, for every combination."""
    t = np.arange(L, dtype=float)
    out: dict[tuple[int, int, str], ExplorerMemory] = {}
    for depth in depths:
        for N in Ns:
            for activation in activations:
                model = random_stack(seed, N, depth, activation=activation, r_max=r_max)
                m = heaviside_memory(_scalar(model), L)
                fit = fit_decay(m, t, tail=stack_window(model.slowest_rate(), L))
                out[depth, N, activation] = ExplorerMemory(m, fit, model.slowest_rate())
    return out
