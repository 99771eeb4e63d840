"""The experiments of the memory-functions chapter (Wang, Li & Li, ICLR 2024, Def. 3.1, Apps. F-I,
Figs 10-11): the probes on linear functionals and on a discretised linear CTRNN, the families of
target kernels, the random tanh RNNs, the LRU family and the paired Heaviside and impulse memories.
The claim checks they feed are in :mod:`lrnn_core.wang_li_li.memory_checks`.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (memories are read far below float32's resolution).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jaxtyping import Array, ArrayLike, Float

from lrnn_core.core.lru import LRU, LRUModel
from lrnn_core.core.memory import (
    DecayFit,
    fit_decay,
    heaviside_memory,
    impulse_memory,
    reversed_memory,
    tail_ratio,
)
from lrnn_core.core.targets import (
    TanhRNN,
    exp_memory,
    linear_functional,
    poly_memory,
    random_tanh_rnn,
    tanh_rnn_outputs,
)
from lrnn_core.core.validate import check_shape, positive_int, positive_number
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs, recurrent_weight
from lrnn_core.wang_li_li.memory_checks import memory_classes

__all__ = [
    "PROBES",
    "LRUMemory",
    "PairedMemory",
    "RNNSample",
    "Sizes",
    "authors_tail_ratios",
    "convolution_error",
    "decay_kernels",
    "euler_probe_errors",
    "kernel_functional",
    "linear_ctrnn_kernel",
    "linear_probe_errors",
    "local_exponents",
    "lru_family",
    "lru_family_memories",
    "paired_memory",
    "probe_family",
    "probe_tail_ratios",
    "random_rnn_sample",
    "reversed_probe_errors",
    "rnn_probe_pairs",
    "slowest_rate",
    "tanh_rnn_model",
]

Kernel = Callable[[ArrayLike], ArrayLike]
Model = Callable[[Array], ArrayLike]


class Sizes(NamedTuple):
    """The sizes of the memory-functions chapter's probes at one scale (lengths in steps)."""

    L_long: int  # the target kernels' figure: steps of dt = 0.1
    L_rnn: int  # random tanh RNNs (WLL Fig. 11): steps
    n_rnn: int  # random tanh RNNs: how many (the paper does not say)
    L_lru: int  # LRU family: steps
    n_lru_seeds: int  # LRU family: initialisations
    lstm_seeds: tuple[int, ...]  # substitute for WLL Fig. 5: LSTM training seeds
    lstm_steps: int  # ... and their Adam steps


#: The three probes of WLL Def. 3.1 (Heaviside), App. F (impulse) and App. G (reversed).
PROBES: dict[str, Callable[..., np.ndarray]] = {
    "Heaviside": heaviside_memory,
    "impulse": impulse_memory,
    "reversed": reversed_memory,
}


def kernel_functional(kernel: Kernel, dt: float) -> Model:
    """``u -> y_k = dt sum_{j<=k} rho(t_j) u_{k-j}`` with ``rho = kernel(t)``, ``t_j = j dt``: the
    rectangle-rule linear functional (WLL eq. 5), for inputs of any length."""
    dt = positive_number("dt", dt)
    return lambda u: linear_functional(kernel(dt * jnp.arange(u.shape[0])), u, dt)


def convolution_error(rho: Float[ArrayLike, " L"], u: Float[ArrayLike, "n L"], dt: float) -> float:
    """``max |y - y_ref| / max |y_ref|`` of :func:`lrnn_core.core.targets.linear_functional` (a
    zero-padded FFT) against ``y_ref = dt * numpy.convolve(rho, u)[:L]`` (WLL eq. 5 on the grid)."""
    rho, u = np.asarray(rho), np.asarray(u)
    check_shape("u", u, (None, rho.shape[0]))
    y = np.asarray(linear_functional(rho, u, dt))
    reference = np.stack([dt * np.convolve(rho, ui)[: u.shape[1]] for ui in u])
    return float(np.max(np.abs(y - reference)) / np.max(np.abs(reference)))


