"""The memory of stacked SSMs (Wang & Xue, NeurIPS 2023, Thm. 3.13, Figs 5-6, App. A, Table 1;
formulas lost in the text version, rebuilt from the words): the measures the exponential-memory
chapter reads, and the probes that produce the memories.

* **Thm. 3.13** (memory of stacked SSMs). For a stack of ``D`` layers
  ``h_k = Lam h_{k-1} + B z_k``, ``z'_k = sigma(C h_k + b)`` with ``b = 0``, ``sigma(0) = 0``,
  ``sigma`` Lipschitz with constant ``K_sigma`` and ``|Lam_ii| <= r_l < 1``, read by
  ``y_k = W z^D_k``, the Heaviside increments ``d^l_k = z^l_k - z^l_{k-1}`` (``z_{-1} = 0``) obey
  the induction of Props. 3.11-3.12::

      |d^0_k| = |x| [k = 0],
      ||d^l_k|| <= K_sigma ||C_l|| ||B_l|| sum_{j=0}^{k} r_l^j ||d^{l-1}_{k-j}||,
      m_k = |W d^D_k| / |x| <= ||W|| beta^D_k                  (:func:`stack_memory_bound`)

  (spectral norms). The bound ``beta^D_k`` is at most ``G binom(k + D - 1, D - 1) r^k`` with
  ``G = ||W|| prod_l K_sigma ||C_l|| ||B_l||`` and ``r = max_l r_l``: the theorem's
  ``c e^{-beta k}`` for every ``beta < -ln r``. :func:`bound_ratio` is ``max_k m_k / beta_k``,
  up to the round-off ``1e3 eps sum_j m_j`` of a difference of outputs.
* **Fig. 5** (exponential decay of a measured memory). A log-linear fit alone is no evidence:
  ``(1 + 0.1 k)^{-1.1}`` (:func:`power_law_memory`) fits ``[250, 500]`` with R^2 0.99.
  :func:`decay_ratio` reads the decay rate of the upper envelope ``max_{j >= k} m_j`` (an
  oscillating memory is read by its peaks) on a window, as a fraction of the rate theory gives
  it: for a stack the rate ``-ln r`` of its slowest layer, for a tanh RNN the rate ``-ln rho(J)``
  of the linearisation ``J = diag(1 - h*^2) W`` at the fixed point ``h*`` of the constant input
  (:func:`tanh_rnn_rate`). A finite window sees transients, the polynomial factor of
  near-degenerate eigenvalues and the envelope's staircase, which slow the apparent rate
  (0.72-1.19 over 24 random RNNs). Only the polynomial factor has a derived bound (``(D - 1)
  ln 2 / (k/2)`` on ``[k/2, k]``); the chapter's factor 0.5 was set from runs. A power law
  decays on such windows at under a tenth of the rate.
* **Fig. 6**: an S4-style layer, HiPPO-LegS discretised by the bilinear rule (:func:`bilinear`,
  :func:`lti_outputs`, :func:`s4_memory`); :func:`steps_to`, the steps until a memory falls
  below ``1e-6`` of its peak.
* **App. A**: the closed form (38) of two linear layers (:func:`two_layer_memory`,
  :func:`two_layer_discrete_memory`) and the probe of such a stack (:func:`two_layer_probe`).
* **Table 1**: one instance of each model's impulse memory (:func:`table1_memories`; the models
  are in :mod:`lrnn_core.wang_xue.baselines`).

The probes are the Heaviside and impulse memories (Wang, Li & Li's eq. (9), App. F;
:mod:`lrnn_core.core.memory`). Every probe runs in the caller's precision: the chapter calls them
inside ``jax.enable_x64(True)`` (memories are read over many decades). NumPy float64 elsewhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.hippo import legs_matrices
from lrnn_core.core.memory import (
    DecayFit,
    fit_decay,
    heaviside_memory,
    impulse_memory,
    upper_envelope,
)
from lrnn_core.core.stacked import StackedSSM
from lrnn_core.core.targets import TanhRNN, random_tanh_rnn, tanh_rnn_outputs
from lrnn_core.core.validate import (
    as_float64,
    check_finite,
    check_shape,
    check_type,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_xue.baselines import (
    TCN,
    Attention,
    attention_impulse_memory,
    attention_outputs,
    receptive_field,
    tcn_outputs,
)

#: Lipschitz constants of the activations of :mod:`lrnn_core.core.stacked`.
LIPSCHITZ = {"tanh": 1.0, "relu": 1.0, "hardtanh": 1.0, "sigmoid": 0.25, "identity": 1.0}
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


def _memory(name: str, m: ArrayLike) -> np.ndarray:
    m = as_float64(name, m)
    check_shape(name, m, (None,))
    check_finite(name, m)
    if m.size < 3 or np.any(m < 0):
        raise ValueError(f"{name} must be a non-negative 1-D memory of length >= 3")
    return m


def power_law_memory(
    k: Float[ArrayLike, " L"], *, a: float = 0.1, p: float = 1.1
) -> Float[np.ndarray, " L"]:
    """``(1 + a k)^{-p}``: a memory that decays as a power law, the negative control of every
    exponential-memory check (Wang, Li & Li's slow kernel)."""
    k = as_float64("k", k)
    check_finite("k", k)
    if np.any(k < 0):
        raise ValueError("k must be non-negative steps")
    return (1 + positive_number("a", a) * k) ** -positive_number("p", p)


def stack_memory_bound(model: StackedSSM, L: int) -> Float[np.ndarray, " L"]:
    """The Thm. 3.13 induction bound ``||W|| beta^D_k``, ``k = 0..L-1``, on the Heaviside memory of
    ``model`` (module docstring).

    Needs a stack whose zero input is a rest point: every bias zero and ``sigma(0) = 0`` (tanh,
    relu, hardtanh, identity), no residual connections.
    """
    check_type("model", model, StackedSSM)
    L = positive_int("L", L)
    beta = np.zeros(L)
    beta[0] = 1.0
    for i, layer in enumerate(model.layers):
        if layer.activation == "sigmoid" or layer.residual or np.any(np.asarray(layer.b[...])):
            raise ValueError(f"layer {i}: the bound needs sigma(0) = 0, zero biases, no residual")
        gain = LIPSCHITZ[layer.activation] * np.linalg.norm(np.asarray(layer.B[...], float), 2)
        if layer.mixing:
            gain *= np.linalg.norm(np.asarray(layer.C[...], float), 2)
        r = float(np.max(np.asarray(layer.eigenvalues(), float)))
        beta = gain * np.convolve(r ** np.arange(L), beta)[:L]
    if np.any(np.asarray(model.w[...]) != 0):
        raise ValueError("the bound needs a zero readout bias")
    return np.linalg.norm(np.asarray(model.W[...], float), 2) * beta


def bound_ratio(m: Float[ArrayLike, " L"], bound: Float[ArrayLike, " L"]) -> float:
    """Thm. 3.13, "for all": ``max_k (m_k - floor) / bound_k`` with ``floor = 1e3 eps sum_j m_j``
    (the round-off of a difference of outputs of size at most ``sum_j m_j``); at most 1 when the
    memory is below the bound at every step."""
    m, bound = _memory("m", m), as_float64("bound", bound)
    check_shape("bound", bound, m.shape)
    if np.any(~(bound > 0)):
        raise ValueError("bound must be positive at every step")
    floor = 1e3 * np.finfo(float).eps * float(m.sum())
    return float(np.max((m - floor) / bound))


def tanh_rnn_rate(
    W: Float[ArrayLike, "N N"], B: Float[ArrayLike, " N"], b: Float[ArrayLike, " N"], x: float = 1.0
) -> float:
    """``-ln rho(J)``, ``J = diag(1 - h*^2) W``, at the fixed point ``h* = tanh(W h* + B x + b)``
    (found by iteration from 0; ValueError if it does not converge): the asymptotic decay rate per
    step of the Heaviside memory of the RNN ``h_k = tanh(W h_{k-1} + B u_k + b)``."""
    W, B, b = as_float64("W", W), as_float64("B", B), as_float64("b", b)
    check_shape("W", W, (None, None))
    N = W.shape[0]
    check_shape("W", W, (N, N))
    check_shape("B", B, (N,))
    check_shape("b", b, (N,))
    for name, v in (("W", W), ("B", B), ("b", b)):
        check_finite(name, v)
    x = real_number("x", x)
    h = np.zeros(N)
    for _ in range(10_000):
        h, previous = np.tanh(W @ h + B * x + b), h
        if np.max(np.abs(h - previous)) < 1e-15:
            break
    else:
        raise ValueError("the RNN has no attracting fixed point under the constant input")
    radius = float(np.max(np.abs(np.linalg.eigvals((1 - h**2)[:, None] * W))))
    return -np.log(radius)


def decay_ratio(
    m: Float[ArrayLike, " L"], k: Float[ArrayLike, " L"], window: tuple[float, float], rate: float
) -> float:
    """Fig. 5: the decay rate of the log-linear fit of the upper envelope of ``m`` on ``window``,
    divided by ``rate`` (the rate theory gives the memory; module docstring)."""
    m, k = _memory("m", m), as_float64("k", k)
    check_shape("k", k, m.shape)
    return float(fit_decay(upper_envelope(m), k, tail=window).rate / positive_number("rate", rate))


def steps_to(m: Float[ArrayLike, " L"], level: float = 1e-6) -> int:
    """The first step after the peak with ``m`` below ``level * max(m)`` (``len(m)`` if none)."""
    m = as_float64("m", m)
    check_shape("m", m, (None,))
    level = positive_number("level", level)
    peak = int(np.argmax(m))
    below = m[peak:] < level * m.max()
    return peak + int(np.argmax(below)) if below.any() else len(m)


# App. A (eq. (38)): two scalar linear layers, ``dh1/dt = -a h1 + u``, ``dh2/dt = -b h2 + h1``,
# ``y = h2``. The impulse response (the memory function of eq. (9) for this linear map) is the
# convolution of ``e^{-at}`` and ``e^{-bt}``, ``rho(t) = (e^{-a t} - e^{-b t}) / (b - a)``, which
# tends to ``t e^{-a t}`` as ``b -> a``: the "t e^{-at}" that one layer cannot produce. Discrete
# time, ``h1_k = p h1_{k-1} + u_k``, ``h2_k = q h2_{k-1} + h1_k``:
# ``rho_k = sum_{j=0}^k p^j q^{k-j} = (p^{k+1} - q^{k+1}) / (p - q)`` (``(k+1) p^k`` when p = q).


def two_layer_memory(a: float, b: float, t: Float[ArrayLike, "*T"]) -> Float[np.ndarray, "*T"]:
    """``(e^{-a t} - e^{-b t}) / (b - a)``, and ``t e^{-a t}`` at ``b = a`` (App. A).

    Written as ``-e^{-a t} expm1(-(b - a) t) / (b - a)``, accurate for ``b`` near ``a``.
    """
    a, b = positive_number("a", a), positive_number("b", b)
    t = as_float64("t", t)
    check_finite("t", t)
    if a == b:
        return t * np.exp(-a * t)
    return -np.exp(-a * t) * np.expm1(-(b - a) * t) / (b - a)


def two_layer_discrete_memory(
    p: float, q: float, k: Float[ArrayLike, "*K"]
) -> Float[np.ndarray, "*K"]:
    """``sum_{j=0}^k p^j q^{k-j}``: the impulse response of two cascaded scalar recurrences with
    eigenvalues ``p`` and ``q`` in ``[0, 1)`` (App. A, discrete)."""
    p, q = real_number("p", p, low=0.0, high=1.0), real_number("q", q, low=0.0, high=1.0)
    k = as_float64("k", k)
    check_finite("k", k)
    if p == q:
        return (k + 1) * p**k
    return (p ** (k + 1) - q ** (k + 1)) / (p - q)


# Fig. 6, "a manually constructed S4" (its construction is not in the text). S4 (Gu, Goel & Ré,
# ICLR 2022, eqs. (1)-(3)) runs the continuous system ``x' = A x + B u``, ``y = C x`` with the
# HiPPO matrix ``A = -A_HiPPO`` at a *fixed* step ``dt``, discretised by the bilinear (Tustin) rule
#
#     Abar = (I - dt/2 A)^{-1} (I + dt/2 A),    Bbar = (I - dt/2 A)^{-1} dt B,
#     x_k = Abar x_{k-1} + Bbar u_k,            y_k = C x_k.
#
# (The time-varying LegS recurrence of HiPPO, whose ``1/t`` factor gives polynomial memory, is not
# what S4 runs.) The eigenvalues of ``Abar`` are ``(1 + dt mu/2) / (1 - dt mu/2)`` for the
# eigenvalues ``mu`` of ``A``, inside the unit disk when ``Re mu < 0``.


def bilinear(
    A: Float[ArrayLike, "N N"], B: Float[ArrayLike, " N"], dt: float
) -> tuple[Float[np.ndarray, "N N"], Float[np.ndarray, " N"]]:
    """``(Abar, Bbar)`` of the bilinear rule with step ``dt`` (S4, Gu et al. 2022, eq. (3))."""
    A, B = as_float64("A", A), as_float64("B", B)
    check_shape("A", A, (None, None))
    N = A.shape[0]
    check_shape("A", A, (N, N))
    check_shape("B", B, (N,))
    check_finite("A", A)
    check_finite("B", B)
    dt = positive_number("dt", dt)
    left = np.eye(N) - dt / 2 * A
    return np.linalg.solve(left, np.eye(N) + dt / 2 * A), np.linalg.solve(left, dt * B)


def lti_outputs(
    Abar: Float[ArrayLike, "N N"],
    Bbar: Float[ArrayLike, " N"],
    C: Float[ArrayLike, " N"],
    u: Float[ArrayLike, " L"],
) -> Float[np.ndarray, " L"]:
    """``y_k = C x_k``, ``x_k = Abar x_{k-1} + Bbar u_k``, ``x_{-1} = 0``, for a scalar input
    ``u`` (L,): a loop over time (a dense ``Abar`` has no diagonal scan)."""
    Abar, Bbar, C, u = (as_float64(n, v) for n, v in zip("ABCu", (Abar, Bbar, C, u), strict=True))
    N = Bbar.shape[0] if Bbar.ndim == 1 else -1
    check_shape("Bbar", Bbar, (None,))
    check_shape("Abar", Abar, (N, N))
    check_shape("C", C, (N,))
    check_shape("u", u, (None,))
    for name, v in (("Abar", Abar), ("Bbar", Bbar), ("C", C), ("u", u)):
        check_finite(name, v)
    x = np.zeros(N)
    y = np.empty(len(u))
    for k, u_k in enumerate(u):
        x = Abar @ x + Bbar * u_k
        y[k] = C @ x
    return y


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
    probed over ``L`` steps, with its :func:`stack_memory_bound`."""
    L = positive_int("L", L)
    out = []
    for i, seed in enumerate(seeds):
        depth = depths[i % len(depths)]
        model = random_stack(seed, N, depth, r_max=r_max)
        slow = model.slowest_rate()
        m, bound = heaviside_memory(_scalar(model), L), stack_memory_bound(model, L)
        out.append(StackMemory(depth, m, stack_window(slow, L), bound, slow))
    return out


class RNNMemory(NamedTuple):
    """A random tanh RNN's Heaviside memory ``m`` and its linearised rate ``-ln rho(J)``."""

    m: np.ndarray
    rate: float


def rnn_memories(keys: Sequence[jax.Array], L: int, *, N: int = 16) -> list[RNNMemory]:
    """One :func:`~lrnn_core.core.targets.random_tanh_rnn` of width ``N`` per key (PyTorch's
    default law), its Heaviside memory over ``L`` steps and
    :func:`tanh_rnn_rate` under the unit input."""
    memories = []
    for key in keys:
        p = random_tanh_rnn(key, N)
        m = heaviside_memory(partial(tanh_rnn_outputs, p), L)
        memories.append(RNNMemory(m, tanh_rnn_rate(p.W, p.B, p.b)))
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
    disc_err, cont_err = np.abs(m - exact).max() / exact.max(), np.abs(m - closed).max()
    return TwoLayerProbe(gap, t, m, closed, disc_err, cont_err)


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
        rnn=impulse_memory(partial(tanh_rnn_outputs, rnn), L),
        rnn_rate=tanh_rnn_rate(rnn.W, rnn.B, rnn.b, x=0.0),
        ssm=impulse_memory(_scalar(ssm), L),
        ssm_rate=ssm.slowest_rate(),
        ssm_window=stack_window(ssm.slowest_rate(), L),
        tcn=impulse_memory(lambda u: tcn_outputs(tcn, u), L),
        R=receptive_field(kernel_size, depth),
        attention=impulse_memory(lambda u: attention_outputs(attention, u), attn_L),
        attention_closed=attention_impulse_memory(attention, attn_L),
    )


def explorer_memories(
    seed: int,
    L: int,
    depths: Sequence[int],
    Ns: Sequence[int],
    activations: Sequence[str],
    *,
    r_max: float = 0.95,
) -> dict[tuple[int, int, str], tuple[np.ndarray, DecayFit, float]]:
    """``(depth, N, activation) -> (m, fit, slow)`` for the :func:`random_stack` drawn from
    ``seed``, for every combination: its Heaviside memory ``m``, the log-linear ``fit`` of its
    tail window and its slowest layer's rate ``slow``."""
    t = np.arange(L, dtype=float)
    out: dict[tuple[int, int, str], tuple[np.ndarray, DecayFit, float]] = {}
    for depth, N, activation in itertools.product(depths, Ns, activations):
        model = random_stack(seed, N, depth, activation=activation, r_max=r_max)
        m = heaviside_memory(_scalar(model), L)
        fit = fit_decay(m, t, tail=stack_window(model.slowest_rate(), L))
        out[depth, N, activation] = (m, fit, model.slowest_rate())
    return out
