"""Memory functions (Wang, Li & Li, ICLR 2024, Def. 3.1-3.2, Apps. B, F-I, Figs 5, 10, 11): the
probes on linear functionals and on a discretised linear CTRNN, the families of target kernels,
the random tanh RNNs, the LRU family, the paired Heaviside and impulse memories, and the
statistics the memory-functions chapter decides its claims with (the rules are on its page).

* :func:`memory_class`: the classification of a memory ``m`` by its tail ratio
  ``max(m over the last 10 %) / max(m)`` (:func:`lrnn_core.core.memory.tail_ratio`): decaying
  below ``1e-6``, non-decaying above ``1e-2``, unclassified between (Def. 3.2: a decaying memory
  tends to 0); :func:`memory_classes` classifies many tail ratios at once, :func:`same_class`
  compares two such classifications.
* :func:`first_order`: errors that halve with each halving of ``dt`` (the Euler scheme's order,
  on which the three probes of a discretised continuous-time model converge).
* :func:`bilinear_model`: ``y_k = u_k sum_{j<=k} u_j``, a causal map whose Heaviside memory
  ``|z_k - z_{k-1}| = 1`` never decays while its impulse memory ``|z_k| = 0`` (k >= 1) does: the
  object on which the two probes of Fig. 10 (App. H) disagree; :func:`probe_classes` and
  :func:`linear_probe_gap` compare the two probes.
* :func:`symmetric_rnn`: a tanh RNN with a symmetric recurrent weight whose eigenvalues are at
  least ``-1/2``, whose memories all decay (a Lyapunov function), whatever its spectral radius:
  the negative control of Fig. 11; :func:`rnn_sample` probes any list of tanh RNNs.
* :func:`cached_model`: whether a model or data set of Figs 5-6 (IMDB, a fine-tuned BERT) is on
  this machine, in the Hugging Face cache, so that a query could run offline.

Every function runs in the caller's precision: the chapter calls them inside
``jax.enable_x64(True)`` (memories are read far below float32's resolution).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import partial
from pathlib import Path
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
    roundoff_floor,
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
from lrnn_core.core.validate import (
    check_choice,
    check_shape,
    check_text,
    check_type,
    positive_int,
    positive_number,
    real_number,
)
from lrnn_core.wang_li_li.ctrnn import CTRNN, ctrnn_outputs
from lrnn_core.wang_li_li.fitting import linear_rnn_kernel

Kernel = Callable[[ArrayLike], ArrayLike]
Model = Callable[[Array], ArrayLike]

#: Tail-ratio thresholds: decaying below, non-decaying above (the chapter's classification).
DECAYING, NON_DECAYING = 1e-6, 1e-2


def memory_class(memory: Float[ArrayLike, " L"]) -> str:
    """``"decaying"``, ``"non-decaying"`` or ``"unclassified"`` by the tail ratio over the last
    10 % of the horizon (module docstring)."""
    decaying, persistent = memory_classes(tail_ratio(memory, tail=0.1))
    return "decaying" if decaying else "non-decaying" if persistent else "unclassified"


def memory_classes(ratio: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The masks ``(ratio < DECAYING, ratio > NON_DECAYING)`` of tail ratios: decaying and
    non-decaying memories (module docstring; neither: unclassified)."""
    ratio = np.asarray(ratio, np.float64)
    return ratio < DECAYING, ratio > NON_DECAYING


def same_class(ratio_a: ArrayLike, ratio_b: ArrayLike) -> np.ndarray:
    """Where two memories of each model (tail ratios ``ratio_a``, ``ratio_b``) fall in the same
    class of :func:`memory_classes`."""
    (dec_a, per_a), (dec_b, per_b) = memory_classes(ratio_a), memory_classes(ratio_b)
    check_shape("ratio_b", dec_b, dec_a.shape)
    return (dec_a == dec_b) & (per_a == per_b)


def first_order(errors: Sequence[float], *, tol: float = 0.1) -> bool:
    """Errors at step sizes halved one after another fall first order in ``dt``: each is smaller
    than the one before, and each ratio of successive errors lies within ``tol`` of 1/2."""
    errors = np.asarray(errors, np.float64)
    if errors.ndim != 1 or errors.size < 2:
        raise ValueError(f"errors must hold at least two step sizes, got shape {errors.shape}")
    ratios = errors[1:] / errors[:-1]
    return bool(np.all(np.diff(errors) < 0) and np.all(np.abs(ratios - 0.5) < tol))


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