def linear_probe_errors(
    kernel: Kernel, L: int, *, dt: float, amplitude: float | Sequence[float] = 1.0
) -> dict[str, float]:
    """``max_k |m_k - |rho(t_k)||`` of the Heaviside and the impulse probe on the rectangle-rule
    functional of ``kernel`` (0 up to round-off: WLL eq. 6)."""
    rho = np.asarray(kernel(dt * np.arange(positive_int("L", L))))
    model = kernel_functional(kernel, dt)
    return {
        name: float(
            np.max(np.abs(PROBES[name](model, L, amplitude=amplitude, dt=dt) - np.abs(rho)))
        )
        for name in ("Heaviside", "impulse")
    }


def reversed_probe_errors(
    kernel: Kernel,
    L: int,
    *,
    dt: float,
    warmup: int,
    amplitude: float | Sequence[float] = 1.0,
) -> tuple[float, float]:
    """``(max |m - |rho(t_k) - rho(t_{k+W})||, max |m - |rho(t_k)||)`` of the reversed probe with
    warm-up ``W`` on the rectangle-rule functional (App. G): the first is round-off, the second the
    part of the past the finite warm-up cuts off."""
    L, W = positive_int("L", L), positive_int("warmup", warmup)
    rho = np.asarray(kernel(dt * np.arange(L + W)))
    m = reversed_memory(kernel_functional(kernel, dt), L, amplitude=amplitude, dt=dt, warmup=W)
    err = np.max(np.abs(m - np.abs(rho[:L] - rho[W : W + L])))
    gap = np.max(np.abs(m - np.abs(rho[:L])))
    return float(err), float(gap)


def linear_ctrnn_kernel(
    params: CTRNN, t: Float[ArrayLike, " L"], *, parameterisation: str = "direct"
) -> np.ndarray:
    """``rho(t) = sum_i C_i B_i e^{lam_i t}``: the exact memory of the linear CTRNN
    ``dh/dt = diag(lam) h + B u``, ``y = C h`` with one input and one output."""
    lam = np.asarray(recurrent_weight(params.raw, parameterisation))
    c_b = np.asarray(params.C)[0, :] * np.asarray(params.B)[:, 0]
    return (c_b * np.exp(np.outer(t, lam))).sum(-1)


def euler_probe_errors(
    params: CTRNN, dts: Sequence[float], T: float, *, warmup_factor: int = 10
) -> dict[str, list[float]]:
    """For each probe of :data:`PROBES` and each step ``dt``: ``max |m - |rho|| / max |rho|`` of
    the forward-Euler linear CTRNN over the horizon ``T`` against its exact kernel
    (:func:`linear_ctrnn_kernel`); the reversed probe warms up for ``warmup_factor`` horizons.
    Falls like ``dt``, the order of the Euler scheme."""
    T = positive_number("T", T)
    warmup_factor = positive_int("warmup_factor", warmup_factor)
    errors: dict[str, list[float]] = {name: [] for name in PROBES}
    for step in dts:
        n_steps = int(round(T / step))

        def model(u: Array, step: float = step) -> Array:
            return ctrnn_outputs(params, u[:, None], activation="linear", dt=step)[:, 0]

        exact = np.abs(linear_ctrnn_kernel(params, step * np.arange(n_steps)))
        for name, probe in PROBES.items():
            extra = {"warmup": warmup_factor * n_steps} if name == "reversed" else {}
            m = probe(model, n_steps, dt=step, **extra)
            errors[name].append(np.max(np.abs(m - exact)) / exact.max())
    return errors


def local_exponents(
    memory: Float[ArrayLike, " L"],
    t: Float[ArrayLike, " L"],
    windows: Sequence[tuple[float, float]],
) -> list[float]:
    """The exponent ``beta`` of ``m(t) ~ A e^{-beta t}`` fitted on each window ``(t_start, t_stop)``
    (:func:`lrnn_core.core.memory.fit_decay`): the same on every window for an exponential memory
    (WLL Def. 3.2), falling window after window for a power law."""
    return [fit_decay(memory, t, tail=window).rate for window in windows]


def decay_kernels(
    rates: Sequence[float], powers: Sequence[float]
) -> dict[tuple[str, float], Kernel]:
    """The kernels ``e^{-rate t}`` keyed ``("exp", rate)`` and ``(1 + 0.1 t)^{-power}`` keyed
    ``("pol", power)``: WLL's two target kernels (App. D, the authors' ``datagen.py``) with the
    rate and the power free."""
    kernels: dict[tuple[str, float], Kernel] = {
        ("exp", r): partial(exp_memory, rate=r) for r in rates
    }
    return kernels | {("pol", p): partial(poly_memory, power=p) for p in powers}