def euler_probe_errors(
    params: CTRNN, dts: Sequence[float], T: float, *, warmup_factor: int = 10
) -> dict[str, list[float]]:
    """For each probe of :data:`PROBES` and each step ``dt``: ``max |m - |rho|| / max |rho|`` of
    the forward-Euler linear CTRNN over the horizon ``T`` against its exact kernel
    (:func:`lrnn_core.wang_li_li.fitting.linear_rnn_kernel`); the reversed probe warms up for
    ``warmup_factor`` horizons. Falls like ``dt``, the order of the Euler scheme."""
    T = positive_number("T", T)
    warmup_factor = positive_int("warmup_factor", warmup_factor)
    errors: dict[str, list[float]] = {name: [] for name in PROBES}
    for step in dts:
        n_steps = int(round(T / step))

        def model(u: Array, step: float = step) -> Array:
            return ctrnn_outputs(params, u[:, None], activation="linear", dt=step)[:, 0]

        exact = np.abs(np.asarray(linear_rnn_kernel(params, step * np.arange(n_steps))))
        for name, probe in PROBES.items():
            extra = {"warmup": warmup_factor * n_steps} if name == "reversed" else {}
            m = probe(model, n_steps, dt=step, **extra)
            errors[name].append(np.max(np.abs(m - exact)) / exact.max())
    return errors


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
        """Memories whose tail ratio is below ``DECAYING`` (:data:`DECAYING`)."""
        return memory_classes(self.ratio)[0]

    @property
    def persistent(self) -> np.ndarray:
        """Memories whose tail ratio is above ``NON_DECAYING`` (:data:`NON_DECAYING`)."""
        return memory_classes(self.ratio)[1]


def rnn_sample(params: Sequence[TanhRNN], gains: Sequence[float], L: int) -> RNNSample:
    """The :class:`RNNSample` of given tanh RNNs (their gains recorded as given): the Heaviside
    memory of each over ``L`` steps (amplitude 1), its tail ratio over the last 10 %, and the
    spectral radius and 2-norm of each recurrent weight."""
    L = positive_int("L", L)
    params = [check_type("params[i]", p, TanhRNN) for p in params]
    gains = tuple(float(g) for g in gains)
    check_shape("gains", np.asarray(gains), (len(params),))
    memory = [heaviside_memory(tanh_rnn_model(p), L) for p in params]
    weights = [np.asarray(p.W) for p in params]
    return RNNSample(
        gains=gains,
        params=params,
        memory=memory,
        ratio=np.array([tail_ratio(m, tail=0.1) for m in memory]),
        radius=np.array([np.max(np.abs(np.linalg.eigvals(W))) for W in weights]),
        norm2=np.array([np.linalg.norm(W, 2) for W in weights]),
    )


def random_rnn_sample(
    key: Array, n: int, L: int, *, gains: Sequence[float] = (1.0, 2.0, 4.0, 8.0), N: int = 16
) -> RNNSample:
    """``n`` random tanh RNNs of width ``N`` (:func:`lrnn_core.core.targets.random_tanh_rnn`), the
    ``i``-th with the gain ``gains[i % len(gains)]``, and their :func:`rnn_sample`."""
    n, L = positive_int("n", n), positive_int("L", L)
    chosen = tuple(gains[i % len(gains)] for i in range(n))
    params = [
        random_tanh_rnn(k, N, scale=g)
        for k, g in zip(jax.random.split(key, n), chosen, strict=True)
    ]
    return rnn_sample(params, chosen, L)


def symmetric_rnn(params: TanhRNN, *, floor: float = -0.5) -> TanhRNN:
    """The tanh RNN with ``W`` replaced by ``S = (W + W^T) / sqrt 2`` (the off-diagonal entries
    keep their variance), whose eigenvalues below ``floor`` are raised to ``floor``; the other
    weights unchanged.

    With ``floor > -1`` the map ``x -> tanh(S x + I)`` has, for every constant ``I``, the Lyapunov
    function ``E(x) = -x^T S x / 2 - I^T x + sum_i G(x_i)``, ``G' = artanh`` (Marcus & Westervelt,
    Phys. Rev. A 40, 501, 1989): ``E`` falls by at least ``(1 + floor) |x' - x|^2 / 2`` per step,
    so the steps are square-summable and under a Heaviside input (and the zero input) the state
    settles; every memory decays, whatever the spectral radius of ``S``."""
    check_type("params", params, TanhRNN)
    floor = real_number("floor", floor, low=-1.0)
    if not floor > -1.0:
        raise ValueError("floor must be above -1 (the Lyapunov function needs S + I > 0)")
    W = np.asarray(params.W, np.float64)
    check_shape("params.W", W, (W.shape[0], W.shape[0]))
    lam, V = np.linalg.eigh((W + W.T) / np.sqrt(2.0))
    S = (V * np.maximum(lam, floor)) @ V.T
    return params._replace(W=jnp.asarray((S + S.T) / 2, dtype=jnp.asarray(params.W).dtype))


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