def probe_family(
    kernels: Mapping[Hashable, Kernel], L: int, *, dt: float
) -> tuple[dict[Hashable, np.ndarray], dict[tuple[Hashable, str], np.ndarray]]:
    """``rho(t_k)`` of each kernel, and its memory under each probe of :data:`PROBES` (keyed
    ``(kernel key, probe name)``) on its rectangle-rule functional, ``t_k = k dt``, ``k < L``."""
    t = dt * np.arange(positive_int("L", L))
    rho = {key: np.asarray(kernel(t)) for key, kernel in kernels.items()}
    memory = {
        (key, probe): PROBES[probe](kernel_functional(kernel, dt), L, dt=dt)
        for key, kernel in kernels.items()
        for probe in PROBES
    }
    return rho, memory


def tanh_rnn_model(params: TanhRNN) -> Model:
    """The tanh RNN as a causal map ``(L,) -> (L,)``, the form the probes take."""
    return lambda u: tanh_rnn_outputs(params, u)


class RNNSample(NamedTuple):
    """Random tanh RNNs (WLL Fig. 11): the gain of each, its weights, its Heaviside memory, the
    tail ratio of that memory, and the spectral radius and 2-norm of its recurrent weight."""

    gains: tuple[float, ...]
    params: list[TanhRNN]
    memory: list[np.ndarray]
    ratio: np.ndarray
    radius: np.ndarray
    norm2: np.ndarray

    @property
    def decaying(self) -> np.ndarray:
        """Memories whose tail ratio is below ``DECAYING`` (``memory_checks``)."""
        return memory_classes(self.ratio)[0]

    @property
    def persistent(self) -> np.ndarray:
        """Memories whose tail ratio is above ``NON_DECAYING`` (``memory_checks``)."""
        return memory_classes(self.ratio)[1]


def random_rnn_sample(
    key: Array, n: int, L: int, *, gains: Sequence[float] = (1.0, 2.0, 4.0, 8.0), N: int = 16
) -> RNNSample:
    """``n`` random tanh RNNs of width ``N`` (:func:`lrnn_core.core.targets.random_tanh_rnn`), the
    ``i``-th with the gain ``gains[i % len(gains)]``, and their Heaviside memories over ``L`` steps
    (amplitude 1) with the tail ratio over the last 10 %."""
    n, L = positive_int("n", n), positive_int("L", L)
    chosen = tuple(gains[i % len(gains)] for i in range(n))
    params = [
        random_tanh_rnn(k, N, scale=g)
        for k, g in zip(jax.random.split(key, n), chosen, strict=True)
    ]
    memory = [heaviside_memory(tanh_rnn_model(p), L) for p in params]
    weights = [np.asarray(p.W) for p in params]
    return RNNSample(
        gains=chosen,
        params=params,
        memory=memory,
        ratio=np.array([tail_ratio(m, tail=0.1) for m in memory]),
        radius=np.array([np.max(np.abs(np.linalg.eigvals(W))) for W in weights]),
        norm2=np.array([np.linalg.norm(W, 2) for W in weights]),
    )


def authors_tail_ratios(params: Sequence[TanhRNN], L: int, rng: np.random.Generator) -> np.ndarray:
    """The tail ratio (last 10 %) of each RNN's memory as the authors' code computes it
    (``src/memoryfunction.py`` of radarFudan/Curse-of-memory): the Heaviside memory with one
    amplitude ``a ~ N(0, 1)`` per RNN, drawn from ``rng``, and without subtracting the output under
    the zero input."""
    memory = [
        heaviside_memory(
            tanh_rnn_model(p),
            L,
            amplitude=float(rng.standard_normal()),
            subtract_zero_input=False,
        )
        for p in params
    ]
    return np.array([tail_ratio(m, tail=0.1) for m in memory])


def probe_tail_ratios(
    models: Sequence[Model], L: int, *, probe: Callable[..., np.ndarray] = impulse_memory
) -> np.ndarray:
    """The tail ratio (last 10 %) of each model's memory under ``probe`` over ``L`` steps."""
    return np.array([tail_ratio(probe(model, L)) for model in models])


class PairedMemory(NamedTuple):
    """The Heaviside and impulse memories of one model and their tail fits (WLL Fig. 10)."""

    fit_h: DecayFit
    fit_i: DecayFit
    m_h: np.ndarray
    m_i: np.ndarray


def paired_memory(model: Model, L: int, *, window: tuple[float, float]) -> PairedMemory:
    """Heaviside and impulse memories of ``model`` over ``L`` steps (``dt = 1``), each with its
    exponential tail fitted on the same ``window`` with the same round-off floor."""
    t = np.arange(positive_int("L", L), dtype=float)
    m_h, m_i = heaviside_memory(model, L), impulse_memory(model, L)
    return PairedMemory(fit_decay(m_h, t, tail=window), fit_decay(m_i, t, tail=window), m_h, m_i)


def rnn_probe_pairs(
    rnns: RNNSample, L: int, *, gain: float, window: tuple[float, float]
) -> tuple[list[PairedMemory], np.ndarray]:
    """:func:`paired_memory` of each RNN of the sample at ``gain`` (WLL Fig. 10), and the tail
    ratio of every RNN's impulse memory (:func:`probe_tail_ratios`, every gain), over ``L``
    steps."""
    chosen = [p for g, p in zip(rnns.gains, rnns.params, strict=True) if g == gain]
    if not chosen:
        raise ValueError(f"no RNN of the sample has the gain {gain}")
    pairs = [paired_memory(tanh_rnn_model(p), L, window=window) for p in chosen]
    return pairs, probe_tail_ratios([tanh_rnn_model(p) for p in rnns.params], L)


def slowest_rate(*lrus: LRU) -> float:
    """``-log max |lambda|`` over the LRU layers: the slowest decay their memory can have
    (``|x_k - x_{k-1}| <= |lambda|^k |gamma B u|`` under a Heaviside input)."""
    return min(-np.log(np.abs(np.asarray(layer.eigenvalues())).max()) for layer in lrus)


def lru_family(
    seed: int,
    *,
    N: int = 16,
    r_min: float = 0.5,
    r_max: float = 0.95,
    param_dtype: jnp.dtype = jnp.float64,
) -> list[tuple[str, Model, float]]:
    """An LRU, an LRU + MLP model and two LRU + MLP layers stacked, drawn from ``nnx.Rngs(seed)``
    on the ring ``r_min <= |lambda| <= r_max``, as ``(name, model (L,) -> (L,), slowest rate)``."""
    rngs = nnx.Rngs(seed)
    ring = dict(r_min=r_min, r_max=r_max, param_dtype=param_dtype)
    lru = LRU(N, 1, rngs=rngs, **ring)
    single = LRUModel(1, N, 1, D=(32,), rngs=rngs, **ring)
    bottom = LRUModel(1, N, 4, D=(32,), rngs=rngs, **ring)
    top = LRUModel(4, N, 1, D=(32,), rngs=rngs, **ring)
    return [
        ("LRU", lambda u: lru(u[:, None])[:, 0], slowest_rate(lru)),
        ("LRU + MLP", lambda u: single(u[:, None])[:, 0], slowest_rate(single.lru)),
        (
            "2 x (LRU + MLP)",
            lambda u: top(bottom(u[:, None]))[:, 0],
            slowest_rate(bottom.lru, top.lru),
        ),
    ]


class LRUMemory(NamedTuple):
    """One model of :func:`lru_family`: its seed, name, slowest rate and paired memories."""

    seed: int
    name: str
    slow: float
    fit_h: DecayFit
    fit_i: DecayFit
    m_h: np.ndarray
    m_i: np.ndarray


def lru_family_memories(seeds: Sequence[int], L: int) -> list[LRUMemory]:
    """:func:`paired_memory` of every model of :func:`lru_family` for each seed, fitted on the
    window ``(100, 0.8 L)`` of steps."""
    L = positive_int("L", L)
    return [
        LRUMemory(seed, name, slow, *paired_memory(model, L, window=(100.0, 0.8 * L)))
        for seed in seeds
        for name, model, slow in lru_family(seed)
    ]