class PairedMemory(NamedTuple):
    """The Heaviside and impulse memories of one model and their tail fits (WLL Fig. 10); for a
    model of :func:`lru_family`, also its seed, name and slowest rate."""

    fit_h: DecayFit
    fit_i: DecayFit
    m_h: np.ndarray
    m_i: np.ndarray
    seed: int = 0
    name: str = ""
    slow: float = np.nan


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
    ratio (last 10 %) of every RNN's impulse memory (every gain), over ``L`` steps."""
    chosen = [p for g, p in zip(rnns.gains, rnns.params, strict=True) if g == gain]
    if not chosen:
        raise ValueError(f"no RNN of the sample has the gain {gain}")
    pairs = [paired_memory(tanh_rnn_model(p), L, window=window) for p in chosen]
    return pairs, np.array([tail_ratio(impulse_memory(tanh_rnn_model(p), L)) for p in rnns.params])


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


def lru_family_memories(seeds: Sequence[int], L: int) -> list[PairedMemory]:
    """:func:`paired_memory` of every model of :func:`lru_family` for each seed, fitted on the
    window ``(100, 0.8 L)`` of steps."""
    L = positive_int("L", L)
    return [
        paired_memory(model, L, window=(100.0, 0.8 * L))._replace(seed=seed, name=name, slow=slow)
        for seed in seeds
        for name, model, slow in lru_family(seed)
    ]


def bilinear_model(u: Float[ArrayLike, " L"]) -> Float[Array, " L"]:
    """``y_k = u_k * sum_{j <= k} u_j`` (causal; module docstring)."""
    u = jnp.asarray(u)
    if u.ndim != 1:
        raise ValueError(f"u must be a 1-D input sequence, got shape {u.shape}")
    return u * jnp.cumsum(u)


def probe_classes(model: Callable[[np.ndarray], ArrayLike], L: int) -> list[str]:
    """``[class of the Heaviside memory, class of the impulse memory]`` of ``model`` over ``L``
    steps (:func:`memory_class`)."""
    return [memory_class(probe(model, L)) for probe in (heaviside_memory, impulse_memory)]


def linear_probe_gap(pairs: Sequence[tuple[ArrayLike, ArrayLike]]) -> float:
    """``max |m_h - m_i| / floor`` over the steps ``k >= 1`` of each pair (Heaviside, impulse) of
    memories, with ``floor = 1e3 eps max(m_h)`` (:func:`lrnn_core.core.memory.roundoff_floor`):
    at most 1 where the two memories of a linear model agree up to round-off (App. H)."""
    if not pairs:
        raise ValueError("pairs must hold at least one (Heaviside, impulse) pair")
    gaps = []
    for m_h, m_i in pairs:
        m_h, m_i = np.asarray(m_h, np.float64), np.asarray(m_i, np.float64)
        check_shape("m_i", m_i, m_h.shape)
        gaps.append(np.abs(m_h[1:] - m_i[1:]).max() / roundoff_floor(m_h))
    return max(gaps)


def _hub_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME", str(Path.home() / ".cache" / "huggingface"))
    return Path(home) / "hub"


def cached_model(
    repo_id: str, *, library: str = "transformers", kind: str = "models"
) -> str | None:
    """None when ``library`` is importable and the Hugging Face repository ``repo_id`` of
    ``kind`` (``"models"`` or ``"datasets"``; e.g. the model
    ``"textattack/bert-base-uncased-imdb"``) has a snapshot in the local cache; otherwise the
    reason it cannot be loaded offline."""
    repo_id, library = check_text("repo_id", repo_id), check_text("library", library)
    kind = check_choice("kind", kind, ("models", "datasets"))
    if "/" not in repo_id:
        raise ValueError(f"repo_id must be 'owner/name', got {repo_id!r}")
    if importlib.util.find_spec(library) is None:
        return f"{library} is not installed"
    snapshots = _hub_cache() / "--".join([kind, *repo_id.split("/")]) / "snapshots"
    if not snapshots.is_dir() or not any(snapshots.iterdir()):
        return f"no snapshot of {repo_id} in the offline cache {snapshots.parent.parent}"
    return None
